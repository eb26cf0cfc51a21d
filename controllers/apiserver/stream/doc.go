// Package stream is the WebSocket framing (RFC 6455) of the API
// server's streaming subresources (pods/exec and pods/attach, whose
// messages carry the remote command channels of v4.channel.k8s.io and
// v5.channel.k8s.io): the server's opening handshake (Upgrade), a
// client's (Dial, for tests and tools), and a Conn that reads and
// writes whole messages.
//
// Every connection is bounded: a received message is at most
// Conn.MaxMessage bytes (DefaultMaxMessage, 1 MiB; beyond it the
// connection is closed with status 1009), nothing arriving for
// Conn.IdleTimeout (DefaultIdleTimeout, 2 min; client-go pings every
// 5 s) ends it, and each write must complete within Conn.WriteTimeout.
// Control frames are handled by ReadMessage: pings answered with pongs,
// a close frame echoed (io.EOF). Unmasked client frames, reserved bits,
// unknown opcodes and fragmented control frames are protocol errors
// (close status 1002). Extensions (permessage-deflate) are not
// negotiated.
//
// # SPDY/3.1
//
// pods/portforward speaks SPDY/3.1 (spdy.go, spdyconn.go), as client-go's
// spdystream does: plain after an HTTP upgrade, or tunnelled in WebSocket
// binary messages (Conn.Tunnel). A Framer reads and writes the frames
// (SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS, PING, GOAWAY, HEADERS,
// WINDOW_UPDATE, data), each direction's name/value header blocks one
// zlib stream primed with the SPDY dictionary. Reading is bounded: a
// frame's payload by Framer.MaxFrame (DefaultMaxFrame, 1 MiB), a
// decompressed header block by Framer.MaxHeaderBlock
// (DefaultMaxHeaderBlock, 64 KiB); a malformed frame is an error
// wrapping ErrSPDYProtocol, never a panic; unknown control frame types
// are skipped.
//
// SPDYConn is the server side: each SYN_STREAM of the peer (odd IDs,
// increasing; otherwise GOAWAY PROTOCOL_ERROR and the end) is answered
// with a SYN_REPLY and handed out by Accept, up to DefaultMaxStreams
// (128) open at once (beyond: RST_STREAM REFUSED_STREAM). The peer
// does no flow control, so WINDOW_UPDATE and SETTINGS are ignored and
// each stream buffers at most DefaultStreamBuffer (1 MiB) unread bytes
// (beyond: RST_STREAM FLOW_CONTROL_ERROR). Pings are echoed, a GOAWAY
// or a malformed frame (answered GOAWAY PROTOCOL_ERROR) ends the
// connection, and Close sends a GOAWAY. Writes are data frames of at
// most 32 KiB, each bounded by DefaultWriteTimeout; nothing arriving for
// DefaultIdleTimeout ends the connection (client-go pings every 10 s).
//
// Only the standard library is used.
package stream

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
// negotiated. Only the standard library is used.
package stream

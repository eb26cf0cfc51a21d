package stream

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// The SPDY/3.1 control frame types (SPDY Protocol draft 3.1, §2.6).
// A data frame has type 0 in a Frame.
const (
	SPDYData         uint16 = 0
	SPDYSynStream    uint16 = 1
	SPDYSynReply     uint16 = 2
	SPDYRstStream    uint16 = 3
	SPDYSettings     uint16 = 4
	SPDYPing         uint16 = 6
	SPDYGoAway       uint16 = 7
	SPDYHeaders      uint16 = 8
	SPDYWindowUpdate uint16 = 9
)

// SPDYFlagFin ends the sender's half of a stream (data frames,
// SYN_STREAM, SYN_REPLY, HEADERS).
const SPDYFlagFin byte = 0x01

// RST_STREAM status codes (§2.6.2) this package sends.
const (
	SPDYProtocolError    uint32 = 1
	SPDYRefusedStream    uint32 = 3
	SPDYCancel           uint32 = 5
	SPDYFlowControlError uint32 = 7
)

// Defaults of a Framer's limits.
const (
	// DefaultMaxFrame bounds the payload of one received frame.
	DefaultMaxFrame = 1 << 20
	// DefaultMaxHeaderBlock bounds one decompressed header block.
	DefaultMaxHeaderBlock = 64 << 10
)

// ErrSPDYProtocol wraps every malformed-frame error of ReadFrame: the
// connection cannot go on and is to be closed.
var ErrSPDYProtocol = errors.New("stream: spdy protocol error")

// Frame is one SPDY/3.1 frame. Type says which fields count:
//
//	SPDYData:         StreamID, Flags (FIN), Data
//	SPDYSynStream:    StreamID, Flags, Headers (AssociatedID, priority: dropped)
//	SPDYSynReply, SPDYHeaders: StreamID, Flags, Headers
//	SPDYRstStream:    StreamID, Value (status code)
//	SPDYSettings:     Flags, Data (the raw ID/value entries, 8 bytes each)
//	SPDYPing:         Value (ping ID)
//	SPDYGoAway:       StreamID (last good stream), Value (status)
//	SPDYWindowUpdate: StreamID, Value (delta window size)
type Frame struct {
	Type     uint16
	Flags    byte
	StreamID uint32
	Value    uint32
	Headers  http.Header
	Data     []byte
}

// Framer reads and writes the SPDY/3.1 frames of one connection. The
// header blocks of each direction share one zlib stream primed with the
// SPDY dictionary, so one Framer serves one connection for its life.
// ReadFrame is for one goroutine; WriteFrame must be serialised by the
// caller.
type Framer struct {
	r *bufio.Reader
	w io.Writer

	// MaxFrame bounds a received frame's payload (DefaultMaxFrame).
	MaxFrame int
	// MaxHeaderBlock bounds a decompressed header block
	// (DefaultMaxHeaderBlock).
	MaxHeaderBlock int

	in   blockFeed     // compressed header bytes not yet decompressed
	zr   io.ReadCloser // decompressor, made at the first header block
	zbuf bytes.Buffer  // the compressor's output
	zw   *zlib.Writer
}

// NewFramer returns a Framer reading r and writing w.
func NewFramer(r io.Reader, w io.Writer) *Framer {
	return &Framer{r: bufio.NewReader(r), w: w, MaxFrame: DefaultMaxFrame, MaxHeaderBlock: DefaultMaxHeaderBlock}
}

// blockFeed hands the decompressor the header bytes of the frames read
// so far, byte by byte (an io.ByteReader, so that flate reads no further
// than it needs).
type blockFeed struct{ b []byte }

func (f *blockFeed) Read(p []byte) (int, error) {
	if len(f.b) == 0 {
		return 0, io.ErrUnexpectedEOF
	}
	n := copy(p, f.b)
	f.b = f.b[n:]
	return n, nil
}

func (f *blockFeed) ReadByte() (byte, error) {
	if len(f.b) == 0 {
		return 0, io.ErrUnexpectedEOF
	}
	c := f.b[0]
	f.b = f.b[1:]
	return c, nil
}

func protoErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrSPDYProtocol, fmt.Sprintf(format, args...))
}

// ReadFrame reads the next frame. An I/O error is returned as is; a
// malformed frame (bad version, bad length, too big, undecodable header
// block) is an error wrapping ErrSPDYProtocol. Unknown control frame
// types are skipped, as the protocol asks.
func (f *Framer) ReadFrame() (*Frame, error) {
	for {
		var h [8]byte
		if _, err := io.ReadFull(f.r, h[:]); err != nil {
			return nil, err
		}
		flags := h[4]
		n := int(h[5])<<16 | int(h[6])<<8 | int(h[7])
		if n > f.MaxFrame {
			return nil, protoErr("frame of %d bytes exceeds the limit of %d", n, f.MaxFrame)
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(f.r, payload); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if h[0]&0x80 == 0 {
			return &Frame{Type: SPDYData, Flags: flags, StreamID: binary.BigEndian.Uint32(h[:4]) & 0x7fffffff, Data: payload}, nil
		}
		if v := binary.BigEndian.Uint16(h[:2]) & 0x7fff; v != 3 {
			return nil, protoErr("unsupported version %d", v)
		}
		fr := &Frame{Type: binary.BigEndian.Uint16(h[2:4]), Flags: flags}
		u32 := func(i int) uint32 { return binary.BigEndian.Uint32(payload[i:]) }
		need := map[uint16]int{SPDYSynStream: 10, SPDYSynReply: 4, SPDYRstStream: 8, SPDYSettings: 4,
			SPDYPing: 4, SPDYGoAway: 8, SPDYHeaders: 4, SPDYWindowUpdate: 8}
		min, known := need[fr.Type]
		if !known {
			continue
		}
		if len(payload) < min {
			return nil, protoErr("frame type %d of %d bytes is too short", fr.Type, len(payload))
		}
		var err error
		switch fr.Type {
		case SPDYSynStream:
			fr.StreamID = u32(0) & 0x7fffffff
			fr.Headers, err = f.readHeaders(payload[10:])
		case SPDYSynReply, SPDYHeaders:
			fr.StreamID = u32(0) & 0x7fffffff
			fr.Headers, err = f.readHeaders(payload[4:])
		case SPDYRstStream, SPDYGoAway, SPDYWindowUpdate:
			if len(payload) != 8 {
				return nil, protoErr("frame type %d of %d bytes", fr.Type, len(payload))
			}
			fr.StreamID, fr.Value = u32(0)&0x7fffffff, u32(4)
			if fr.Type == SPDYWindowUpdate {
				fr.Value &= 0x7fffffff
			}
		case SPDYSettings:
			if cnt := u32(0); uint64(cnt)*8 != uint64(len(payload)-4) {
				return nil, protoErr("settings frame: %d entries in %d bytes", cnt, len(payload)-4)
			}
			fr.Data = payload[4:]
		case SPDYPing:
			if len(payload) != 4 {
				return nil, protoErr("ping frame of %d bytes", len(payload))
			}
			fr.Value = u32(0)
		}
		if err != nil {
			return nil, err
		}
		return fr, nil
	}
}

// readHeaders decompresses and decodes a name/value header block
// (§2.6.10): a count, then length-prefixed names and values, a value's
// parts separated by NUL. Names are lower case on the wire; they are
// canonicalised here.
func (f *Framer) readHeaders(block []byte) (http.Header, error) {
	f.in.b = append(f.in.b, block...)
	if f.zr == nil {
		zr, err := zlib.NewReaderDict(&f.in, []byte(spdyDictionary))
		if err != nil {
			return nil, protoErr("header block: %v", err)
		}
		f.zr = zr
	}
	budget := f.MaxHeaderBlock
	readN := func(n int) ([]byte, error) {
		if n > budget {
			return nil, protoErr("header block exceeds %d bytes", f.MaxHeaderBlock)
		}
		budget -= n
		b := make([]byte, n)
		if _, err := io.ReadFull(f.zr, b); err != nil {
			return nil, protoErr("header block: %v", err)
		}
		return b, nil
	}
	readLen := func() (int, error) {
		b, err := readN(4)
		if err != nil {
			return 0, err
		}
		v := binary.BigEndian.Uint32(b)
		if v > uint32(f.MaxHeaderBlock) {
			return 0, protoErr("header block exceeds %d bytes", f.MaxHeaderBlock)
		}
		return int(v), nil
	}
	count, err := readLen()
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	for range count {
		n, err := readLen()
		if err != nil {
			return nil, err
		}
		name, err := readN(n)
		if err != nil {
			return nil, err
		}
		if n == 0 || strings.ToLower(string(name)) != string(name) {
			return nil, protoErr("invalid header name %q", name)
		}
		if n, err = readLen(); err != nil {
			return nil, err
		}
		value, err := readN(n)
		if err != nil {
			return nil, err
		}
		for _, v := range strings.Split(string(value), "\x00") {
			h.Add(string(name), v)
		}
	}
	if len(f.in.b) > 16 {
		// After a block the decompressor is left with at most the empty
		// stored block of the sender's sync flush.
		return nil, protoErr("header block has %d trailing bytes", len(f.in.b))
	}
	return h, nil
}

// WriteFrame writes fr. Header names are sent in lower case, a name's
// values joined by NUL.
func (f *Framer) WriteFrame(fr *Frame) error {
	var payload []byte
	switch fr.Type {
	case SPDYData:
		if len(fr.Data) > 0xffffff {
			return errors.New("stream: spdy data frame too large")
		}
		buf := make([]byte, 8, 8+len(fr.Data))
		binary.BigEndian.PutUint32(buf, fr.StreamID&0x7fffffff)
		buf[4] = fr.Flags
		buf[5], buf[6], buf[7] = byte(len(fr.Data)>>16), byte(len(fr.Data)>>8), byte(len(fr.Data))
		_, err := f.w.Write(append(buf, fr.Data...))
		return err
	case SPDYSynStream:
		payload = binary.BigEndian.AppendUint32(nil, fr.StreamID&0x7fffffff)
		payload = append(payload, 0, 0, 0, 0, 0, 0)
		block, err := f.writeHeaders(fr.Headers)
		if err != nil {
			return err
		}
		payload = append(payload, block...)
	case SPDYSynReply, SPDYHeaders:
		payload = binary.BigEndian.AppendUint32(nil, fr.StreamID&0x7fffffff)
		block, err := f.writeHeaders(fr.Headers)
		if err != nil {
			return err
		}
		payload = append(payload, block...)
	case SPDYRstStream, SPDYGoAway, SPDYWindowUpdate:
		payload = binary.BigEndian.AppendUint32(nil, fr.StreamID&0x7fffffff)
		payload = binary.BigEndian.AppendUint32(payload, fr.Value)
	case SPDYSettings:
		if len(fr.Data)%8 != 0 {
			return errors.New("stream: spdy settings entries are 8 bytes each")
		}
		payload = binary.BigEndian.AppendUint32(nil, uint32(len(fr.Data)/8))
		payload = append(payload, fr.Data...)
	case SPDYPing:
		payload = binary.BigEndian.AppendUint32(nil, fr.Value)
	default:
		return fmt.Errorf("stream: unknown spdy frame type %d", fr.Type)
	}
	if len(payload) > 0xffffff {
		return errors.New("stream: spdy frame too large")
	}
	buf := make([]byte, 8, 8+len(payload))
	binary.BigEndian.PutUint16(buf, 0x8003)
	binary.BigEndian.PutUint16(buf[2:], fr.Type)
	buf[4] = fr.Flags
	buf[5], buf[6], buf[7] = byte(len(payload)>>16), byte(len(payload)>>8), byte(len(payload))
	_, err := f.w.Write(append(buf, payload...))
	return err
}

// writeHeaders encodes and compresses h, flushing the compressor so
// that the block stands on its own.
func (f *Framer) writeHeaders(h http.Header) ([]byte, error) {
	if f.zw == nil {
		zw, err := zlib.NewWriterLevelDict(&f.zbuf, zlib.BestCompression, []byte(spdyDictionary))
		if err != nil {
			return nil, err
		}
		f.zw = zw
	}
	raw := binary.BigEndian.AppendUint32(nil, uint32(len(h)))
	for k, vs := range h {
		k = strings.ToLower(k)
		v := strings.Join(vs, "\x00")
		raw = binary.BigEndian.AppendUint32(raw, uint32(len(k)))
		raw = append(raw, k...)
		raw = binary.BigEndian.AppendUint32(raw, uint32(len(v)))
		raw = append(raw, v...)
	}
	f.zbuf.Reset()
	if _, err := f.zw.Write(raw); err != nil {
		return nil, err
	}
	if err := f.zw.Flush(); err != nil {
		return nil, err
	}
	return bytes.Clone(f.zbuf.Bytes()), nil
}

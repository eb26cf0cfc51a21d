package etcd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// Defaults of Options.
const (
	// DefaultPageSize is the default Options.PageSize.
	DefaultPageSize = 500
	// DefaultBookmarkInterval is the default Options.BookmarkInterval.
	DefaultBookmarkInterval = time.Minute
)

// Codec turns objects into the bytes stored in etcd and back.
// Implementations must be safe for concurrent use.
type Codec[T any] interface {
	// Encode returns the stored form of obj.
	Encode(obj T) ([]byte, error)
	// Decode returns the object stored as data. It must not keep data.
	Decode(data []byte) (T, error)
}

// JSONCodec stores objects as JSON (encoding/json). It is the default
// Codec. Decoding a stored JSON null is an error, so that a pointer type
// T never yields a nil object.
type JSONCodec[T any] struct{}

// Encode implements Codec with json.Marshal.
func (JSONCodec[T]) Encode(obj T) ([]byte, error) { return json.Marshal(obj) }

// Decode implements Codec with json.Unmarshal.
func (JSONCodec[T]) Decode(data []byte) (T, error) {
	var obj T
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return obj, errors.New("json: the stored value is null")
	}
	err := json.Unmarshal(data, &obj)
	return obj, err
}

// Options configures a Source.
type Options[T any] struct {
	// Prefix is the etcd key prefix the source owns: the object with key
	// k is stored at Prefix+k, and List and Watch cover exactly the keys
	// that start with Prefix. Required; it must end with "/" so that
	// "/pods/" never also covers "/podsecurity/...".
	Prefix string

	// KeyFunc returns the key of an object (for example namespace/name).
	// Required. An empty key is an error.
	KeyFunc func(T) string

	// Codec encodes and decodes the stored values. Default JSONCodec[T].
	Codec Codec[T]

	// PageSize is how many keys one range request reads when List is
	// called without a Limit and when a watch sends its initial events:
	// the pages are read at one revision, so the result is one snapshot
	// however large. Default DefaultPageSize; negative is an error.
	PageSize int64

	// BookmarkInterval is how long a watch opened with AllowBookmarks may
	// be idle before the source asks etcd for a progress notification,
	// which becomes a Bookmark event. Default DefaultBookmarkInterval;
	// negative is an error.
	BookmarkInterval time.Duration

	// Logger receives the source's log lines (watch streams that broke
	// and are left to the caller to resume, values that do not decode).
	// Default slog.Default().
	Logger *slog.Logger

	// OnDecodeError, if set, is called with every stored value that List
	// or a watch leaves out because the Codec cannot decode it (it is
	// logged at warning level either way). It runs on the caller's or
	// the watch's goroutine and must return quickly. Default: none.
	OnDecodeError func(err *DecodeError)
}

func (o *Options[T]) defaults() error {
	switch {
	case o.Prefix == "":
		return errors.New("etcd: Options.Prefix is empty")
	case !strings.HasSuffix(o.Prefix, "/"):
		return fmt.Errorf("etcd: Options.Prefix %q does not end with \"/\"", o.Prefix)
	case o.KeyFunc == nil:
		return errors.New("etcd: Options.KeyFunc is nil")
	case o.PageSize < 0:
		return fmt.Errorf("etcd: Options.PageSize is negative (%d)", o.PageSize)
	case o.BookmarkInterval < 0:
		return fmt.Errorf("etcd: Options.BookmarkInterval is negative (%v)", o.BookmarkInterval)
	}
	if o.Codec == nil {
		o.Codec = JSONCodec[T]{}
	}
	if o.PageSize == 0 {
		o.PageSize = DefaultPageSize
	}
	if o.BookmarkInterval == 0 {
		o.BookmarkInterval = DefaultBookmarkInterval
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return nil
}

// DecodeError reports a stored value that the Codec could not decode.
// Get returns it. List and Watch quarantine the value instead: they leave
// it out, log it and pass it to Options.OnDecodeError, and go on with
// every other key, so that one bad value never stops a reader; a reader
// keeps the object's last good state (or never sees it) until a good
// value is written to the key.
type DecodeError struct {
	// Key is the etcd key of the value (Prefix included).
	Key string
	// Revision is the revision of the write that stored the value.
	Revision int64
	// Err is the Codec's error.
	Err error
}

// Error implements error.
func (e *DecodeError) Error() string {
	return fmt.Sprintf("etcd: decode the value of %q written at revision %d: %v", e.Key, e.Revision, e.Err)
}

// Unwrap returns the Codec's error.
func (e *DecodeError) Unwrap() error { return e.Err }

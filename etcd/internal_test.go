package etcd

import (
	"errors"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ctrlkit/ctrlkit/source"
)

// FuzzContinueToken: tokens round-trip, and decoding anything never
// panics and yields either a valid position or an error.
func FuzzContinueToken(f *testing.F) {
	f.Add(int64(1), "a", "")
	f.Add(int64(42), "ns/name:with:colons", "YzE6NDI6bnMvbmFtZQ")
	f.Add(int64(1<<62), "\x00\xff", "garbage")
	f.Fuzz(func(t *testing.T, rev int64, key, raw string) {
		if rev > 0 && key != "" {
			gotRev, gotKey, err := decodeContinue(encodeContinue(rev, key))
			if err != nil || gotRev != rev || gotKey != key {
				t.Fatalf("round trip of (%d, %q): (%d, %q, %v)", rev, key, gotRev, gotKey, err)
			}
		}
		gotRev, gotKey, err := decodeContinue(raw)
		if err == nil && (gotRev <= 0 || gotKey == "") {
			t.Fatalf("decodeContinue(%q) = (%d, %q) without an error", raw, gotRev, gotKey)
		}
		if err != nil && !errors.Is(err, source.ErrBadContinue) {
			t.Fatalf("decodeContinue(%q): %v, want source.ErrBadContinue", raw, err)
		}
	})
}

type benchObject struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	RV    string `json:"-"`
}

func (o *benchObject) SetResourceVersion(rv string) { o.RV = rv }

// rawCodec stores the value bytes as the object's value, to measure the
// source's own cost without encoding/json's.
type rawCodec struct{}

func (rawCodec) Encode(o *benchObject) ([]byte, error) { return []byte(o.Value), nil }
func (rawCodec) Decode(data []byte) (*benchObject, error) {
	return &benchObject{Value: string(data)}, nil
}

func benchmarkEvent(b *testing.B, codec Codec[*benchObject], value []byte) {
	src, err := New(new(clientv3.Client), Options[*benchObject]{
		Prefix:  "/bench/",
		KeyFunc: func(o *benchObject) string { return o.Key },
		Codec:   codec,
	})
	if err != nil {
		b.Fatal(err)
	}
	w := &watch[*benchObject]{src: src}
	ev := &clientv3.Event{Type: mvccpb.PUT, Kv: &mvccpb.KeyValue{
		Key: []byte("/bench/ns/name"), Value: value, CreateRevision: 10, ModRevision: 12345, Version: 2,
	}}
	b.ReportAllocs()
	for b.Loop() {
		e, err := w.event(ev)
		if err != nil || e.Object == nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWatchEvent measures turning one etcd watch event into a
// reflector event: with the JSON codec, and with a trivial codec (the
// source's own overhead).
func BenchmarkWatchEvent(b *testing.B) {
	b.Run("JSON", func(b *testing.B) {
		benchmarkEvent(b, JSONCodec[*benchObject]{}, []byte(`{"key":"ns/name","value":"`+strconv.Itoa(1234567)+`"}`))
	})
	b.Run("Raw", func(b *testing.B) { benchmarkEvent(b, rawCodec{}, []byte("1234567")) })
}

// Errors that leave a version good are marked transient, so a reflector
// re-watches instead of relisting (issue 12.3).
func TestMapErrMarksTransient(t *testing.T) {
	for _, err := range []error{
		status.Error(codes.Unavailable, "no leader"),
		status.Error(codes.ResourceExhausted, "too many requests"),
		rpctypes.ErrGRPCNoLeader,
		rpctypes.ErrTooManyRequests,
	} {
		require.ErrorIs(t, mapErr(err), source.ErrTransient, err.Error())
	}
	for _, err := range []error{errors.New("boom"), status.Error(codes.InvalidArgument, "bad")} {
		require.NotErrorIs(t, mapErr(err), source.ErrTransient, err.Error())
	}
	require.ErrorIs(t, mapErr(rpctypes.ErrCompacted), source.ErrExpired)
}

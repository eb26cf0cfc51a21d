package clusterstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/etcd"
)

// DefaultPrefix is Kubernetes' etcd prefix, the default Options.Prefix.
const DefaultPrefix = "/registry/"

// Options configures the backend. The zero value is valid.
type Options struct {
	// Prefix is prepended to "<resource>/<key>". Default DefaultPrefix;
	// it must end with "/".
	Prefix string
	// Logger receives the sources' log lines. Default slog.Default().
	Logger *slog.Logger
	// BookmarkInterval is how long a watch of one resource may stay idle
	// before its source asks etcd for a progress notification (see
	// etcd.Options.BookmarkInterval). Default etcd.DefaultBookmarkInterval.
	// Every resource's revision is the whole store's, so an informer of a
	// resource nobody writes learns that it is current only from such a
	// bookmark; a short interval makes waits for the latest revision
	// (informer.WaitForLatest, a control plane's Settle) quick.
	BookmarkInterval time.Duration
}

// Backend is a cluster.Backend over one etcd client.
type Backend struct {
	client *clientv3.Client
	opts   Options
}

var _ cluster.Backend = (*Backend)(nil)

// New returns a backend over client. It starts nothing; the client stays
// the caller's to close.
func New(client *clientv3.Client, opts Options) *Backend {
	return &Backend{client: client, opts: opts}
}

// Open returns the etcd source of one resource (cluster.Backend).
func (b *Backend) Open(r cluster.Resource) (cluster.RawStorage, error) {
	if b == nil || b.client == nil {
		return nil, errors.New("clusterstore: nil client")
	}
	prefix := b.opts.Prefix
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if !strings.HasSuffix(prefix, "/") {
		return nil, fmt.Errorf("clusterstore: Options.Prefix %q does not end with \"/\"", prefix)
	}
	src, err := etcd.New(b.client, etcd.Options[*cluster.RawObject]{
		Prefix:           prefix + r.Name + "/",
		KeyFunc:          func(o *cluster.RawObject) string { return o.Key },
		Codec:            rawCodec{},
		Logger:           b.opts.Logger,
		BookmarkInterval: b.opts.BookmarkInterval,
	})
	if err != nil {
		return nil, err
	}
	return storage{src}, nil
}

// storage is the etcd source of one resource, whose refusals of values
// over etcd's --max-request-bytes wrap cluster.ErrTooLarge (413 through
// an API server), as the cluster's own size limit does.
type storage struct {
	*etcd.Source[*cluster.RawObject]
}

func (s storage) Create(ctx context.Context, o *cluster.RawObject) (string, error) {
	rv, err := s.Source.Create(ctx, o)
	return rv, tooLarge(err)
}

func (s storage) Update(ctx context.Context, o *cluster.RawObject, ifVersion string) (string, error) {
	rv, err := s.Source.Update(ctx, o, ifVersion)
	return rv, tooLarge(err)
}

// tooLarge adds cluster.ErrTooLarge to etcd's "request is too large".
func tooLarge(err error) error {
	if errors.Is(err, rpctypes.ErrRequestTooLarge) || errors.Is(err, rpctypes.ErrGRPCRequestTooLarge) {
		return fmt.Errorf("%w: %w", cluster.ErrTooLarge, err)
	}
	return err
}

// rawCodec stores a RawObject's JSON as the etcd value.
type rawCodec struct{}

func (rawCodec) Encode(o *cluster.RawObject) ([]byte, error) {
	if o == nil {
		return nil, errors.New("clusterstore: nil object")
	}
	return o.Data, nil
}

func (rawCodec) Decode(data []byte) (*cluster.RawObject, error) {
	return &cluster.RawObject{Data: bytes.Clone(data)}, nil
}

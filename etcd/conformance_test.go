package etcd_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/etcd"
	"github.com/ctrlkit/ctrlkit/etcd/etcdtest"
	"github.com/ctrlkit/ctrlkit/source/sourcetest"
)

// conformant adds the suite's compaction hook to etcd.Source: etcd
// compacts the whole keyspace at the current revision.
type conformant struct {
	*etcd.Source[*sourcetest.Object]
	compact func(context.Context) error
}

func (c conformant) Compact(ctx context.Context) error { return c.compact(ctx) }

// TestConformance runs the source conformance suite against a real,
// embedded etcd; each subtest gets a fresh prefix of one cluster.
func TestConformance(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := newClient(t, c)
	n := 0
	sourcetest.Run(t, func(t *testing.T) sourcetest.Source {
		n++
		src := objectSource(t, cli, fmt.Sprintf("/conformance/%d/", n))
		return conformant{Source: src, compact: func(ctx context.Context) error {
			_, err := compact(ctx, cli)
			return err
		}}
	}, sourcetest.Capabilities{WatchList: true, Bookmarks: true, Timeout: 10 * time.Second})
}

package etcd_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/ctrlkit/ctrlkit/etcd"
	"github.com/ctrlkit/ctrlkit/etcd/etcdtest"
	"github.com/ctrlkit/ctrlkit/source/sourcetest"
)

// quiet is a logger for sources under test.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// newClient returns a client of c's endpoints (all when none are given),
// closed when the test ends.
func newClient(t testing.TB, c *etcdtest.Cluster, endpoints ...string) *clientv3.Client {
	t.Helper()
	cli, err := c.Client(endpoints...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// objectSource returns a source of sourcetest objects under prefix.
func objectSource(t testing.TB, cli *clientv3.Client, prefix string, mutate ...func(*etcd.Options[*sourcetest.Object])) *etcd.Source[*sourcetest.Object] {
	t.Helper()
	opts := etcd.Options[*sourcetest.Object]{
		Prefix:           prefix,
		KeyFunc:          sourcetest.ObjectKey,
		BookmarkInterval: 50 * time.Millisecond,
		Logger:           quiet,
	}
	for _, m := range mutate {
		m(&opts)
	}
	src, err := etcd.New(cli, opts)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// compact compacts the cluster's history at its current revision.
func compact(ctx context.Context, cli *clientv3.Client) (int64, error) {
	resp, err := cli.Get(ctx, "compact-probe")
	if err != nil {
		return 0, err
	}
	rev := resp.Header.Revision
	return rev, etcdtest.Compact(ctx, cli, rev)
}

// seed writes objects under prefix in transactions of up to
// etcdtest.MaxTxnOps puts and returns the revision of the last one: much
// faster than one write per object.
func seed(t testing.TB, cli *clientv3.Client, prefix string, objs []*sourcetest.Object) int64 {
	t.Helper()
	var rev int64
	for batch := range slices.Chunk(objs, etcdtest.MaxTxnOps) {
		ops := make([]clientv3.Op, 0, len(batch))
		for _, o := range batch {
			data, err := json.Marshal(o)
			if err != nil {
				t.Fatal(err)
			}
			ops = append(ops, clientv3.OpPut(prefix+o.Key, string(data)))
		}
		resp, err := cli.Txn(t.Context()).Then(ops...).Commit()
		if err != nil {
			t.Fatal(err)
		}
		rev = resp.Header.Revision
	}
	return rev
}

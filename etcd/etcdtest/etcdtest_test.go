package etcdtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/ctrlkit/ctrlkit/etcd/etcdtest"
)

func client(t *testing.T, endpoints ...string) *clientv3.Client {
	t.Helper()
	cli, err := clientv3.New(etcdtest.ClientConfig(endpoints...))
	require.NoError(t, err)
	t.Cleanup(func() { cli.Close() })
	return cli
}

func put(cli *clientv3.Client, key string, within time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	_, err := cli.Put(ctx, key, "v")
	return err
}

// TestProxyCutAndRestore: a client behind a cut proxy cannot reach the
// member; once restored it can again.
func TestProxyCutAndRestore(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	p, err := etcdtest.NewProxy(c.Members()[0].ClientURL())
	require.NoError(t, err)
	defer p.Close()
	cli := client(t, p.URL())
	require.NoError(t, put(cli, "/a", 5*time.Second))
	p.Cut()
	require.Error(t, put(cli, "/b", 300*time.Millisecond))
	p.Restore()
	require.NoError(t, put(cli, "/c", 10*time.Second))
	p.Close()
	p.Close() // idempotent
}

// TestMemberStopAndRestart: a stopped member of a 3-member cluster keeps
// its data and catches up with what was written while it was down; its
// client URL stays the same.
func TestMemberStopAndRestart(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{Members: 3})
	require.Len(t, c.Endpoints(), 3)
	all := client(t, c.Endpoints()...)
	require.NoError(t, put(all, "/before", 10*time.Second))
	m := c.Members()[1]
	m.Stop()
	require.False(t, m.Running())
	require.False(t, m.IsLeader())
	m.Stop() // no-op
	require.NoError(t, put(all, "/while", 10*time.Second))
	require.NoError(t, m.Restart())
	require.True(t, m.Running())
	require.ErrorContains(t, m.Restart(), "it is running")

	only := client(t, m.ClientURL())
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	resp, err := only.Get(ctx, "/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	require.NoError(t, err)
	var keys []string
	for _, kv := range resp.Kvs {
		keys = append(keys, string(kv.Key))
	}
	require.Equal(t, []string{"/before", "/while"}, keys)
	_, ok := c.Leader()
	require.True(t, ok)
}

func TestStartValidatesOptions(t *testing.T) {
	_, err := etcdtest.Start(etcdtest.Options{})
	require.ErrorContains(t, err, "etcdtest: Options.Dir is empty")
	_, err = etcdtest.Start(etcdtest.Options{Dir: t.TempDir(), Members: -1})
	require.ErrorContains(t, err, "Members is negative")
	_, err = etcdtest.NewProxy("::bad")
	require.ErrorContains(t, err, "bad target URL")
}

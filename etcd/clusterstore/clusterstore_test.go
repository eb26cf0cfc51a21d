package clusterstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/client/clienttest"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/cluster/clustertest"
	"github.com/ctrlkit/ctrlkit/etcd/clusterstore"
	"github.com/ctrlkit/ctrlkit/etcd/etcdtest"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func newClient(t *testing.T) *clientv3.Client {
	t.Helper()
	ec := etcdtest.New(t, etcdtest.Options{})
	cli, err := ec.Client()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// TestSuite runs the cluster suite over one etcd, each case under a
// prefix of its own.
func TestSuite(t *testing.T) {
	cli := newClient(t)
	var n atomic.Int64
	clustertest.Run(t, func(t *testing.T, opts cluster.Options) *cluster.Cluster {
		prefix := fmt.Sprintf("/t%d/registry/", n.Add(1))
		opts.Backend = clusterstore.New(cli, clusterstore.Options{Prefix: prefix, Logger: quiet})
		c, err := cluster.New(t.Context(), opts)
		if err != nil {
			t.Fatal(err)
		}
		return c
	})
}

// TestClientConformance runs the client contract's suite over one etcd,
// each subtest with a cluster under a prefix of its own.
func TestClientConformance(t *testing.T) {
	cli := newClient(t)
	var n atomic.Int64
	clienttest.Run(t, func(t *testing.T) client.Client {
		prefix := fmt.Sprintf("/c%d/registry/", n.Add(1))
		c, err := cluster.New(t.Context(), cluster.Options{
			Backend: clusterstore.New(cli, clusterstore.Options{Prefix: prefix, Logger: quiet}),
		})
		if err != nil {
			t.Fatal(err)
		}
		return c
	})
}

// TestOwnKinds runs the suite of a user's kinds (api.Register) over
// etcd: their objects are stored under /registry/<group>/<resource>/, as
// kube-apiserver stores custom resources.
func TestOwnKinds(t *testing.T) {
	cli := newClient(t)
	var n atomic.Int64
	clienttest.RunOwnKinds(t, func(t *testing.T) client.Client {
		prefix := fmt.Sprintf("/own%d/registry/", n.Add(1))
		c, err := cluster.New(t.Context(), cluster.Options{
			Backend: clusterstore.New(cli, clusterstore.Options{Prefix: prefix, Logger: quiet}),
		})
		if err != nil {
			t.Fatal(err)
		}
		return c
	})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	resp, err := cli.Get(ctx, "/own", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, kv := range resp.Kvs {
		found = found || strings.Contains(string(kv.Key), "/registry/example.ctrlkit.dev/widgets/")
	}
	if !found {
		t.Fatal("no widget stored under /registry/example.ctrlkit.dev/widgets/")
	}
}

// The keys are Kubernetes': /registry/<resource>/<namespace>/<name>, and
// /registry/<resource>/<name> for cluster-scoped kinds; the values are the
// objects' JSON.
func TestKeyLayout(t *testing.T) {
	cli := newClient(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	c, err := cluster.New(ctx, cluster.Options{Backend: clusterstore.New(cli, clusterstore.Options{Logger: quiet})})
	if err != nil {
		t.Fatal(err)
	}
	pod := clustertest.Pod("default", "web-0", nil)
	if _, err := c.Pods().Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Nodes().Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "n1"}}); err != nil {
		t.Fatal(err)
	}
	resp, err := cli.Get(ctx, "/registry/pods/default/web-0")
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("/registry/pods/default/web-0: %v, %d keys", err, len(resp.Kvs))
	}
	var stored api.Pod
	if err := json.Unmarshal(resp.Kvs[0].Value, &stored); err != nil {
		t.Fatal(err)
	}
	if stored.UID != pod.UID || stored.Kind != "Pod" || stored.ResourceVersion != "" {
		t.Errorf("stored pod: uid %q kind %q resourceVersion %q", stored.UID, stored.Kind, stored.ResourceVersion)
	}
	for _, key := range []string{"/registry/nodes/n1", "/registry/namespaces/default", "/registry/namespaces/kube-system"} {
		resp, err := cli.Get(ctx, key)
		if err != nil || len(resp.Kvs) != 1 {
			t.Errorf("%s: %v, %d keys", key, err, len(resp.Kvs))
		}
	}
	// A second Cluster over the same etcd is the same cluster.
	c2, err := cluster.New(ctx, cluster.Options{Backend: clusterstore.New(cli, clusterstore.Options{Logger: quiet})})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := c2.Pods().Get(ctx, "default/web-0")
	if err != nil || got.UID != pod.UID {
		t.Fatalf("second cluster: %v", err)
	}
}

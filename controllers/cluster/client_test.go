package cluster_test

import (
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/client/clienttest"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// TestClientConformance runs the client contract's suite on the
// in-memory cluster, a fresh cluster per subtest.
func TestClientConformance(t *testing.T) {
	clienttest.Run(t, func(t *testing.T) client.Client {
		return newMemory(t, cluster.Options{})
	})
}

// TestClientConformanceRawBackend runs it on the Backend path (encoding,
// decoding) without etcd.
func TestClientConformanceRawBackend(t *testing.T) {
	clienttest.Run(t, func(t *testing.T) client.Client {
		return newMemory(t, cluster.Options{Backend: rawBackend{}})
	})
}

// TestClientConformanceShared hands every subtest the same cluster, as a
// run against a real API server does: the subtests must not see each
// other.
func TestClientConformanceShared(t *testing.T) {
	c := newMemory(t, cluster.Options{})
	clienttest.Run(t, func(*testing.T) client.Client { return c })
}

// TestOwnKinds runs the own-kinds suite (a user's Go types added with
// api.Register) on the in-memory cluster and on the Backend path.
func TestOwnKinds(t *testing.T) {
	t.Run("Memory", func(t *testing.T) {
		clienttest.RunOwnKinds(t, func(t *testing.T) client.Client { return newMemory(t, cluster.Options{}) })
	})
	t.Run("RawBackend", func(t *testing.T) {
		clienttest.RunOwnKinds(t, func(t *testing.T) client.Client { return newMemory(t, cluster.Options{Backend: rawBackend{}}) })
	})
}

package cluster_test

import (
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/cluster/clustertest"
	"github.com/ctrlkit/ctrlkit/fake"
)

func newMemory(t *testing.T, opts cluster.Options) *cluster.Cluster {
	t.Helper()
	c, err := cluster.New(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSuiteMemory(t *testing.T) { clustertest.Run(t, newMemory) }

// rawBackend stores every resource in a fake.Source of raw objects, so
// the suite also covers the Backend path (encoding, decoding) without etcd.
type rawBackend struct{}

func (rawBackend) Open(r cluster.Resource) (cluster.RawStorage, error) {
	return fake.NewSource(func(o *cluster.RawObject) string { return o.Key }, fake.Options[*cluster.RawObject]{
		Copy: func(o *cluster.RawObject) *cluster.RawObject { c := *o; return &c },
	})
}

func TestSuiteRawBackend(t *testing.T) {
	clustertest.Run(t, func(t *testing.T, opts cluster.Options) *cluster.Cluster {
		opts.Backend = rawBackend{}
		return newMemory(t, opts)
	})
}

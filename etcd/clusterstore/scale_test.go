package clusterstore_test

import (
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/etcd/clusterstore"
	"github.com/ctrlkit/ctrlkit/etcd/etcdtest"
	"github.com/ctrlkit/ctrlkit/internal/scalebench"
)

// The scale scenarios of controllers/controlplane (issue 20, package
// internal/scalebench: the same bodies and metrics) over an embedded
// etcd of one member, started afresh for each run. Issue 33's goal: the
// 10,000-pod run within 3× the in-memory backend's time.
//
//	go test -run='^$' -bench=Scale -benchtime=1x ./clusterstore/
//	CTRLKIT_SCALE_NODES=5000 CTRLKIT_SCALE_PODS=10000 go test -run='^$' -bench=ScaleDeployment -benchtime=1x -timeout=30m ./clusterstore/
//
// Sizes default to 10 nodes and 100 pods (scalebench.Sizes). cpu-s
// includes the embedded etcd's CPU, which runs in the process.

// scaleBookmarks is the backend's BookmarkInterval in the scale runs, as
// the ctrlkit command's: a resource nobody writes learns that it is
// current (what Settle waits for) within a second.
const scaleBookmarks = time.Second

// etcdStore starts an embedded etcd for one run; release closes its
// client and stops it.
func etcdStore(tb testing.TB) (cluster.Options, func()) {
	tb.Helper()
	ec, err := etcdtest.Start(etcdtest.Options{Dir: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	cli, err := ec.Client()
	if err != nil {
		ec.Close()
		tb.Fatal(err)
	}
	b := clusterstore.New(cli, clusterstore.Options{Logger: quiet, BookmarkInterval: scaleBookmarks})
	return cluster.Options{Backend: b}, func() {
		cli.Close()
		ec.Close()
	}
}

// BenchmarkScaleStartEmpty: controlplane.Start and Settle of a cluster
// of one node over etcd (the etcd's start is not counted).
func BenchmarkScaleStartEmpty(b *testing.B) { scalebench.BenchmarkStartEmpty(b, etcdStore) }

// BenchmarkScaleNodesReady: N simulated nodes over etcd from Start until
// every Node is Ready.
func BenchmarkScaleNodesReady(b *testing.B) { scalebench.BenchmarkNodesReady(b, etcdStore) }

// BenchmarkScaleDeployment: a Deployment of R replicas on N Ready nodes
// over etcd, from its creation until settled.
func BenchmarkScaleDeployment(b *testing.B) { scalebench.BenchmarkDeployment(b, etcdStore) }

package controlplane_test

import (
	"testing"

	"github.com/ctrlkit/ctrlkit/internal/scalebench"
)

// Scale scenarios on shapes others have published (issue 20), as
// benchmarks over the in-memory store; package internal/scalebench holds
// their bodies and documents their metrics (the etcd module runs the same
// over etcd). They run in real time; TestScaleSmoke runs the same bodies,
// tiny, in a bubble.
//
//	go test -run='^$' -bench=Scale -benchtime=1x ./controllers/controlplane/
//	CTRLKIT_SCALE_NODES=5000 CTRLKIT_SCALE_PODS=10000 go test -run='^$' -bench=Scale -benchtime=1x -timeout=30m ./controllers/controlplane/
//
// Sizes default to 10 nodes and 100 pods (scalebench.Sizes).

// BenchmarkScaleStartEmpty: controlplane.Start and Settle of a cluster
// with one node (envtest takes 5–15 s to start an API server and etcd).
// start-s is Start's return; settled-s the last change before quiet.
func BenchmarkScaleStartEmpty(b *testing.B) { scalebench.BenchmarkStartEmpty(b, nil) }

// BenchmarkScaleNodesReady: N simulated nodes from Start until every
// Node is Ready (KWOK's CI: 5,000 nodes Ready within 60 s against a real
// API server).
func BenchmarkScaleNodesReady(b *testing.B) { scalebench.BenchmarkNodesReady(b, nil) }

// BenchmarkScaleDeployment: a Deployment of R replicas on N Ready nodes,
// from its creation until settled — through the deployment and
// replicaset controllers, the scheduler and the kubelets (KWOK: 10,000
// pods, pre-bound with no scheduler, Running within 60 s). The nodes'
// start is not timed.
func BenchmarkScaleDeployment(b *testing.B) { scalebench.BenchmarkDeployment(b, nil) }

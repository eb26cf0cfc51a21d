package kube_test

import (
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/client/clienttest"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/kube"
)

// kube.Client passes the contract's conformance suite against ctrlkit's
// served API (over HTTP, in process). The same suite against a real
// kube-apiserver is the next step of issue 29.
func TestClientConformance(t *testing.T) {
	clienttest.Run(t, func(t *testing.T) client.Client {
		cl, _ := newServedClient(t, cluster.Options{}, kube.ClientOptions{QPS: 10000, Burst: 10000})
		return cl
	})
}

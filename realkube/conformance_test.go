package realkube_test

import (
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/client/clienttest"
	"github.com/ctrlkit/ctrlkit/kube"
)

// kube.Client against one real kube-apiserver (started once: it takes
// seconds): the client contract's conformance suite, the ground truth
// the suite describes, and the ordered versions of OrderedVersions.
func TestClient(t *testing.T) {
	s := start(t)
	cl, err := kube.NewClient(s.Config(), kube.ClientOptions{QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	ordered, err := kube.NewClient(s.Config(), kube.ClientOptions{QPS: -1, OrderedVersions: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("Conformance", func(t *testing.T) {
		clienttest.Run(t, func(t *testing.T) client.Client { return cl })
	})
	t.Run("OrderedVersions", func(t *testing.T) { testOrderedVersions(t, ordered) })
}

package fakeclient_test

import (
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/client/clienttest"
	"github.com/ctrlkit/ctrlkit/controllers/client/fakeclient"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// The recording fake over the in-memory cluster passes the contract's
// conformance suite: recording changes nothing a controller sees.
func TestConformance(t *testing.T) {
	clienttest.Run(t, func(t *testing.T) client.Client {
		c, err := cluster.New(t.Context(), cluster.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return fakeclient.New(c)
	})
}

// The fake serves the kinds added with api.Register (client.For and
// client.ForKind), recorded, with the own-kinds conformance suite's
// semantics.
func TestOwnKindsConformance(t *testing.T) {
	clienttest.RunOwnKinds(t, func(t *testing.T) client.Client {
		c, err := cluster.New(t.Context(), cluster.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return fakeclient.New(c)
	})
}

package dns_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/dns"
	"github.com/ctrlkit/ctrlkit/informer"
)

// The resolver runs nothing of its own: before the factory starts, its
// WaitForCacheSync returns false exactly when ctx ends; once the caches
// have synced it answers; after the factory's Shutdown no goroutine is
// left (the bubble would not end otherwise) and nothing waits on it.
func TestShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, err := cluster.New(t.Context(), cluster.Options{})
		require.NoError(t, err)
		svc := &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"},
			Spec: api.ServiceSpec{ClusterIP: "10.96.0.10", Ports: []api.ServicePort{{Name: "http", Port: 80}}}}
		_, err = c.Services().Create(t.Context(), svc)
		require.NoError(t, err)
		f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
		r, err := dns.New(c, f, dns.Options{})
		require.NoError(t, err)

		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		begin := time.Now()
		require.False(t, r.WaitForCacheSync(ctx), "the factory is not started")
		require.Equal(t, 5*time.Second, time.Since(begin), "WaitForCacheSync ends with its ctx")

		run, stop := context.WithCancel(t.Context())
		f.Start(run)
		require.True(t, r.WaitForCacheSync(t.Context()))
		require.Equal(t, "[10.96.0.10]", lookup(r, "web.default.svc.cluster.local"))
		stop()
		f.Shutdown()
	})
}

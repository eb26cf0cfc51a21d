package kube_test

import (
	"errors"
	"net"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/kube"
	"github.com/ctrlkit/ctrlkit/source"
)

// TestUnreachableServerIsTransient checks that a server that cannot be
// reached — a refused connection, or one the network drops during the
// TLS handshake — fails a List and a Watch with source.ErrTransient, so
// that a reflector retries from its last version instead of relisting.
func TestUnreachableServerIsTransient(t *testing.T) {
	ctx := t.Context()

	// Nothing listens on a port just closed: connection refused.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	refused := rest.CopyConfig(server.Config)
	refused.Host = "https://" + l.Addr().String()
	require.NoError(t, l.Close())

	// The proxy accepts and at once closes: EOF.
	proxy, err := server.NewProxy()
	require.NoError(t, err)
	t.Cleanup(proxy.Close)
	proxy.Block()
	dropped := proxy.Config(server)

	for name, cfg := range map[string]*rest.Config{"refused": refused, "dropped": dropped} {
		t.Run(name, func(t *testing.T) {
			src, err := kube.NewDynamic(cfg, flunderGVR, kube.Options{Namespace: newNamespace("transient")})
			require.NoError(t, err)
			_, err = src.List(ctx, source.ListOptions{})
			require.True(t, errors.Is(err, source.ErrTransient), "List: %v", err)
			_, err = src.Watch(ctx, source.WatchOptions{})
			require.True(t, errors.Is(err, source.ErrTransient), "Watch: %v", err)
		})
	}
}

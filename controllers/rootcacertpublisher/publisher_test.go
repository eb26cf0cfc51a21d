package rootcacertpublisher_test

import (
	"context"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/rootcacertpublisher"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

const bundle = "-----BEGIN CERTIFICATE-----\nroot\n-----END CERTIFICATE-----\n"

// Desired is kcm's syncNamespace decision. Cases after kube's
// pkg/controller/certificates/rootcacertpublisher/publisher_test.go
// (TestConfigMapCreation: a new namespace, the CA ConfigMap deleted,
// updated with a field added or modified), in this package's terms.
func TestDesired(t *testing.T) {
	ok := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: rootcacertpublisher.ConfigMapName, ResourceVersion: "7",
		Labels: map[string]string{"keep": "me"}, Annotations: map[string]string{rootcacertpublisher.DescriptionAnnotation: "anything"}},
		Data: map[string]string{"ca.crt": bundle}}
	added := ok.DeepCopy()
	added.Data["extra"] = "x"
	modified := ok.DeepCopy()
	modified.Data["ca.crt"] = "other"
	noAnnotation := ok.DeepCopy()
	noAnnotation.Annotations = nil
	binary := ok.DeepCopy()
	binary.BinaryData = map[string][]byte{"x": {1}}

	want, write := rootcacertpublisher.Desired(nil, "ns", bundle)
	require.True(t, write, "a missing ConfigMap is created")
	require.Equal(t, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "kube-root-ca.crt",
		Annotations: map[string]string{"kubernetes.io/description": rootcacertpublisher.Description}},
		Data: map[string]string{"ca.crt": bundle}}, want)

	_, write = rootcacertpublisher.Desired(ok, "ns", bundle)
	require.False(t, write, "as it should be (any description kept)")
	for name, have := range map[string]*api.ConfigMap{"a field added": added, "a field modified": modified,
		"the annotation removed": noAnnotation, "binary data added": binary} {
		want, write := rootcacertpublisher.Desired(have, "ns", bundle)
		require.True(t, write, name)
		require.Equal(t, map[string]string{"ca.crt": bundle}, want.Data, name)
		require.NotEmpty(t, want.Annotations[rootcacertpublisher.DescriptionAnnotation], name)
		require.Equal(t, "me", want.Labels["keep"], name)
		require.Equal(t, "7", want.ResourceVersion, name)
	}
}

// start runs a publisher over a new cluster in the bubble.
func start(t *testing.T, ctx context.Context) *cluster.Cluster {
	t.Helper()
	logger := slog.New(slog.DiscardHandler)
	c, err := cluster.New(ctx, cluster.Options{})
	require.NoError(t, err)
	f := informer.NewFactory(informer.FactoryOptions{Logger: logger})
	p, err := rootcacertpublisher.New(c, f, rootcacertpublisher.Options{RootCA: []byte(bundle), Logger: logger})
	require.NoError(t, err)
	f.Start(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	t.Cleanup(func() { <-done })
	// The controller starts its workers once its informers have synced,
	// which it polls for: let virtual time pass.
	time.Sleep(time.Second)
	synctest.Wait()
	return c
}

// Every namespace gets the bundle; an edited or deleted ConfigMap is put
// back; other ConfigMaps are left alone; a terminating namespace gets
// none.
func TestPublisher(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		c := start(t, ctx)
		_, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "shop"}})
		require.NoError(t, err)
		synctest.Wait()
		for _, ns := range []string{"default", "kube-system", "shop"} {
			cm, _, err := c.ConfigMaps().Get(ctx, ns+"/kube-root-ca.crt")
			require.NoError(t, err, ns)
			require.Equal(t, bundle, cm.Data["ca.crt"], ns)
			require.Equal(t, rootcacertpublisher.Description, cm.Annotations["kubernetes.io/description"], ns)
		}

		// Edited: put back, the user's label kept.
		cm, _, err := c.ConfigMaps().Get(ctx, "shop/kube-root-ca.crt")
		require.NoError(t, err)
		cm.Data["ca.crt"], cm.Labels = "tampered", map[string]string{"mine": "yes"}
		_, err = c.ConfigMaps().Update(ctx, cm, cm.ResourceVersion)
		require.NoError(t, err)
		synctest.Wait()
		cm, _, err = c.ConfigMaps().Get(ctx, "shop/kube-root-ca.crt")
		require.NoError(t, err)
		require.Equal(t, bundle, cm.Data["ca.crt"])
		require.Equal(t, "yes", cm.Labels["mine"])

		// Deleted: recreated.
		_, err = c.ConfigMaps().Delete(ctx, "shop/kube-root-ca.crt", "")
		require.NoError(t, err)
		synctest.Wait()
		_, _, err = c.ConfigMaps().Get(ctx, "shop/kube-root-ca.crt")
		require.NoError(t, err)

		// Another ConfigMap is not touched.
		other := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "shop", Name: "other"}, Data: map[string]string{"a": "b"}}
		_, err = c.ConfigMaps().Create(ctx, other)
		require.NoError(t, err)
		_, err = c.ConfigMaps().Delete(ctx, "shop/other", "")
		require.NoError(t, err)
		synctest.Wait()
		_, _, err = c.ConfigMaps().Get(ctx, "shop/other")
		require.ErrorIs(t, err, source.ErrNotFound)

		// A namespace deleted: the namespace lifecycle refuses the
		// ConfigMap's recreation; the publisher does not retry.
		_, err = c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "going", Finalizers: []string{}},
			Spec: api.NamespaceSpec{Finalizers: []api.FinalizerName{"kubernetes"}}})
		require.NoError(t, err)
		synctest.Wait()
		_, err = c.Namespaces().DeleteWith(ctx, "going", cluster.DeleteOptions{})
		require.NoError(t, err)
		_, err = c.ConfigMaps().Delete(ctx, "going/kube-root-ca.crt", "")
		require.NoError(t, err)
		synctest.Wait()
		_, _, err = c.ConfigMaps().Get(ctx, "going/kube-root-ca.crt")
		require.ErrorIs(t, err, source.ErrNotFound, "not recreated in a terminating namespace")
		time.Sleep(time.Hour)
		synctest.Wait()
		_, _, err = c.ConfigMaps().Get(ctx, "going/kube-root-ca.crt")
		require.ErrorIs(t, err, source.ErrNotFound)
		cancel()
	})
}

func TestNewChecksItsArguments(t *testing.T) {
	f := informer.NewFactory(informer.FactoryOptions{})
	_, err := rootcacertpublisher.New(nil, f, rootcacertpublisher.Options{})
	require.Error(t, err)
	c, err := cluster.New(t.Context(), cluster.Options{})
	require.NoError(t, err)
	_, err = rootcacertpublisher.New(c, f, rootcacertpublisher.Options{Workers: -1})
	require.ErrorContains(t, err, "negative")
	var _ client.Client = c
}

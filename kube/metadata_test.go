package kube_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/kube"
	"github.com/ctrlkit/ctrlkit/source"
)

// next returns the next event of ch, failing after 10s (a real server).
func next[T any](t *testing.T, ch <-chan source.Event[T]) source.Event[T] {
	t.Helper()
	select {
	case e, ok := <-ch:
		require.True(t, ok, "watch closed")
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("no event in 10s")
	}
	panic("unreachable")
}

// TestMetadata reads Flunders as PartialObjectMetadata: list, watch,
// get and delete work and carry the typed source's versions; writes of
// metadata alone are unsupported.
func TestMetadata(t *testing.T) {
	ctx := t.Context()
	ns := newNamespace("metadata")
	typed := flunders(t, ns)
	md, err := kube.NewMetadata(server.Config, flunderGVR, kube.Options{Namespace: ns})
	require.NoError(t, err)

	a := newFlunder(ns, "a", "x")
	rvA, err := typed.Create(ctx, a)
	require.NoError(t, err)
	_, err = typed.Create(ctx, newFlunder(ns, "b", ""))
	require.NoError(t, err)

	l, err := md.List(ctx, source.ListOptions{})
	require.NoError(t, err)
	require.Len(t, l.Items, 2)
	require.Equal(t, "a", l.Items[0].Name)
	require.Equal(t, rvA, l.Items[0].ResourceVersion)
	require.Equal(t, "b", l.Items[1].Name)

	got, rv, err := md.Get(ctx, ns+"/a")
	require.NoError(t, err)
	require.Equal(t, rvA, rv)
	require.Equal(t, "a", got.Name)

	w, err := md.Watch(ctx, source.WatchOptions{ResourceVersion: l.ResourceVersion})
	require.NoError(t, err)
	a.Spec.Reference = "y"
	rvMod, err := typed.Update(ctx, a, "")
	require.NoError(t, err)
	e := next(t, w)
	require.Equal(t, source.Modified, e.Type)
	require.Equal(t, "a", e.Object.Name)
	require.Equal(t, rvMod, e.ResourceVersion)

	rvDel, err := md.Delete(ctx, ns+"/b", "")
	require.NoError(t, err)
	e = next(t, w)
	require.Equal(t, source.Deleted, e.Type)
	require.Equal(t, "b", e.Object.Name)
	require.Equal(t, rvDel, e.ResourceVersion)

	_, err = md.Create(ctx, &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c"}})
	require.True(t, errors.Is(err, source.ErrUnsupported), "Create: %v", err)
	_, err = md.Update(ctx, got, "")
	require.True(t, errors.Is(err, source.ErrUnsupported), "Update: %v", err)
}

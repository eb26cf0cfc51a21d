package fake_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/source"
)

// Issue 12.6: a nil context is an error from every call, never a panic.
func TestNilContextIsAnError(t *testing.T) {
	src, err := fake.NewSource(func(s string) string { return s }, fake.Options[string]{})
	require.NoError(t, err)
	_, err = src.Create(context.Background(), "a")
	require.NoError(t, err)
	var nilCtx context.Context
	calls := map[string]func() error{
		"Create": func() error { _, err := src.Create(nilCtx, "b"); return err },
		"Update": func() error { _, err := src.Update(nilCtx, "a", ""); return err },
		"Delete": func() error { _, err := src.Delete(nilCtx, "a", ""); return err },
		"Get":    func() error { _, _, err := src.Get(nilCtx, "a"); return err },
		"List":   func() error { _, err := src.List(nilCtx, source.ListOptions{}); return err },
		"Watch":  func() error { _, err := src.Watch(nilCtx, source.WatchOptions{}); return err },
	}
	for name, call := range calls {
		require.ErrorContains(t, call(), "fake: context is nil", name)
	}
	require.Equal(t, 1, src.Len(), "nothing was written")
	require.Equal(t, "1", src.ResourceVersion(), "no write was made")
}

package fake_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/source"
)

func TestRecorder(t *testing.T) {
	ctx := t.Context()
	s := newSource(t, fake.Options[*pod]{})
	rec := fake.NewRecorder[*pod](s, func(*pod) string { panic("bad key func") })
	_, err := rec.Create(ctx, &pod{Name: "a"})
	require.NoError(t, err)
	got, rv, err := rec.Get(ctx, "a")
	require.NoError(t, err)
	_, err = rec.Update(ctx, &pod{Name: "a", Phase: "Running"}, "7")
	require.ErrorIs(t, err, source.ErrConflict)
	_, err = rec.Delete(ctx, "a", rv)
	require.NoError(t, err)

	acts := rec.Actions()
	require.Len(t, acts, 4)
	require.Equal(t, fake.VerbCreate, acts[0].Verb)
	require.Empty(t, acts[0].Key, "a panicking key func leaves the key empty")
	require.Equal(t, fake.Action[*pod]{Verb: fake.VerbGet, Key: "a", Object: got, ResourceVersion: rv}, acts[1])
	require.Equal(t, "7", acts[2].IfVersion)
	require.ErrorIs(t, acts[2].Err, source.ErrConflict)
	require.Equal(t, fake.VerbDelete, acts[3].Verb)
	require.Len(t, rec.Writes(), 2, "the create and the delete")
	rec.Reset()
	require.Empty(t, rec.Actions())
}

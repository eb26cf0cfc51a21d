package fake_test

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/source"
)

// Issue 14.1: an update that changes nothing is not a new revision and
// sends no event, as kube-apiserver drops it; NeverEqual restores etcd's
// behaviour.
func TestNoOpUpdateIsNotWritten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		s := newSource(t, fake.Options[*pod]{Copy: func(p *pod) *pod { c := *p; return &c }})
		rv, err := s.Create(ctx, &pod{Name: "a", Phase: "Running"})
		require.NoError(t, err)
		ch, err := s.Watch(ctx, source.WatchOptions{ResourceVersion: rv})
		require.NoError(t, err)

		// The same content, from a fresh object without a version and
		// from one read back with its version: nothing is written.
		got, err := s.Update(ctx, &pod{Name: "a", Phase: "Running"}, "")
		require.NoError(t, err)
		require.Equal(t, rv, got)
		cur, _, err := s.Get(ctx, "a")
		require.NoError(t, err)
		got, err = s.Update(ctx, cur, "")
		require.NoError(t, err)
		require.Equal(t, rv, got)
		require.Equal(t, rv, s.ResourceVersion())
		synctest.Wait()
		select {
		case ev := <-ch:
			t.Fatalf("a no-op update sent %v", ev.Type)
		default:
		}

		// A real change is written.
		got, err = s.Update(ctx, &pod{Name: "a", Phase: "Succeeded"}, "")
		require.NoError(t, err)
		require.NotEqual(t, rv, got)
		ev := <-ch
		require.Equal(t, source.Modified, ev.Type)
		require.Equal(t, "Succeeded", ev.Object.Phase)
	})

	t.Run("NeverEqual", func(t *testing.T) {
		ctx := t.Context()
		s := newSource(t, fake.Options[*pod]{Equal: fake.NeverEqual[*pod]})
		rv, err := s.Create(ctx, &pod{Name: "a"})
		require.NoError(t, err)
		got, err := s.Update(ctx, &pod{Name: "a"}, "")
		require.NoError(t, err)
		require.NotEqual(t, rv, got)
	})

	t.Run("ChangedInPlace", func(t *testing.T) {
		// Without Copy the source holds the caller's object: a change
		// made in place cannot be told from no change, so it is written.
		ctx := t.Context()
		s := newSource(t, fake.Options[*pod]{})
		p := &pod{Name: "a"}
		rv, err := s.Create(ctx, p)
		require.NoError(t, err)
		p.Phase = "Running"
		got, err := s.Update(ctx, p, "")
		require.NoError(t, err)
		require.NotEqual(t, rv, got)
	})
}

// Issue 14.2: with ifVersion "", the object's own resourceVersion is the
// precondition, as in Kubernetes; an object without one is written
// unconditionally.
func TestUpdateTakesThePreconditionFromTheObject(t *testing.T) {
	ctx := t.Context()
	s := newSource(t, fake.Options[*pod]{Copy: func(p *pod) *pod { c := *p; return &c }})
	_, err := s.Create(ctx, &pod{Name: "a"})
	require.NoError(t, err)
	stale, _, err := s.Get(ctx, "a")
	require.NoError(t, err)
	_, err = s.Update(ctx, &pod{Name: "a", Phase: "Pending"}, "")
	require.NoError(t, err)

	stale.Phase = "Running"
	_, err = s.Update(ctx, stale, "")
	require.ErrorIs(t, err, source.ErrConflict, "the object's version is stale")

	stale.RV = ""
	_, err = s.Update(ctx, stale, "")
	require.NoError(t, err, "no version: unconditional")

	// An explicit ifVersion wins over the object's.
	fresh, rv, err := s.Get(ctx, "a")
	require.NoError(t, err)
	fresh.Phase = "Succeeded"
	fresh.RV = "1"
	_, err = s.Update(ctx, fresh, rv)
	require.NoError(t, err)
}

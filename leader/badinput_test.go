package leader_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/leader"
)

// TestBadInputIsAnError: a nil context, a nil or typed-nil Elector and a
// nil fn are errors, never panics, and nothing runs.
func TestBadInputIsAnError(t *testing.T) {
	fn := func(context.Context) error {
		t.Fatal("fn ran")
		return nil
	}
	m := leader.NewMemory()
	//nolint:staticcheck // a nil context is the mistake under test
	require.EqualError(t, leader.Run(nil, m, fn), "leader: Run: context is nil")
	require.False(t, m.Leading())
	require.EqualError(t, leader.Run(t.Context(), nil, fn), "leader: Run: Elector is nil")
	var typedNil *leader.Memory
	require.EqualError(t, leader.Run(t.Context(), typedNil, fn), "leader: Run: Elector is nil")
	require.EqualError(t, leader.Run(t.Context(), m, nil), "leader: Run: fn is nil")

	//nolint:staticcheck // a nil context is the mistake under test
	term, err := m.Campaign(nil)
	require.EqualError(t, err, "leader: Memory.Campaign: context is nil")
	require.Nil(t, term)
	require.False(t, m.Leading())

	term, err = m.Campaign(t.Context())
	require.NoError(t, err)
	//nolint:staticcheck // a nil context is the mistake under test
	require.EqualError(t, term.Resign(nil), "leader: Resign: context is nil")
	require.True(t, m.Leading(), "a rejected Resign changes nothing")
	require.NoError(t, term.Resign(t.Context()))
	require.False(t, m.Leading())
}

// nilTermElector returns a typed-nil Term.
type nilTermElector struct{}

type nilTerm struct{ leader.Term }

func (nilTermElector) Campaign(context.Context) (leader.Term, error) { return (*nilTerm)(nil), nil }

func TestRunRejectsTypedNilTerm(t *testing.T) {
	require.EqualError(t, leader.Run(t.Context(), nilTermElector{}, func(context.Context) error { return nil }),
		"leader: campaign returned a nil Term")
}

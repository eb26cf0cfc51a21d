package harness_test

import (
	"testing"
	"testing/synctest"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/harness"
	"github.com/stretchr/testify/require"
)

// unrecorded is a Scenario.Extra predicate: a child its parent does not
// record in data["child"].
func unrecorded(o api.Object, end map[string][]api.Object) bool {
	cm := o.(*api.ConfigMap)
	p := cm.Labels["parent"]
	if p == "" {
		return false
	}
	for _, q := range end["ConfigMap"] {
		if q.GetObjectMeta().Name == p {
			return q.(*api.ConfigMap).Data["child"] != cm.Name
		}
	}
	return false
}

// Scenario.Extra excuses a surplus object its predicate matches, and
// only that: the broken recordChild, crashed right after its first
// create (crash@1), ends with a second child of web that web does not
// record — a duplicate create, unless an Extra of ConfigMaps matching
// unrecorded children excuses it (listed in Outcome.Excused). An
// Extra of another kind, or whose predicate matches nothing, leaves the
// problem; of objects it matches, only the surplus is set aside.
func TestExtraExcusesAMatchedSurplusObject(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := recordScenario()
		s.Invariants = nil
		ctx := t.Context()
		ref, err := harness.Replay(ctx, s, recordChild(false), nil, nil)
		require.NoError(t, err)
		require.Empty(t, ref.Problems)
		crash := []harness.Perturbation{{Write: 1, Fault: harness.Crash}}
		run := func(extra ...harness.Extra) *harness.Outcome {
			s := s
			s.Extra = extra
			o, err := harness.Replay(ctx, s, recordChild(false), ref, crash)
			require.NoError(t, err)
			return o
		}

		o := run()
		require.Equal(t, []string{"duplicate create: 2 live ConfigMap default/web-* where the reference run has 1"}, o.Problems)
		require.Empty(t, o.Excused)

		o = run(harness.Extra{Kind: "ConfigMap", Reason: "unrecorded child", Match: unrecorded})
		require.Empty(t, o.Problems)
		require.Len(t, o.Excused, 1)
		require.Regexp(t, `^ConfigMap default/web-\w+: unrecorded child$`, o.Excused[0])
		require.Len(t, o.End, len(ref.End)+1, "the end state keeps it")

		never := func(api.Object, map[string][]api.Object) bool { return false }
		require.NotEmpty(t, run(harness.Extra{Kind: "ConfigMap", Match: never}).Problems)
		require.NotEmpty(t, run(harness.Extra{Kind: "Secret", Match: unrecorded}).Problems)
		// Every child matches; only the surplus one is set aside, and
		// the one left is compared with the reference's.
		every := func(o api.Object, _ map[string][]api.Object) bool { return o.GetObjectMeta().Labels["parent"] != "" }
		o = run(harness.Extra{Kind: "ConfigMap", Match: every, Max: 5})
		require.Empty(t, o.Problems)
		require.Len(t, o.Excused, 1)

		_, err = harness.Replay(ctx, harness.Scenario{Extra: []harness.Extra{{Kind: "ConfigMap"}}}, recordChild(false), ref, nil)
		require.ErrorContains(t, err, "Kind and Match are required")
	})
}

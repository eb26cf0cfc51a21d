package harness_test

import (
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/harness"
	"github.com/stretchr/testify/require"
)

// The broken replicateTTL keeps the expectation of a timed-out create
// that never happened and never lets it expire: the Expire fault at its
// first write (the first run) leaves the parent without its children
// even after ExpectationsTTL has passed.
func TestExpireFindsExpectationsThatNeverExpire(t *testing.T) {
	res := explore(t, replicateScenario(), replicateTTL(false), harness.Options{Faults: harness.TimeFaults(), Replays: 2})
	require.Equal(t, 3, res.Reference.Writes)
	require.Len(t, res.Failures, 1)
	f := res.Failures[0]
	require.Equal(t, 1, f.Found)
	require.Equal(t, 2, f.Reproduced)
	require.Equal(t, []harness.Perturbation{{Write: 1, Fault: harness.Expire}}, f.Outcome.Perturbations)
	report := f.Error()
	require.Contains(t, report, "missing: ConfigMap default/web-0")
	require.Contains(t, report, "[ttl]")
	t.Log(report)
}

// The fixed twin's expectations expire after ExpectationsTTL: it
// survives time passing at every write, and random runs of it mixed
// with crashes.
func TestFixedReplicateTTLSurvivesTimePassing(t *testing.T) {
	res := explore(t, replicateScenario(), replicateTTL(true), harness.Options{
		Faults: harness.TimeFaults(), All: true, Random: randomRuns(t), Seed: 1,
		RandomFaults: []harness.Fault{harness.Expire, harness.Crash},
	})
	for _, f := range res.Failures {
		t.Error(f)
	}
	require.Equal(t, 3*2+randomRuns(t), res.Runs) // Expire and Resync at each of 3 writes (no Election: no Handover)
	for _, e := range res.Reference.Timeline {
		require.Empty(t, e.Fault)
	}
}

package harness_test

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/harness"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/stretchr/testify/require"
)

var sourceAll = source.ListOptions{}

// recordScenario: one parent; later a second one.
func recordScenario() harness.Scenario {
	return harness.Scenario{
		Name:       "record-child",
		Objects:    []api.Object{parent("web", nil)},
		Invariants: []harness.Invariant{atMostChildren(1)},
		Kinds:      []harness.Kind{harness.KindOf[*api.ConfigMap]()},
		Steps: []harness.Step{{Name: "add db", Do: func(ctx context.Context, c client.Client) error {
			cms, err := client.For[*api.ConfigMap](c)
			if err != nil {
				return err
			}
			_, err = cms.Create(ctx, parent("db", nil))
			return err
		}}},
	}
}

// replicateScenario: a parent of 2, scaled to 3.
func replicateScenario() harness.Scenario {
	return harness.Scenario{
		Name:       "replicate",
		Objects:    []api.Object{parent("web", map[string]string{"replicas": "2"})},
		Invariants: []harness.Invariant{atMostChildren(-1)},
		Kinds:      []harness.Kind{harness.KindOf[*api.ConfigMap]()},
		Steps: []harness.Step{{Name: "scale to 3", Do: func(ctx context.Context, c client.Client) error {
			cms, err := client.For[*api.ConfigMap](c)
			if err != nil {
				return err
			}
			p, _, err := cms.Get(ctx, "default/web")
			if err != nil {
				return err
			}
			p.Data["replicas"] = "3"
			_, err = cms.Update(ctx, p, "")
			return err
		}}, {Name: "five minutes pass", Sleep: 5 * time.Minute}},
	}
}

// explore runs Explore in a bubble.
func explore(t *testing.T, s harness.Scenario, ctl harness.Controller, opts harness.Options) *harness.Result {
	t.Helper()
	var res *harness.Result
	synctest.Test(t, func(t *testing.T) {
		var err error
		res, err = harness.Explore(t.Context(), s, ctl, opts)
		require.NoError(t, err)
	})
	return res
}

// The broken recordChild creates a second child after a crash right
// after its first create: the first exhaustive run finds it.
func TestCrashFindsDuplicateGenerateNameCreate(t *testing.T) {
	res := explore(t, recordScenario(), recordChild(false), harness.Options{Replays: 3})
	require.Equal(t, 4, res.Reference.Writes, "a create and a record per parent")
	require.Len(t, res.Failures, 1)
	f := res.Failures[0]
	require.Equal(t, 3, f.Reproduced, "a crash replays exactly")
	require.Equal(t, 1, f.Found, "found by the first run")
	require.Equal(t, []harness.Perturbation{{Write: 1, Fault: harness.Crash}}, f.Outcome.Perturbations)
	report := f.Error()
	require.Contains(t, report, "duplicate create: 2 live ConfigMap default/web-* where the reference run has 1")
	require.Contains(t, report, "after write #2: invariant children bounded: parent default/web has 2 children")
	require.NotContains(t, report, "after write #3", "a broken invariant is reported where it broke")
	require.Contains(t, report, "#1 t=")
	require.Contains(t, report, "create configmaps default/web-* (web-")
	require.Contains(t, report, "[crash]")
	t.Log(report)
}

// The fixed twin survives every crash and every fault at every write.
func TestFixedRecordChildSurvivesEveryPerturbation(t *testing.T) {
	start := time.Now()
	res := explore(t, recordScenario(), recordChild(true), harness.Options{All: true, Random: randomRuns(t), Seed: 1})
	for _, f := range res.Failures {
		t.Error(f)
	}
	require.Equal(t, 4*6+randomRuns(t), res.Runs)
	t.Logf("%d runs (and 2 reference runs) in %s", res.Runs, time.Since(start))
}

// The broken replicate waits forever after a create that failed: a
// conflict on its first write (the second exhaustive run, after the
// crash) leaves the parent without its children.
func TestWriteFaultFindsExpectationsNeverLowered(t *testing.T) {
	res := explore(t, replicateScenario(), replicate(false), harness.Options{})
	require.Equal(t, 3, res.Reference.Writes)
	require.Len(t, res.Failures, 1)
	f := res.Failures[0]
	require.Equal(t, 2, f.Found)
	require.Equal(t, []harness.Perturbation{{Write: 1, Fault: harness.Conflict}}, f.Outcome.Perturbations)
	report := f.Error()
	require.Contains(t, report, "missing: ConfigMap default/web-0")
	require.Contains(t, report, "[conflict]")
	t.Log(report)
}

func TestFixedReplicateSurvivesEveryPerturbation(t *testing.T) {
	start := time.Now()
	res := explore(t, replicateScenario(), replicate(true), harness.Options{All: true, Random: randomRuns(t), Seed: 1})
	for _, f := range res.Failures {
		t.Error(f)
	}
	require.Equal(t, 3*6+randomRuns(t), res.Runs)
	t.Logf("%d runs (and 2 reference runs) in %s", res.Runs, time.Since(start))
}

// A failure replays: the same perturbations give the same timeline and
// the same problems.
func TestReplayIsExact(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		s, ctl := recordScenario(), recordChild(false)
		ref, err := harness.Replay(ctx, s, ctl, nil, nil)
		require.NoError(t, err)
		ps := []harness.Perturbation{{Write: 2, Fault: harness.Conflict}}
		a, err := harness.Replay(ctx, s, ctl, ref, ps)
		require.NoError(t, err)
		b, err := harness.Replay(ctx, s, ctl, ref, ps)
		require.NoError(t, err)
		require.True(t, a.Failed())
		require.Equal(t, a.Problems, b.Problems)
		require.Equal(t, withoutGenerated(a.Timeline), withoutGenerated(b.Timeline))
		require.Equal(t, "default/web-*", a.Timeline[0].Key)
		require.NotEmpty(t, a.Timeline[0].Generated)
		require.Equal(t, a.End, b.End)
	})
}

// Several perturbations are minimized: the crash at the first write
// fails the run alone. (Other subsets may fail too: the 500 at write 3
// shifts the later writes' numbers, and a timeout whose write happened,
// on the record, races the record's event into the cache; so the
// minimized set is asserted smaller, a subset, and failing.)
func TestMinimize(t *testing.T) {
	var seed uint64
	for seed = 1; ; seed++ {
		ps := harness.Generate(seed, 4, 3)
		if len(ps) == 3 && ps[0].Write == 1 && ps[0].Fault == harness.Crash {
			break
		}
	}
	res := explore(t, recordScenario(), recordChild(false), harness.Options{Faults: []harness.Fault{}, Random: 1, Seed: seed, Replays: 2})
	require.Len(t, res.Failures, 1)
	f := res.Failures[0]
	require.Equal(t, seed, f.Seed)
	require.Len(t, f.Original, 3)
	require.Less(t, len(f.Outcome.Perturbations), 3)
	for _, p := range f.Outcome.Perturbations {
		require.Contains(t, f.Original, p)
	}
	require.True(t, f.Outcome.Failed())
	require.Equal(t, 2, f.Replays)
	require.Contains(t, f.Error(), "minimized from")
	require.Contains(t, f.Error(), "of 2 replays")
}

func TestGenerateIsDeterministic(t *testing.T) {
	for seed := uint64(0); seed < 50; seed++ {
		a, b := harness.Generate(seed, 5, 3), harness.Generate(seed, 5, 3)
		require.Equal(t, a, b)
		require.NotEmpty(t, a)
		require.LessOrEqual(t, len(a), 3)
		for i, p := range a {
			require.True(t, p.Write >= 1 && p.Write <= 6, p)
			if i > 0 {
				require.Less(t, a[i-1].Write, p.Write)
			}
		}
	}
}

// GenerateFrom with Generate's faults is Generate; with others it draws
// from them alone.
func TestGenerateFrom(t *testing.T) {
	view := harness.ViewFaults()
	seen := map[harness.Fault]bool{}
	for seed := uint64(0); seed < 50; seed++ {
		require.Equal(t, harness.Generate(seed, 5, 3), harness.GenerateFrom(seed, 5, 3, nil))
		for _, p := range harness.GenerateFrom(seed, 5, 3, view) {
			require.Contains(t, view, p.Fault)
			seen[p.Fault] = true
		}
	}
	require.Len(t, seen, 2)
}

func TestNormalize(t *testing.T) {
	now := api.NewTime(time.Unix(1e9, 0))
	objs := []api.Object{
		&api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web-x7k2p", GenerateName: "web-", UID: "u1", ResourceVersion: "7", CreationTimestamp: now}},
		&api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web", UID: "u2", ResourceVersion: "9"}, Data: map[string]string{"child": "web-x7k2p"}},
	}
	got, err := harness.Normalize("ConfigMap", objs)
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, "web", got[0].Name)
	require.Equal(t, `{"data":{"child":"web-*"},"metadata":{"name":"web","namespace":"default"}}`, got[0].JSON)
	require.Equal(t, "web-*", got[1].Name)
	require.False(t, strings.Contains(got[1].JSON, "u1") || strings.Contains(got[1].JSON, "resourceVersion"), got[1].JSON)
}

// withoutGenerated returns the timeline without the names the store
// generated, which differ from run to run, and without the virtual
// times, which the scheduling of goroutines at one instant may shift
// by the millisecond of a timer.
func withoutGenerated(es []harness.Entry) []harness.Entry {
	out := slices.Clone(es)
	for i := range out {
		out[i].Generated, out[i].At = "", 0
	}
	return out
}

// Check explores in a bubble of its own and passes on a fixed twin.
func TestCheck(t *testing.T) {
	res := harness.Check(t, recordScenario(), recordChild(true), harness.Options{Faults: []harness.Fault{harness.Crash}})
	require.Equal(t, 4, res.Runs)
	require.Empty(t, res.Failures)
	require.Len(t, res.Reference.End, 4, "two parents, two children")
}

// randomRuns is the number of random runs the fixed twins' tests add to
// the exhaustive ones: 4 in CI, $CTRLKIT_HARNESS_RUNS for a long
// exploration.
func randomRuns(t *testing.T) int {
	if v := os.Getenv("CTRLKIT_HARNESS_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err, "CTRLKIT_HARNESS_RUNS")
		return n
	}
	return 4
}

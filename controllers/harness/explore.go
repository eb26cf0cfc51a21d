package harness

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
)

// Options configure Explore.
type Options struct {
	// Faults are the faults the exhaustive strategy puts at each write
	// of the reference run, one per run. Default: Crash, then
	// WriteFaults().
	Faults []Fault
	// Budget bounds the number of exhaustive runs. Default 500.
	Budget int
	// Random is the number of random runs after the exhaustive ones,
	// the i-th (from 0) from seed Seed+i (see Generate). Default 0.
	Random int
	// Seed is the first random run's seed.
	Seed uint64
	// RandomFaults are the faults random runs draw from (see
	// GenerateFrom). Default: Crash, then WriteFaults(), as Generate.
	RandomFaults []Fault
	// MaxPerturbations bounds how many perturbations a random run
	// has. Default 3.
	MaxPerturbations int
	// All keeps exploring after the first failure (and minimizes each).
	// Default: stop at the first.
	All bool
	// Replays is how many times a minimized failure is replayed to
	// tell whether it reproduces (Failure.Reproduced). Default 0.
	Replays int
}

// Failure is a failing run, minimized.
type Failure struct {
	// Scenario is the scenario's name.
	Scenario string
	// Seed is the random run's seed; 0 for an exhaustive run.
	Seed uint64
	// Found is the number of the run that found it (from 1, the
	// reference runs not counted).
	Found int
	// Original are the perturbations of the failing run, and Outcome
	// the outcome of the minimized run: its Perturbations are a subset
	// of Original that still fails, from which removing any one passes
	// (delta debugging).
	Original []Perturbation
	Outcome  *Outcome
	// Reproduced counts how many of Options.Replays replays of the
	// minimized perturbations failed too. Fewer than all means the
	// failure depends on how goroutines were scheduled at one instant of
	// virtual time (see the package documentation, Determinism).
	Reproduced, Replays int
}

// Error formats the failure as a report: the seed, the minimized
// perturbations, the problems, the timeline of the controller's writes,
// and how to replay it.
func (f *Failure) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "harness: scenario %q fails under %v (run %d", f.Scenario, f.Outcome.Perturbations, f.Found)
	if f.Seed != 0 {
		fmt.Fprintf(&b, ", seed %d", f.Seed)
	}
	if !slices.Equal(f.Original, f.Outcome.Perturbations) {
		fmt.Fprintf(&b, ", minimized from %v", f.Original)
	}
	if f.Replays > 0 {
		fmt.Fprintf(&b, ", reproduced by %d of %d replays", f.Reproduced, f.Replays)
	}
	b.WriteString(")\n")
	for _, p := range f.Outcome.Problems {
		fmt.Fprintf(&b, "  problem: %s\n", p)
	}
	for _, e := range f.Outcome.Excused {
		fmt.Fprintf(&b, "  excused (Scenario.Extra): %s\n", e)
	}
	b.WriteString("  the controller's writes:\n")
	for _, e := range f.Outcome.Timeline {
		fmt.Fprintf(&b, "    %s\n", e)
	}
	fmt.Fprintf(&b, "  replay: harness.Replay(ctx, scenario, controller, reference, %#v)", f.Outcome.Perturbations)
	return b.String()
}

// Result is what Explore found.
type Result struct {
	// Reference is the unperturbed run.
	Reference *Outcome
	// Runs counts the perturbed runs (minimization's not included).
	Runs int
	// Failures are the failing runs, minimized.
	Failures []*Failure
}

// Generate returns the perturbations of the random run with seed: 1 to
// max of them, at writes 1 to writes+1 (writes: the reference run's
// count), each a Crash or one of WriteFaults(), at distinct writes.
func Generate(seed uint64, writes, max int) []Perturbation {
	return GenerateFrom(seed, writes, max, append([]Fault{Crash}, WriteFaults()...))
}

// GenerateFrom is Generate drawing each perturbation's fault from all
// (Generate's faults when all is empty): the same seed and arguments
// give the same perturbations.
func GenerateFrom(seed uint64, writes, max int, all []Fault) []Perturbation {
	if len(all) == 0 {
		all = append([]Fault{Crash}, WriteFaults()...)
	}
	rng := rand.New(rand.NewPCG(seed, 0x68617273))
	if max < 1 {
		max = 1
	}
	n := 1 + rng.IntN(max)
	seen := map[int]bool{}
	var ps []Perturbation
	for range n {
		w := 1 + rng.IntN(writes+1)
		if seen[w] {
			continue
		}
		seen[w] = true
		ps = append(ps, Perturbation{Write: w, Fault: all[rng.IntN(len(all))]})
	}
	slices.SortFunc(ps, func(a, b Perturbation) int { return a.Write - b.Write })
	return ps
}

// Explore runs scenario s with controller ctl: twice unperturbed (the
// reference run; the two must agree, or the scenario is not
// deterministic and Explore returns an error), then exhaustively one
// perturbation per run — each of opts.Faults at each write k of the
// reference run — then opts.Random random runs. Every failing run is
// minimized. Run it in a testing/synctest bubble (Check does).
func Explore(ctx context.Context, s Scenario, ctl Controller, opts Options) (*Result, error) {
	if opts.Faults == nil {
		opts.Faults = append([]Fault{Crash}, WriteFaults()...)
	}
	if opts.Budget <= 0 {
		opts.Budget = 500
	}
	if opts.MaxPerturbations <= 0 {
		opts.MaxPerturbations = 3
	}
	if s.Election == nil { // a handover needs two replicas
		isHandover := func(f Fault) bool { return f == Handover }
		opts.Faults = slices.DeleteFunc(slices.Clone(opts.Faults), isHandover)
		if len(opts.RandomFaults) > 0 {
			if opts.RandomFaults = slices.DeleteFunc(slices.Clone(opts.RandomFaults), isHandover); len(opts.RandomFaults) == 0 {
				opts.Random = 0
			}
		}
	}
	ref, err := Replay(ctx, s, ctl, nil, nil)
	if err != nil {
		return nil, err
	}
	if ref.Failed() {
		return nil, fmt.Errorf("harness: the reference run of %q fails: %s", s.Name, strings.Join(ref.Problems, "; "))
	}
	again, err := Replay(ctx, s, ctl, ref, nil)
	if err != nil {
		return nil, err
	}
	if again.Failed() || again.Writes != ref.Writes {
		return nil, fmt.Errorf("%w: %d writes then %d; %s", errNotDeterministic, ref.Writes, again.Writes, strings.Join(again.Problems, "; "))
	}
	res := &Result{Reference: ref}
	try := func(seed uint64, ps []Perturbation) (bool, error) {
		res.Runs++
		o, err := Replay(ctx, s, ctl, ref, ps)
		if err != nil {
			return false, err
		}
		if !o.Failed() {
			return false, nil
		}
		min, err := minimize(ctx, s, ctl, ref, o)
		if err != nil {
			return false, err
		}
		f := &Failure{Scenario: s.Name, Seed: seed, Found: res.Runs, Original: ps, Outcome: min, Replays: opts.Replays}
		for range opts.Replays {
			o, err := Replay(ctx, s, ctl, ref, min.Perturbations)
			if err != nil {
				return false, err
			}
			if o.Failed() {
				f.Reproduced++
			}
		}
		res.Failures = append(res.Failures, f)
		return !opts.All, nil
	}
	for k := 1; k <= ref.Writes; k++ {
		for _, f := range opts.Faults {
			if res.Runs >= opts.Budget {
				break
			}
			if stop, err := try(0, []Perturbation{{Write: k, Fault: f}}); stop || err != nil {
				return res, err
			}
		}
	}
	for i := range opts.Random {
		seed := opts.Seed + uint64(i)
		if stop, err := try(seed, GenerateFrom(seed, ref.Writes, opts.MaxPerturbations, opts.RandomFaults)); stop || err != nil {
			return res, err
		}
	}
	return res, nil
}

// minimize removes perturbations from a failing run's as long as the run
// still fails (delta debugging down to a 1-minimal set), and returns the
// outcome of the smallest failing run.
func minimize(ctx context.Context, s Scenario, ctl Controller, ref, failed *Outcome) (*Outcome, error) {
	best := failed
	for changed := true; changed && len(best.Perturbations) > 1; {
		changed = false
		for i := range best.Perturbations {
			fewer := slices.Delete(slices.Clone(best.Perturbations), i, i+1)
			o, err := Replay(ctx, s, ctl, ref, fewer)
			if err != nil {
				return nil, err
			}
			if o.Failed() {
				best, changed = o, true
				break
			}
		}
	}
	return best, nil
}

// Check runs Explore in a testing/synctest bubble and fails t with each
// failure's report. It returns the result for further assertions.
func Check(t *testing.T, s Scenario, ctl Controller, opts Options) *Result {
	t.Helper()
	var res *Result
	synctest.Test(t, func(t *testing.T) {
		var err error
		res, err = Explore(t.Context(), s, ctl, opts)
		if err != nil {
			t.Fatal(err)
		}
	})
	if res == nil {
		return nil
	}
	for _, f := range res.Failures {
		t.Error(f)
	}
	return res
}

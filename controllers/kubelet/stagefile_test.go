package kubelet

import (
	"reflect"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

func TestParseStages(t *testing.T) {
	got, err := ParseStages([]byte(`
- name: flaky
  match: {labels: {app: flaky}, kind: app}
  readiness: {never: true}
- name: slow-batch
  match: {ownerKinds: [Job], restartPolicies: [Never]}
  start: 3s
  exit: {after: {duration: 1m, jitter: 10s}, code: 2}
  liveness: {failAfter: 5m}
  stop: {duration: 1s}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Stage{
		{Name: "flaky", Match: Match{Labels: map[string]string{"app": "flaky"}, Kind: AppContainer}, Readiness: &ProbeOutcome{Never: true}},
		{
			Name:     "slow-batch",
			Match:    Match{OwnerKinds: []string{"Job"}, RestartPolicies: []api.RestartPolicy{api.RestartPolicyNever}},
			Start:    &Delay{Duration: 3 * time.Second},
			Exit:     &Exit{After: Delay{Duration: time.Minute, Jitter: 10 * time.Second}, Code: 2},
			Liveness: &ProbeOutcome{FailAfter: 5 * time.Minute},
			Stop:     &Delay{Duration: time.Second},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	for _, bad := range []string{
		`- {name: x, strat: 1s}`,
		`- {name: x, start: 5}`,
		`- {name: x, start: soon}`,
		`- {name: x, match: {kind: pod}}`,
		`- {name: x, readiness: {pass: 1s}}`,
	} {
		if _, err := ParseStages([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

package job

import (
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Cases of kcm's pkg/controller/job/success_policy_test.go
// (TestMatchSuccessPolicy), over our matchSuccessPolicy.
func TestMatchSuccessPolicy(t *testing.T) {
	tests := map[string]struct {
		policy      *api.SuccessPolicy
		completions int
		succeeded   string
		wantMsg     string
		wantMet     bool
	}{
		"successPolicy is null": {completions: 10, succeeded: "0"},
		"any rules are nothing to match to succeededIndexes and succeededCount": {
			policy:      &api.SuccessPolicy{Rules: []api.SuccessPolicyRule{{SucceededIndexes: ptr("0,2"), SucceededCount: ptr(int32(2))}}},
			completions: 10, succeeded: "1"},
		"there are no succeededIndexes": {
			policy:      &api.SuccessPolicy{Rules: []api.SuccessPolicyRule{{SucceededIndexes: ptr("0,2")}}},
			completions: 10},
		"only succeededIndexes; matched rule": {
			policy:      &api.SuccessPolicy{Rules: []api.SuccessPolicyRule{{SucceededIndexes: ptr("0,2")}}},
			completions: 10, succeeded: "0-2", wantMsg: "Matched rules at index 0", wantMet: true},
		"only succeededIndexes; not matched": {
			policy:      &api.SuccessPolicy{Rules: []api.SuccessPolicyRule{{SucceededIndexes: ptr("0,2")}}},
			completions: 10, succeeded: "0,3"},
		"only succeededCount; matched": {
			policy:      &api.SuccessPolicy{Rules: []api.SuccessPolicyRule{{SucceededCount: ptr(int32(2))}}},
			completions: 10, succeeded: "0,5", wantMsg: "Matched rules at index 0", wantMet: true},
		"only succeededCount; not matched": {
			policy:      &api.SuccessPolicy{Rules: []api.SuccessPolicyRule{{SucceededCount: ptr(int32(3))}}},
			completions: 10, succeeded: "0,5"},
		"succeededIndexes and succeededCount; matched by the count within the indexes": {
			policy:      &api.SuccessPolicy{Rules: []api.SuccessPolicyRule{{SucceededIndexes: ptr("0-4"), SucceededCount: ptr(int32(2))}}},
			completions: 10, succeeded: "3-8", wantMsg: "Matched rules at index 0", wantMet: true},
		"succeededIndexes and succeededCount; successes outside the indexes do not count": {
			policy:      &api.SuccessPolicy{Rules: []api.SuccessPolicyRule{{SucceededIndexes: ptr("0-4"), SucceededCount: ptr(int32(2))}}},
			completions: 10, succeeded: "4-8"},
		"multiple rules; the second matched": {
			policy: &api.SuccessPolicy{Rules: []api.SuccessPolicyRule{
				{SucceededIndexes: ptr("9")}, {SucceededCount: ptr(int32(1))}}},
			completions: 10, succeeded: "5", wantMsg: "Matched rules at index 1", wantMet: true},
		"succeededIndexes beyond completions are skipped": {
			policy: &api.SuccessPolicy{Rules: []api.SuccessPolicyRule{
				{SucceededIndexes: ptr("10-20")}, {SucceededIndexes: ptr("1")}}},
			completions: 10, succeeded: "1", wantMsg: "Matched rules at index 1", wantMet: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			msg, met := matchSuccessPolicy(tc.policy, tc.completions, parseIndexes(tc.succeeded, tc.completions))
			if msg != tc.wantMsg || met != tc.wantMet {
				t.Errorf("got (%q, %v), want (%q, %v)", msg, met, tc.wantMsg, tc.wantMet)
			}
		})
	}
}

// Cases of kcm's isIndexFailed and getNewIndexFailureCounts
// (indexed_job_utils.go; job_controller_test.go's backoffLimitPerIndex rows).
func TestIndexFailure(t *testing.T) {
	job := newJob(func(j *api.Job) {
		j.Spec.CompletionMode = ptr(api.IndexedCompletion)
		j.Spec.BackoffLimitPerIndex = ptr(int32(1))
		j.Spec.PodFailurePolicy = &api.PodFailurePolicy{Rules: []api.PodFailurePolicyRule{
			{Action: ActionFailIndex, OnExitCodes: &api.PodFailurePolicyOnExitCodesRequirement{Operator: OperatorIn, Values: []int32{3}}},
			{Action: ActionIgnore, OnPodConditions: []api.PodFailurePolicyOnPodConditionsPattern{{Type: "DisruptionTarget", Status: api.ConditionTrue}}},
		}}
	})
	counts := func(c, ig string) podOpt {
		return func(p *api.Pod) {
			p.Annotations[AnnotationIndexFailureCount] = c
			if ig != "" {
				p.Annotations[AnnotationIndexIgnoredFailureCount] = ig
			}
		}
	}
	tests := map[string]struct {
		pod                  *api.Pod
		wantFailed           bool
		wantCount, wantIgnor int32
	}{
		"first failure: retried":             {pod: pod("a", api.PodFailed, index(0), counts("0", "")), wantCount: 1},
		"second failure: the index fails":    {pod: pod("a", api.PodFailed, index(0), counts("1", "")), wantFailed: true, wantCount: 2},
		"FailIndex rule: the index fails":    {pod: pod("a", api.PodFailed, index(0), counts("0", ""), exitCode(3)), wantFailed: true, wantCount: 1},
		"Ignore rule: counted as ignored":    {pod: pod("a", api.PodFailed, index(0), counts("1", "2"), podCondition("DisruptionTarget")), wantCount: 1, wantIgnor: 3},
		"malformed annotation reads as zero": {pod: pod("a", api.PodFailed, index(0), counts("-4", "x")), wantCount: 1},
		"running pod: not failed":            {pod: pod("a", api.PodRunning, index(0), counts("5", "")), wantCount: 6},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := isIndexFailed(job, tc.pod, true); got != tc.wantFailed {
				t.Errorf("isIndexFailed = %v, want %v", got, tc.wantFailed)
			}
			c, ig := newIndexFailureCounts(job, tc.pod)
			if c != tc.wantCount || ig != tc.wantIgnor {
				t.Errorf("new counts (%d, %d), want (%d, %d)", c, ig, tc.wantCount, tc.wantIgnor)
			}
		})
	}
}

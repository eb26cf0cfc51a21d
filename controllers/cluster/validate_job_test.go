package cluster_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// Job validation of podFailurePolicy, successPolicy and managedBy. The
// error cases, keyed by the exact error kube-apiserver reports, are
// ported from k8s.io/kubernetes/pkg/apis/batch/validation/validation_test.go
// (TestValidateJob's errorCases).
func TestValidateJobPolicies(t *testing.T) {
	ctx := context.Background()
	pfp := func(rules ...api.PodFailurePolicyRule) func(j *api.JobSpec) {
		return func(j *api.JobSpec) { j.PodFailurePolicy = &api.PodFailurePolicy{Rules: rules} }
	}
	exit := func(op string, values ...int32) *api.PodFailurePolicyOnExitCodesRequirement {
		return &api.PodFailurePolicyOnExitCodesRequirement{Operator: op, Values: values}
	}
	indexed := func(completions int32, rules ...api.SuccessPolicyRule) func(j *api.JobSpec) {
		return func(j *api.JobSpec) {
			m := api.IndexedCompletion
			j.CompletionMode, j.Completions = &m, ptr(completions)
			j.SuccessPolicy = &api.SuccessPolicy{Rules: rules}
		}
	}
	s := func(v string) *string { return &v }
	manyValues := make([]int32, 256)
	for i := range manyValues {
		manyValues[i] = int32(i + 1)
	}
	var manyPFRules []api.PodFailurePolicyRule
	var manyConds []api.PodFailurePolicyOnPodConditionsPattern
	var manySPRules []api.SuccessPolicyRule
	for range 21 {
		manyPFRules = append(manyPFRules, api.PodFailurePolicyRule{Action: "Ignore", OnExitCodes: exit("In", 1)})
		manyConds = append(manyConds, api.PodFailurePolicyOnPodConditionsPattern{Type: "DisruptionTarget", Status: api.ConditionTrue})
		manySPRules = append(manySPRules, api.SuccessPolicyRule{SucceededCount: ptr(int32(1))})
	}
	cases := map[string]func(j *api.JobSpec){
		`spec.managedBy: Too long: may not be more than 63 bytes`: func(j *api.JobSpec) {
			j.ManagedBy = s("example.com/" + strings.Repeat("x", 60))
		},
		`spec.managedBy: Invalid value: "invalid custom controller name": must be a domain-prefixed path (such as "acme.io/foo")`: func(j *api.JobSpec) {
			j.ManagedBy = s("invalid custom controller name")
		},
		`spec.successPolicy: Invalid value: {"Rules":[]}: requires indexed completion mode`: func(j *api.JobSpec) {
			j.SuccessPolicy = &api.SuccessPolicy{Rules: []api.SuccessPolicyRule{}}
		},
		`spec.successPolicy.rules: Required value: at least one rules must be specified when the successPolicy is specified`: indexed(5),
		`spec.successPolicy.rules[0]: Required value: at least one of succeededCount or succeededIndexes must be specified`:  indexed(5, api.SuccessPolicyRule{}),
		`spec.successPolicy.rules[0].succeededIndexes: Invalid value: "invalid-format": error parsing succeededIndexes: cannot convert string to integer for index: "invalid"`: indexed(5,
			api.SuccessPolicyRule{SucceededIndexes: s("invalid-format")}),
		`spec.successPolicy.rules[0].succeededIndexes: Too long: may not be more than 65536 bytes`: indexed(5,
			api.SuccessPolicyRule{SucceededIndexes: s(strings.Repeat("1", 65537))}),
		`spec.successPolicy.rules[0].succeededCount: Invalid value: -1: must be greater than or equal to 0`: indexed(5,
			api.SuccessPolicyRule{SucceededCount: ptr(int32(-1))}),
		`spec.successPolicy.rules[0].succeededCount: Invalid value: 6: must be less than or equal to 5 (the number of specified completions)`: indexed(5,
			api.SuccessPolicyRule{SucceededCount: ptr(int32(6))}),
		`spec.successPolicy.rules[0].succeededCount: Invalid value: 4: must be less than or equal to 3 (the number of indexes in the specified succeededIndexes field)`: indexed(5,
			api.SuccessPolicyRule{SucceededIndexes: s("0-2"), SucceededCount: ptr(int32(4))}),
		`spec.successPolicy.rules[0].succeededIndexes: Invalid value: "3,1": error parsing succeededIndexes: non-increasing order, previous: 3, current: 1`: indexed(5,
			api.SuccessPolicyRule{SucceededIndexes: s("3,1")}),
		`spec.successPolicy.rules[0].succeededIndexes: Invalid value: "0-5": error parsing succeededIndexes: too large index: "5"`: indexed(5,
			api.SuccessPolicyRule{SucceededIndexes: s("0-5")}),
		`spec.successPolicy.rules: Too many: 21: must have at most 20 items`:                                           indexed(5, manySPRules...),
		`spec.podFailurePolicy.rules[0]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required`: pfp(api.PodFailurePolicyRule{Action: "FailJob"}),
		`spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Duplicate value: 11`: pfp(api.PodFailurePolicyRule{Action: "FailJob",
			OnExitCodes: exit("In", 11, 11)}),
		`spec.podFailurePolicy.rules[0].onExitCodes.values: Too many: 256: must have at most 255 items`: pfp(api.PodFailurePolicyRule{Action: "FailJob",
			OnExitCodes: exit("In", manyValues...)}),
		`spec.podFailurePolicy.rules: Too many: 21: must have at most 20 items`: pfp(manyPFRules...),
		`spec.podFailurePolicy.rules[0].onPodConditions: Too many: 21: must have at most 20 items`: pfp(api.PodFailurePolicyRule{Action: "FailJob",
			OnPodConditions: manyConds}),
		`spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 13`: pfp(api.PodFailurePolicyRule{Action: "FailJob",
			OnExitCodes: exit("NotIn", 12, 13, 13, 13)}),
		`spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: [19,11]: must be ordered`: pfp(api.PodFailurePolicyRule{Action: "FailJob",
			OnExitCodes: exit("NotIn", 19, 11)}),
		`spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []: at least one value is required`: pfp(api.PodFailurePolicyRule{Action: "FailJob",
			OnExitCodes: exit("In")}),
		`spec.podFailurePolicy.rules[0].action: Required value: valid values: ["Count" "FailIndex" "FailJob" "Ignore"]`: pfp(api.PodFailurePolicyRule{
			OnExitCodes: exit("In", 1)}),
		`spec.podFailurePolicy.rules[0].onExitCodes.operator: Required value: valid values: ["In" "NotIn"]`: pfp(api.PodFailurePolicyRule{Action: "FailJob",
			OnExitCodes: exit("", 1)}),
		`spec.podFailurePolicy.rules[0]: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported`: pfp(api.PodFailurePolicyRule{Action: "FailJob",
			OnExitCodes: exit("In", 1), OnPodConditions: manyConds[:1]}),
		`spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Invalid value: 0: must not be 0 for the In operator`: pfp(api.PodFailurePolicyRule{Action: "FailJob",
			OnExitCodes: exit("In", 1, 0, 2)}),
		`spec.podFailurePolicy.rules[1].onExitCodes.containerName: Invalid value: "xyz": must be one of the container or initContainer names in the pod template`: pfp(
			api.PodFailurePolicyRule{Action: "FailJob", OnExitCodes: &api.PodFailurePolicyOnExitCodesRequirement{ContainerName: s("app"), Operator: "In", Values: []int32{1}}},
			api.PodFailurePolicyRule{Action: "FailJob", OnExitCodes: &api.PodFailurePolicyOnExitCodesRequirement{ContainerName: s("xyz"), Operator: "In", Values: []int32{5, 6, 7}}}),
		`spec.podFailurePolicy.rules[0].action: Unsupported value: "UnknownAction": supported values: "Count", "FailIndex", "FailJob", "Ignore"`: pfp(api.PodFailurePolicyRule{Action: "UnknownAction",
			OnExitCodes: exit("In", 1)}),
		`spec.podFailurePolicy.rules[0].onExitCodes.operator: Unsupported value: "UnknownOperator": supported values: "In", "NotIn"`: pfp(api.PodFailurePolicyRule{Action: "Ignore",
			OnExitCodes: exit("UnknownOperator", 1)}),
		`spec.podFailurePolicy.rules[0].onPodConditions[0].status: Required value: valid values: ["False" "True" "Unknown"]`: pfp(api.PodFailurePolicyRule{Action: "Ignore",
			OnPodConditions: []api.PodFailurePolicyOnPodConditionsPattern{{Type: "DisruptionTarget"}}}),
		`spec.podFailurePolicy.rules[0].onPodConditions[0].status: Unsupported value: "UnknownStatus": supported values: "False", "True", "Unknown"`: pfp(api.PodFailurePolicyRule{Action: "Ignore",
			OnPodConditions: []api.PodFailurePolicyOnPodConditionsPattern{{Type: "DisruptionTarget", Status: "UnknownStatus"}}}),
		`spec.podFailurePolicy.rules[0].onPodConditions[0].type: Invalid value: "": name part must be non-empty`: pfp(api.PodFailurePolicyRule{Action: "Ignore",
			OnPodConditions: []api.PodFailurePolicyOnPodConditionsPattern{{Status: api.ConditionTrue}}}),
		`spec.podFailurePolicy.rules[0].onPodConditions[0].type: Invalid value: "Invalid Condition Type": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`: pfp(api.PodFailurePolicyRule{Action: "Ignore",
			OnPodConditions: []api.PodFailurePolicyOnPodConditionsPattern{{Type: "Invalid Condition Type", Status: api.ConditionTrue}}}),
		`spec.podFailurePolicy.rules[0].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set`: pfp(api.PodFailurePolicyRule{Action: "FailIndex",
			OnExitCodes: exit("In", 1)}),
		`spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode`: func(j *api.JobSpec) { j.BackoffLimitPerIndex = ptr(int32(1)) },
	}
	for want, mutate := range cases {
		t.Run(want, func(t *testing.T) {
			c := newMemory(t, cluster.Options{})
			j := &api.Job{ObjectMeta: api.ObjectMeta{Name: "j"}, Spec: api.JobSpec{Template: podTemplate(nil, api.RestartPolicyNever)}}
			mutate(&j.Spec)
			_, err := c.Jobs().Create(ctx, j)
			var inv *cluster.InvalidError
			if !errors.As(err, &inv) {
				t.Fatalf("got %v, want an *InvalidError", err)
			}
			for _, fe := range inv.Errors {
				if fe.Error() == want {
					return
				}
			}
			t.Errorf("no field error %q in %v", want, err)
		})
	}
}

// The valid cases of the same upstream test are accepted.
func TestValidateJobPoliciesAccepts(t *testing.T) {
	ctx := context.Background()
	c := newMemory(t, cluster.Options{})
	indexed := api.IndexedCompletion
	s := func(v string) *string { return &v }
	specs := map[string]func(j *api.JobSpec){
		"managedBy": func(j *api.JobSpec) { j.ManagedBy = s("example.com/custom-controller") },
		"podFailurePolicy": func(j *api.JobSpec) {
			j.Template.Spec.InitContainers = []api.Container{{Name: "init", Image: "busybox"}}
			j.PodFailurePolicy = &api.PodFailurePolicy{Rules: []api.PodFailurePolicyRule{
				{Action: "Ignore", OnPodConditions: []api.PodFailurePolicyOnPodConditionsPattern{{Type: "DisruptionTarget", Status: api.ConditionTrue}}},
				{Action: "FailJob", OnExitCodes: &api.PodFailurePolicyOnExitCodesRequirement{ContainerName: s("init"), Operator: "In", Values: []int32{1, 2, 3}}},
				{Action: "Count", OnExitCodes: &api.PodFailurePolicyOnExitCodesRequirement{Operator: "NotIn", Values: []int32{0, 5}}},
			}}
		},
		"successPolicy": func(j *api.JobSpec) {
			j.CompletionMode, j.Completions = &indexed, ptr(int32(10))
			j.SuccessPolicy = &api.SuccessPolicy{Rules: []api.SuccessPolicyRule{
				{SucceededIndexes: s("0-2,4,6-9"), SucceededCount: ptr(int32(8))}, {SucceededCount: ptr(int32(10))}}}
		},
		"failIndex": func(j *api.JobSpec) {
			j.CompletionMode, j.Completions, j.BackoffLimitPerIndex = &indexed, ptr(int32(3)), ptr(int32(1))
			j.PodFailurePolicy = &api.PodFailurePolicy{Rules: []api.PodFailurePolicyRule{
				{Action: "FailIndex", OnExitCodes: &api.PodFailurePolicyOnExitCodesRequirement{Operator: "In", Values: []int32{42}}}}}
		},
	}
	for name, mutate := range specs {
		j := &api.Job{ObjectMeta: api.ObjectMeta{Name: strings.ToLower(name)}, Spec: api.JobSpec{Template: podTemplate(nil, api.RestartPolicyNever)}}
		mutate(&j.Spec)
		if _, err := c.Jobs().Create(ctx, j); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

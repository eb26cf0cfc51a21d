package job

import (
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// The cases of kcm's pod_failure_policy_test.go (TestMatchPodFailurePolicy),
// rewritten over our matchPodFailurePolicy.
func TestMatchPodFailurePolicy(t *testing.T) {
	failed := func(codes map[string]int32, conds ...api.PodConditionType) *api.Pod {
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "mypod"}}
		p.Status.Phase = api.PodFailed
		for _, name := range []string{"main-container", "sidecar", "ok"} {
			if c, ok := codes[name]; ok {
				p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, api.ContainerStatus{Name: name,
					State: api.ContainerState{Terminated: &api.ContainerStateTerminated{ExitCode: c}}})
			}
		}
		for _, c := range conds {
			p.Status.Conditions = append(p.Status.Conditions, api.PodCondition{Type: c, Status: api.ConditionTrue})
		}
		return p
	}
	in := func(action string, values ...int32) api.PodFailurePolicyRule {
		return api.PodFailurePolicyRule{Action: action, OnExitCodes: &api.PodFailurePolicyOnExitCodesRequirement{Operator: "In", Values: values}}
	}
	notIn := func(action string, values ...int32) api.PodFailurePolicyRule {
		return api.PodFailurePolicyRule{Action: action, OnExitCodes: &api.PodFailurePolicyOnExitCodesRequirement{Operator: "NotIn", Values: values}}
	}
	onCond := func(action string, typ api.PodConditionType) api.PodFailurePolicyRule {
		return api.PodFailurePolicyRule{Action: action, OnPodConditions: []api.PodFailurePolicyOnPodConditionsPattern{{Type: typ, Status: api.ConditionTrue}}}
	}
	tests := map[string]struct {
		rules      []api.PodFailurePolicyRule
		pod        *api.Pod
		wantFail   bool
		wantCount  bool
		wantAction string
	}{
		"unknown action for rule matching by exit codes - skip rule with unknown action": {
			rules: []api.PodFailurePolicyRule{in("UnknownAction", 1, 2), in(ActionFailJob, 2, 3)},
			pod:   failed(map[string]int32{"main-container": 2}), wantFail: true, wantCount: true, wantAction: ActionFailJob},
		"FailJob rule matched for exit codes": {
			rules: []api.PodFailurePolicyRule{in(ActionFailJob, 1, 2, 3)},
			pod:   failed(map[string]int32{"main-container": 2}), wantFail: true, wantCount: true, wantAction: ActionFailJob},
		"successful containers are skipped by the rules": {
			rules: []api.PodFailurePolicyRule{notIn(ActionFailJob, 111)},
			pod:   failed(map[string]int32{"ok": 0}), wantCount: true},
		"pod failure policy with NotIn operator and value 0": {
			rules: []api.PodFailurePolicyRule{notIn(ActionFailJob, 0)},
			pod:   failed(map[string]int32{"ok": 0, "main-container": 1}), wantFail: true, wantCount: true, wantAction: ActionFailJob},
		"Ignore rule matched for exit codes": {
			rules: []api.PodFailurePolicyRule{in(ActionIgnore, 1, 2, 3)},
			pod:   failed(map[string]int32{"main-container": 2}), wantAction: ActionIgnore},
		"Count rule matched for exit codes": {
			rules: []api.PodFailurePolicyRule{in(ActionCount, 1, 2, 3)},
			pod:   failed(map[string]int32{"main-container": 2}), wantCount: true, wantAction: ActionCount},
		"FailIndex rule matched: counted (no backoffLimitPerIndex here)": {
			rules: []api.PodFailurePolicyRule{in(ActionFailIndex, 1, 2, 3)},
			pod:   failed(map[string]int32{"main-container": 2}), wantCount: true, wantAction: ActionFailIndex},
		"no rule matched": {
			rules: []api.PodFailurePolicyRule{in(ActionFailJob, 8), onCond(ActionIgnore, "DisruptionTarget")},
			pod:   failed(map[string]int32{"main-container": 2}), wantCount: true},
		"Ignore rule matched for pod conditions": {
			rules: []api.PodFailurePolicyRule{onCond(ActionIgnore, "DisruptionTarget")},
			pod:   failed(map[string]int32{"main-container": 137}, "DisruptionTarget"), wantAction: ActionIgnore},
		"first rule matched wins": {
			rules: []api.PodFailurePolicyRule{onCond(ActionIgnore, "DisruptionTarget"), in(ActionFailJob, 137)},
			pod:   failed(map[string]int32{"main-container": 137}, "DisruptionTarget"), wantAction: ActionIgnore},
		"containerName restricts the exit code rule": {
			rules: []api.PodFailurePolicyRule{{Action: ActionFailJob, OnExitCodes: &api.PodFailurePolicyOnExitCodesRequirement{
				ContainerName: ptr("main-container"), Operator: "In", Values: []int32{42}}}},
			pod: failed(map[string]int32{"main-container": 1, "sidecar": 42}), wantCount: true},
	}
	// Order and operator rules of kcm's matchOnExitCodes / matchOnPodConditions
	// (pod_failure_policy.go; pod_failure_policy_test.go's init-container and
	// ordering cases).
	withInit := func(p *api.Pod, name string, code int32) *api.Pod {
		p.Status.InitContainerStatuses = append(p.Status.InitContainerStatuses, api.ContainerStatus{Name: name,
			State: api.ContainerState{Terminated: &api.ContainerStateTerminated{ExitCode: code}}})
		return p
	}
	msgTests := map[string]struct {
		rules   []api.PodFailurePolicyRule
		pod     *api.Pod
		wantMsg string
	}{
		"FailJob rule matched for exit codes in init container": {
			rules:   []api.PodFailurePolicyRule{in(ActionFailJob, 42)},
			pod:     withInit(failed(nil), "init-container", 42),
			wantMsg: "Container init-container for pod default/mypod failed with exit code 42 matching FailJob rule at index 0"},
		"regular containers are looked at before init containers": {
			rules:   []api.PodFailurePolicyRule{in(ActionFailJob, 42)},
			pod:     withInit(failed(map[string]int32{"main-container": 42}), "init-container", 42),
			wantMsg: "Container main-container for pod default/mypod failed with exit code 42 matching FailJob rule at index 0"},
		"rule at index 1 named in the message": {
			rules:   []api.PodFailurePolicyRule{in(ActionIgnore, 7), notIn(ActionFailJob, 7)},
			pod:     failed(map[string]int32{"main-container": 3}),
			wantMsg: "Container main-container for pod default/mypod failed with exit code 3 matching FailJob rule at index 1"},
		"the pod's conditions are looked at in the pod's order": {
			rules: []api.PodFailurePolicyRule{{Action: ActionFailJob, OnPodConditions: []api.PodFailurePolicyOnPodConditionsPattern{
				{Type: "ConfigIssue", Status: api.ConditionTrue}, {Type: "DisruptionTarget", Status: api.ConditionTrue}}}},
			pod:     failed(nil, "DisruptionTarget", "ConfigIssue"),
			wantMsg: "Pod default/mypod has condition DisruptionTarget matching FailJob rule at index 0"},
		"an unknown operator matches nothing": {
			rules: []api.PodFailurePolicyRule{{Action: ActionFailJob, OnExitCodes: &api.PodFailurePolicyOnExitCodesRequirement{Operator: "Bogus", Values: []int32{1}}}},
			pod:   failed(map[string]int32{"main-container": 2})},
		"a condition with another status does not match": {
			rules: []api.PodFailurePolicyRule{{Action: ActionFailJob, OnPodConditions: []api.PodFailurePolicyOnPodConditionsPattern{{Type: "DisruptionTarget", Status: api.ConditionFalse}}}},
			pod:   failed(nil, "DisruptionTarget")},
		"a container not terminated has no exit code to match": {
			rules: []api.PodFailurePolicyRule{notIn(ActionFailJob, 0)},
			pod: func() *api.Pod {
				p := failed(nil)
				p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "main-container", State: api.ContainerState{Running: &api.ContainerStateRunning{}}}}
				return p
			}()},
	}
	for name, tc := range msgTests {
		t.Run(name, func(t *testing.T) {
			msg, _, _ := matchPodFailurePolicy(&api.PodFailurePolicy{Rules: tc.rules}, tc.pod)
			if msg != tc.wantMsg {
				t.Errorf("message %q, want %q", msg, tc.wantMsg)
			}
		})
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			msg, count, action := matchPodFailurePolicy(&api.PodFailurePolicy{Rules: tc.rules}, tc.pod)
			if (msg != "") != tc.wantFail || count != tc.wantCount || action != tc.wantAction {
				t.Errorf("got (%q, %v, %q), want fail %v count %v action %q", msg, count, action, tc.wantFail, tc.wantCount, tc.wantAction)
			}
		})
	}
}

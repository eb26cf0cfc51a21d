package job

import (
	"fmt"
	"slices"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// The actions of a pod failure policy rule.
const (
	ActionFailJob   = "FailJob"
	ActionFailIndex = "FailIndex"
	ActionIgnore    = "Ignore"
	ActionCount     = "Count"
)

// The operators of an onExitCodes requirement.
const (
	OperatorIn    = "In"
	OperatorNotIn = "NotIn"
)

// matchPodFailurePolicy is kcm's matchPodFailurePolicy
// (pod_failure_policy.go): the rules are tried in order and the first
// that matches the failed pod p with a known action decides. A rule with
// onExitCodes matches a terminated container — regular containers
// first, then init containers — with a non-zero exit code the operator
// accepts (an unknown operator accepts none); a rule with
// onPodConditions matches a pod condition of a listed type and status.
// It returns the FailJob message (non-empty: the job fails), whether p
// counts toward backoffLimit (and backoffLimitPerIndex; Ignore does not),
// and the action matched ("" for none, which counts). A matching rule
// with an unknown action is passed over.
func matchPodFailurePolicy(policy *api.PodFailurePolicy, p *api.Pod) (failJobMessage string, count bool, action string) {
	if policy == nil {
		return "", true, ""
	}
	for i, rule := range policy.Rules {
		var msg string
		switch {
		case rule.OnExitCodes != nil:
			cs := matchExitCodes(rule.OnExitCodes, p)
			if cs == nil {
				continue
			}
			msg = fmt.Sprintf("Container %s for pod %s/%s failed with exit code %d matching %v rule at index %d",
				cs.Name, p.Namespace, p.Name, cs.State.Terminated.ExitCode, rule.Action, i)
		case rule.OnPodConditions != nil:
			c := matchConditions(rule.OnPodConditions, p)
			if c == nil {
				continue
			}
			msg = fmt.Sprintf("Pod %s/%s has condition %v matching %v rule at index %d", p.Namespace, p.Name, c.Type, rule.Action, i)
		default:
			continue
		}
		switch rule.Action {
		case ActionFailJob:
			return msg, true, ActionFailJob
		case ActionIgnore:
			return "", false, ActionIgnore
		case ActionCount, ActionFailIndex:
			return "", true, rule.Action
		}
	}
	return "", true, ""
}

// matchExitCodes is kcm's matchOnExitCodes: the first terminated
// container with a non-zero exit code that satisfies req, looked for
// among the regular containers, then the init containers.
func matchExitCodes(req *api.PodFailurePolicyOnExitCodesRequirement, p *api.Pod) *api.ContainerStatus {
	for _, list := range [][]api.ContainerStatus{p.Status.ContainerStatuses, p.Status.InitContainerStatuses} {
		for i := range list {
			cs := &list[i]
			t := cs.State.Terminated
			if t == nil || t.ExitCode == 0 || (req.ContainerName != nil && *req.ContainerName != cs.Name) {
				continue
			}
			if exitCodeMatches(req, t.ExitCode) {
				return cs
			}
		}
	}
	return nil
}

func exitCodeMatches(req *api.PodFailurePolicyOnExitCodesRequirement, code int32) bool {
	switch req.Operator {
	case OperatorIn:
		return slices.Contains(req.Values, code)
	case OperatorNotIn:
		return !slices.Contains(req.Values, code)
	}
	return false
}

// matchConditions is kcm's matchOnPodConditions: the first of the pod's
// conditions (in the pod's order) whose type and status a pattern names.
func matchConditions(patterns []api.PodFailurePolicyOnPodConditionsPattern, p *api.Pod) *api.PodCondition {
	for i := range p.Status.Conditions {
		c := &p.Status.Conditions[i]
		for _, pat := range patterns {
			st := pat.Status
			if st == "" {
				st = api.ConditionTrue // the API's default
			}
			if c.Type == pat.Type && c.Status == st {
				return c
			}
		}
	}
	return nil
}

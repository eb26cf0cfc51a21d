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

// matchPodFailurePolicy is kcm's matchPodFailurePolicy: the first rule
// that matches the failed pod p decides. It returns the FailJob message
// (non-empty: the job fails), whether p counts toward backoffLimit, and
// the action matched ("" for none, which counts).
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
		case len(rule.OnPodConditions) > 0:
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
		case ActionCount, ActionFailIndex: // FailIndex needs backoffLimitPerIndex: counted here
			return "", true, rule.Action
		}
	}
	return "", true, ""
}

// matchExitCodes returns the first terminated container (init containers
// first, as kcm checks them) whose non-zero exit code satisfies req.
// Containers that exited 0 never match.
func matchExitCodes(req *api.PodFailurePolicyOnExitCodesRequirement, p *api.Pod) *api.ContainerStatus {
	for _, list := range [][]api.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
		for i := range list {
			cs := &list[i]
			if req.ContainerName != nil && *req.ContainerName != cs.Name {
				continue
			}
			t := cs.State.Terminated
			if t == nil || t.ExitCode == 0 {
				continue
			}
			in := slices.Contains(req.Values, t.ExitCode)
			if (req.Operator == "In") == in {
				return cs
			}
		}
	}
	return nil
}

func matchConditions(patterns []api.PodFailurePolicyOnPodConditionsPattern, p *api.Pod) *api.PodCondition {
	for _, pat := range patterns {
		for i := range p.Status.Conditions {
			c := &p.Status.Conditions[i]
			st := pat.Status
			if st == "" {
				st = api.ConditionTrue
			}
			if c.Type == pat.Type && c.Status == st {
				return c
			}
		}
	}
	return nil
}

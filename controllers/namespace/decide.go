package namespace

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// The condition types the controller keeps on a terminating namespace
// (kcm's deletion/status_condition_utils.go; discovery and group version
// parsing cannot fail here, so their two conditions are left out).
const (
	ConditionContentFailure      = "NamespaceDeletionContentFailure"
	ConditionContentRemaining    = "NamespaceContentRemaining"
	ConditionFinalizersRemaining = "NamespaceFinalizersRemaining"
)

// FinalizerEstimate is how long the controller waits before looking
// again at content held by finalizers (kcm's finalizerEstimateSeconds).
const FinalizerEstimate = 15 * time.Second

var conditionTypes = []string{ConditionContentFailure, ConditionContentRemaining, ConditionFinalizersRemaining}

var okReasons = map[string]string{
	ConditionContentFailure:      "ContentDeleted",
	ConditionContentRemaining:    "ContentRemoved",
	ConditionFinalizersRemaining: "ContentRemoved",
}

var okMessages = map[string]string{
	ConditionContentFailure:      "All content successfully deleted, may be waiting on finalization",
	ConditionContentRemaining:    "All content successfully removed",
	ConditionFinalizersRemaining: "All content successfully removed",
}

// Remaining is what a pass found still in the namespace after its
// deletes: per resource ("pods", "deployments.apps"), the number of
// objects, and per finalizer the number of objects it holds; and the
// errors of the deletes that failed.
type Remaining struct {
	Objects    map[string]int
	Finalizers map[string]int
	Errors     []string
}

// Conditions returns the namespace conditions for what remains, merged
// into old as kcm's updateConditions does (a condition's
// lastTransitionTime changes only when its status does), and whether
// anything changed. Each type is True with its failure reason and
// message when something remains of that sort, otherwise False with the
// "ok" reason and message.
func Conditions(old []api.NamespaceCondition, r Remaining, now time.Time) ([]api.NamespaceCondition, bool) {
	failed := map[string]api.NamespaceCondition{}
	if len(r.Errors) > 0 {
		msgs := slices.Clone(r.Errors)
		sort.Strings(msgs)
		failed[ConditionContentFailure] = api.NamespaceCondition{Type: ConditionContentFailure, Status: api.ConditionTrue,
			Reason:  "ContentDeletionFailed",
			Message: fmt.Sprintf("Failed to delete all resource types, %d remaining: %v", len(msgs), strings.Join(msgs, ", "))}
	}
	var objs []string
	for res, n := range r.Objects {
		if n > 0 {
			objs = append(objs, fmt.Sprintf("%s has %d resource instances", res, n))
		}
	}
	if len(objs) > 0 {
		sort.Strings(objs)
		failed[ConditionContentRemaining] = api.NamespaceCondition{Type: ConditionContentRemaining, Status: api.ConditionTrue,
			Reason: "SomeResourcesRemain", Message: "Some resources are remaining: " + strings.Join(objs, ", ")}
	}
	var fins []string
	for f, n := range r.Finalizers {
		if n > 0 {
			fins = append(fins, fmt.Sprintf("%s in %d resource instances", f, n))
		}
	}
	if len(fins) > 0 {
		sort.Strings(fins)
		failed[ConditionFinalizersRemaining] = api.NamespaceCondition{Type: ConditionFinalizersRemaining, Status: api.ConditionTrue,
			Reason: "SomeFinalizersRemain", Message: "Some finalizers are remaining: " + strings.Join(fins, ", ")}
	}
	out := slices.Clone(old)
	changed := false
	for _, t := range conditionTypes {
		want, ok := failed[t]
		if !ok {
			want = api.NamespaceCondition{Type: t, Status: api.ConditionFalse, Reason: okReasons[t], Message: okMessages[t]}
		}
		i := slices.IndexFunc(out, func(c api.NamespaceCondition) bool { return c.Type == t })
		if i < 0 {
			want.LastTransitionTime = api.NewTime(now)
			out = append(out, want)
			changed = true
			continue
		}
		cur := &out[i]
		if cur.Status != want.Status || cur.Reason != want.Reason || cur.Message != want.Message {
			if cur.Status != want.Status {
				cur.LastTransitionTime = api.NewTime(now)
			}
			cur.Status, cur.Reason, cur.Message = want.Status, want.Reason, want.Message
			changed = true
		}
	}
	return out, changed
}

// PodsEstimate is how long the namespace's pods may still take to stop
// (kcm's estimateGracefulTerminationForPods): the longest
// terminationGracePeriodSeconds of its pods that are not terminal, or 0
// once that long has passed since the namespace's deletion.
func PodsEstimate(pods []*api.Pod, deletedAt, now time.Time) time.Duration {
	var est int64
	for _, p := range pods {
		if p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed {
			continue
		}
		if g := p.Spec.TerminationGracePeriodSeconds; g != nil && *g > est {
			est = *g
		}
	}
	d := time.Duration(est) * time.Second
	if now.Sub(deletedAt) >= d {
		return 0
	}
	return d
}

// hasFinalizer reports whether ns still waits for this controller.
func hasFinalizer(ns *api.Namespace) bool {
	return slices.Contains(ns.Spec.Finalizers, api.FinalizerName(FinalizerName))
}

// FinalizerName is the namespace spec finalizer the controller removes
// once the namespace is empty.
const FinalizerName = "kubernetes"

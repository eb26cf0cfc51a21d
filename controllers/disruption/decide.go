package disruption

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// DeletionTimeout is how long an entry of status.disruptedPods stands for
// a pod the eviction API let go: until then the pod does not count as
// healthy; after it, the controller assumes the pod will not be deleted
// and drops the entry (kcm's DeletionTimeout).
const DeletionTimeout = 2 * time.Minute

// The DisruptionAllowed condition and its reasons (policy/v1).
const (
	// ConditionDisruptionAllowed is True when disruptionsAllowed > 0.
	ConditionDisruptionAllowed = "DisruptionAllowed"
	// ReasonSufficientPods: enough healthy pods to allow a disruption.
	ReasonSufficientPods = "SufficientPods"
	// ReasonInsufficientPods: no disruption allowed.
	ReasonInsufficientPods = "InsufficientPods"
	// ReasonSyncFailed: the controller could not compute the status; no
	// disruption is allowed until it can.
	ReasonSyncFailed = "SyncFailed"
)

// The reasons of the events the controller records, as kcm's.
const (
	// EventNoPods (Normal) says the budget selects no pod.
	EventNoPods = "NoPods"
	// EventCalculateExpectedPodCountFailed (Warning) says the expected
	// pod count could not be computed (a pod's controller is missing).
	EventCalculateExpectedPodCountFailed = "CalculateExpectedPodCountFailed"
	// EventUnmanagedPods (Warning) says pods without a controller are
	// selected by a budget that needs their scale.
	EventUnmanagedPods = "UnmanagedPods"
	// EventNotDeleted (Warning, on the pod) says a pod in disruptedPods
	// outlived DeletionTimeout.
	EventNotDeleted = "NotDeleted"
)

// ErrNoController is wrapped by the error of Decide when a selected pod's
// controller reference resolves to no controller with a scale.
var ErrNoController = errors.New("found no controllers for pod")

// ScaleFunc resolves a pod's controller reference (in namespace) to the
// controller's UID and its desired replicas. found is false when the
// reference names no controller this function knows (kcm's finders
// return nil); err is an error reading it.
type ScaleFunc func(ref api.OwnerReference, namespace string) (uid api.UID, replicas int32, found bool, err error)

// Event is an event Decide asks the shell to record: about the budget, or
// about Pod when it is set.
type Event struct {
	// Pod is the pod the event is about; nil means the budget.
	Pod *api.Pod
	// Warning is true for a Warning event, false for Normal.
	Warning bool
	// Reason and Message are the event's.
	Reason, Message string
}

// Decision is what one sync of a budget decides.
type Decision struct {
	// Status is the budget's new status; Write says whether it differs
	// from the stored one and must be written.
	Status api.PodDisruptionBudgetStatus
	Write  bool
	// Recheck, when not zero, is when the budget must be synced again:
	// the earliest expiry of a disruptedPods entry.
	Recheck time.Time
	// Events to record, in order.
	Events []Event
	// Err is why the status could not be computed (the shell then writes
	// FailSafe's status instead).
	Err error
}

// Decide computes the status of pdb from the pods it selects (pods, read
// from the cache; the selection is the shell's) at now: kcm's trySync.
// scale resolves the pods' controllers when the budget needs their scale
// (maxUnavailable, or a percentage minAvailable).
func Decide(pdb *api.PodDisruptionBudget, pods []*api.Pod, scale ScaleFunc, now time.Time) Decision {
	var d Decision
	if len(pods) == 0 {
		d.Events = append(d.Events, Event{Reason: EventNoPods, Message: "No matching pods found"})
	}
	expected, desired, unmanaged, err := ExpectedPods(pdb.Spec, pods, scale)
	if err != nil {
		d.Events = append(d.Events, Event{Warning: true, Reason: EventCalculateExpectedPodCountFailed,
			Message: fmt.Sprintf("Failed to calculate the number of expected pods: %v", err)})
		d.Err = err
		return d
	}
	if len(unmanaged) > 0 {
		d.Events = append(d.Events, Event{Warning: true, Reason: EventUnmanagedPods,
			Message: fmt.Sprintf("Pods selected by this PodDisruptionBudget (selector: %v) were found "+
				"to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. "+
				"To account for these pods please set \".spec.minAvailable\" "+
				"field of the PDB to an integer value.", selectorString(pdb.Spec.Selector))})
	}
	disrupted, expired, recheck := DisruptedPods(pods, pdb.Status.DisruptedPods, now)
	for _, p := range expired {
		d.Events = append(d.Events, Event{Pod: p, Warning: true, Reason: EventNotDeleted,
			Message: fmt.Sprintf("Pod was expected by PDB %s/%s to be deleted but it wasn't", pdb.Namespace, pdb.Name)})
	}
	healthy := CurrentHealthy(pods, disrupted, now)
	d.Status, d.Write = Status(pdb, healthy, desired, expected, disrupted, now)
	d.Recheck = recheck
	return d
}

// ExpectedPods returns the number of pods the budget expects and the
// least number of them that must be healthy (kcm's getExpectedPodCount):
//
//   - maxUnavailable: expected is the sum of the scales of the pods'
//     controllers; desired = expected − maxUnavailable (a percentage of
//     expected, rounded up), at least 0;
//   - minAvailable as an integer: expected is the number of selected
//     pods, desired the integer — no controller is looked at;
//   - minAvailable as a percentage: expected as for maxUnavailable,
//     desired the percentage of it, rounded up.
//
// Pods without a controller reference are returned in unmanaged (and not
// counted) when the scale is needed; a controller reference that
// resolves to nothing is an error wrapping ErrNoController.
func ExpectedPods(spec api.PodDisruptionBudgetSpec, pods []*api.Pod, scale ScaleFunc) (expected, desired int32, unmanaged []string, err error) {
	switch {
	case spec.MaxUnavailable != nil:
		if expected, unmanaged, err = expectedScale(pods, scale); err != nil {
			return 0, 0, nil, err
		}
		maxUnavailable, err := spec.MaxUnavailable.ScaledValue(int(expected), true)
		if err != nil {
			return 0, 0, nil, err
		}
		desired = max(expected-int32(maxUnavailable), 0)
	case spec.MinAvailable != nil && spec.MinAvailable.Type == api.TypeInt:
		desired, expected = spec.MinAvailable.IntVal, int32(len(pods))
	case spec.MinAvailable != nil:
		if expected, unmanaged, err = expectedScale(pods, scale); err != nil {
			return 0, 0, nil, err
		}
		minAvailable, err := spec.MinAvailable.ScaledValue(int(expected), true)
		if err != nil {
			return 0, 0, nil, err
		}
		desired = int32(minAvailable)
	}
	return expected, desired, unmanaged, nil
}

// expectedScale sums the scales of the distinct controllers of pods
// (kcm's getExpectedScale).
func expectedScale(pods []*api.Pod, scale ScaleFunc) (int32, []string, error) {
	scales := map[api.UID]int32{}
	var unmanaged []string
	for _, p := range pods {
		ref := p.ControllerRef()
		if ref == nil {
			unmanaged = append(unmanaged, p.Name)
			continue
		}
		if _, ok := scales[ref.UID]; ok {
			continue
		}
		if scale == nil {
			return 0, nil, fmt.Errorf("%w %q", ErrNoController, p.Name)
		}
		uid, n, found, err := scale(*ref, p.Namespace)
		if err != nil {
			return 0, nil, err
		}
		if !found {
			return 0, nil, fmt.Errorf("%w %q", ErrNoController, p.Name)
		}
		scales[uid] = n
	}
	var sum int32
	for _, n := range scales {
		sum += n
	}
	return sum, unmanaged, nil
}

// DisruptedPods keeps the entries of recorded (status.disruptedPods) that
// still stand at now (kcm's buildDisruptedPodMap): an entry stands for a
// selected pod not yet being deleted, until DeletionTimeout after it was
// made. Entries of pods that are gone or being deleted are dropped;
// entries that outlived DeletionTimeout are dropped and their pods
// returned in expired. recheck is the earliest expiry of a kept entry
// (zero if none).
func DisruptedPods(pods []*api.Pod, recorded map[string]api.Time, now time.Time) (kept map[string]api.Time, expired []*api.Pod, recheck time.Time) {
	kept = map[string]api.Time{}
	if recorded == nil {
		return kept, nil, time.Time{}
	}
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		at, ok := recorded[p.Name]
		if !ok {
			continue
		}
		deadline := at.Add(DeletionTimeout)
		if deadline.Before(now) {
			expired = append(expired, p)
			continue
		}
		if recheck.IsZero() || deadline.Before(recheck) {
			recheck = deadline
		}
		kept[p.Name] = at
	}
	return kept, expired, recheck
}

// CurrentHealthy counts the healthy pods at now (kcm's countHealthyPods):
// Ready, not being deleted, and not in disrupted with an entry younger
// than DeletionTimeout.
func CurrentHealthy(pods []*api.Pod, disrupted map[string]api.Time, now time.Time) int32 {
	var n int32
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		if at, ok := disrupted[p.Name]; ok && at.Add(DeletionTimeout).After(now) {
			continue
		}
		if api.IsPodReady(p) {
			n++
		}
	}
	return n
}

// Status returns pdb's status for the counts (kcm's updatePdbStatus) and
// whether it must be written: disruptionsAllowed = currentHealthy −
// desiredHealthy, and 0 when that is negative or no pod is expected (a
// budget that selects nothing yet must be safe when its first pods
// appear); observedGeneration the budget's generation; the
// DisruptionAllowed condition. Nothing is written when all of them, and
// the condition, are already so.
func Status(pdb *api.PodDisruptionBudget, currentHealthy, desiredHealthy, expected int32, disrupted map[string]api.Time, now time.Time) (api.PodDisruptionBudgetStatus, bool) {
	allowed := currentHealthy - desiredHealthy
	if expected <= 0 || allowed <= 0 {
		allowed = 0
	}
	st := pdb.Status
	if st.CurrentHealthy == currentHealthy && st.DesiredHealthy == desiredHealthy && st.ExpectedPods == expected &&
		st.DisruptionsAllowed == allowed && sameDisrupted(st.DisruptedPods, disrupted) &&
		st.ObservedGeneration == pdb.Generation && ConditionUpToDate(pdb) {
		return st, false
	}
	if len(disrupted) == 0 {
		disrupted = nil // as the stored JSON omits an empty map
	}
	next := api.PodDisruptionBudgetStatus{
		CurrentHealthy: currentHealthy, DesiredHealthy: desiredHealthy, ExpectedPods: expected,
		DisruptionsAllowed: allowed, DisruptedPods: disrupted, ObservedGeneration: pdb.Generation,
		Conditions: slices.Clone(st.Conditions),
	}
	UpdateCondition(&next, now)
	return next, true
}

// sameDisrupted compares two disruptedPods maps as apimachinery's
// semantic equality does: a nil map equals an empty one (the stored
// status omits an empty map).
func sameDisrupted(a, b map[string]api.Time) bool {
	return maps.EqualFunc(a, b, func(x, y api.Time) bool { return x.Equal(y.Time) })
}

// FailSafe is the status written when a sync fails (kcm's failSafe): no
// disruption allowed, and the DisruptionAllowed condition False with
// reason SyncFailed and err as its message.
func FailSafe(pdb *api.PodDisruptionBudget, err error, now time.Time) api.PodDisruptionBudgetStatus {
	st := pdb.Status
	st.DisruptionsAllowed = 0
	st.Conditions = slices.Clone(st.Conditions)
	SetCondition(&st.Conditions, api.Condition{Type: ConditionDisruptionAllowed, Status: api.ConditionFalse,
		Reason: ReasonSyncFailed, Message: err.Error(), ObservedGeneration: st.ObservedGeneration}, now)
	return st
}

// UpdateCondition sets st's DisruptionAllowed condition from
// st.DisruptionsAllowed (component-helpers' UpdateDisruptionAllowedCondition):
// True/SufficientPods when it is positive, else False/InsufficientPods.
func UpdateCondition(st *api.PodDisruptionBudgetStatus, now time.Time) {
	c := api.Condition{Type: ConditionDisruptionAllowed, Status: api.ConditionFalse, Reason: ReasonInsufficientPods,
		ObservedGeneration: st.ObservedGeneration}
	if st.DisruptionsAllowed > 0 {
		c.Status, c.Reason = api.ConditionTrue, ReasonSufficientPods
	}
	SetCondition(&st.Conditions, c, now)
}

// ConditionUpToDate reports whether pdb's DisruptionAllowed condition
// agrees with its status (component-helpers' ConditionsAreUpToDate).
func ConditionUpToDate(pdb *api.PodDisruptionBudget) bool {
	i := slices.IndexFunc(pdb.Status.Conditions, func(c api.Condition) bool { return c.Type == ConditionDisruptionAllowed })
	if i < 0 || pdb.Status.ObservedGeneration != pdb.Generation {
		return false
	}
	c := pdb.Status.Conditions[i]
	if pdb.Status.DisruptionsAllowed > 0 {
		return c.Status == api.ConditionTrue && c.Reason == ReasonSufficientPods
	}
	return c.Status == api.ConditionFalse && c.Reason == ReasonInsufficientPods
}

// SetCondition sets c in conds as apimachinery's SetStatusCondition does:
// a new condition, or a change of status, gets lastTransitionTime now
// (unless c carries one); reason, message and observedGeneration are
// always overwritten.
func SetCondition(conds *[]api.Condition, c api.Condition, now time.Time) {
	if c.LastTransitionTime.IsZero() {
		c.LastTransitionTime = api.NewTime(now)
	}
	for i := range *conds {
		cur := &(*conds)[i]
		if cur.Type != c.Type {
			continue
		}
		if cur.Status != c.Status {
			cur.Status, cur.LastTransitionTime = c.Status, c.LastTransitionTime
		}
		cur.Reason, cur.Message, cur.ObservedGeneration = c.Reason, c.Message, c.ObservedGeneration
		return
	}
	*conds = append(*conds, c)
}

// selectorString prints a label selector as kube's %v of a
// *metav1.LabelSelector would be too noisy to match; the label-selector
// syntax says the same.
func selectorString(ls *api.LabelSelector) string {
	if ls == nil {
		return "<nil>"
	}
	s, err := ls.AsSelector()
	if err != nil {
		return "<invalid>"
	}
	return s.String()
}

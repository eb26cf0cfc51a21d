package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/source"
)

// A Cluster is the pods' eviction subresource.
var _ client.Evictor = (*Cluster)(nil)

// MaxDisruptedPods bounds a budget's status.disruptedPods: past it the
// eviction API refuses to evict the budget's pods (kube-apiserver's
// MaxDisruptedPodSize), until the disruption controller catches up.
const MaxDisruptedPods = 2000

// evictionRetries bounds the retries of an eviction that lost a race on
// the pod or the budget (kube-apiserver's EvictionsRetry has 20 steps).
const evictionRetries = 20

// ErrMultipleBudgets is returned by Evict for a pod that more than one
// PodDisruptionBudget selects; kube-apiserver answers it with a 500
// Status carrying MultipleBudgetsMessage.
var ErrMultipleBudgets = errors.New(MultipleBudgetsMessage)

// MultipleBudgetsMessage is kube-apiserver's message for a pod covered by
// several budgets.
const MultipleBudgetsMessage = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."

// BudgetMessage is kube-apiserver's message for an eviction a budget
// refuses (429 TooManyRequests).
const BudgetMessage = "Cannot evict pod as it would violate the pod's disruption budget."

// BudgetError is the error of an eviction refused by a budget: kube's
// 429 TooManyRequests with the message BudgetMessage and a
// DisruptionBudget cause. It wraps client.ErrTooManyRequests.
type BudgetError struct {
	// Budget is the name of the budget.
	Budget string
	// Cause is the DisruptionBudget cause's message ("The disruption
	// budget web needs 2 healthy pods and has 2 currently").
	Cause string
	// RetryAfter is the suggested delay: 0, or 10 s while the budget is
	// being processed by the disruption controller.
	RetryAfter time.Duration
}

// Error returns BudgetMessage and the cause.
func (e *BudgetError) Error() string { return BudgetMessage + " " + e.Cause }

// Unwrap returns client.ErrTooManyRequests.
func (e *BudgetError) Unwrap() error { return client.ErrTooManyRequests }

// DisruptionTarget condition of a pod the eviction API deletes.
const (
	// ReasonEvictionByEvictionAPI is the DisruptionTarget reason.
	ReasonEvictionByEvictionAPI = "EvictionByEvictionAPI"
	// messageEvicting is its message.
	messageEvicting = "Eviction API: evicting"
)

// Evict evicts the pod namespace/name (the eviction subresource, policy/v1
// Eviction) as kube-apiserver's EvictionREST does, then deletes it with
// opts (grace period, preconditions, propagation):
//
//   - A pod that is Pending, Succeeded or Failed, or already being
//     deleted, is deleted without looking at any budget (with its
//     resourceVersion as precondition when it is not terminal, unless
//     opts has one).
//   - Otherwise the budgets of its namespace whose selector picks it are
//     found: more than one is ErrMultipleBudgets; none lets the eviction
//     go. A pod that is not Ready is evicted without using the budget's
//     allowance when the budget's unhealthyPodEvictionPolicy is
//     AlwaysAllow, or (IfHealthyBudget, the default) when
//     currentHealthy ≥ desiredHealthy > 0 — with the pod's
//     resourceVersion as precondition, a conflict then being a 429.
//     Otherwise the budget must have observed its generation (else a
//     BudgetError "still being processed", retry after 10 s), a
//     non-negative disruptionsAllowed and at most MaxDisruptedPods
//     entries (else ErrForbidden), and disruptionsAllowed > 0 (else a
//     BudgetError naming desired and current healthy); it is decremented
//     and the pod added to disruptedPods, with a write of the budget's
//     status conditional on its resourceVersion (a conflict retries
//     from a fresh read).
//   - Before the delete the pod gets the DisruptionTarget condition
//     (reason EvictionByEvictionAPI), as v1.37 writes it.
//
// Errors: the pod missing is NotFound; a failed precondition is
// Conflict; the others above.
func (c *Cluster) Evict(ctx context.Context, namespace, name string, opts client.DeleteOptions) error {
	pods := storeOf[*api.Pod](c)
	key := api.NamespacedKey(namespace, name)
	rvUnset := opts.Preconditions.ResourceVersion == ""

	var pod *api.Pod
	for attempt := 0; ; attempt++ {
		p, rv, err := pods.Get(ctx, key)
		if err != nil {
			return err
		}
		p.ResourceVersion = rv
		pod = p
		if !canIgnoreBudget(p) {
			break
		}
		del := opts
		if enforceVersion(p) && rvUnset {
			del.Preconditions.ResourceVersion = rv
		}
		err = c.markAndDelete(ctx, key, del)
		if err == nil {
			return nil
		}
		if !rvUnset || !errors.Is(err, source.ErrConflict) || attempt+1 >= evictionRetries {
			return err
		}
	}

	budget, checked, err := c.checkBudgets(ctx, pod)
	if err != nil {
		return err
	}
	del := opts
	if checked {
		// The pod was not ready: make sure it has not become ready since.
		del.Preconditions.ResourceVersion = pod.ResourceVersion
	}
	err = c.markAndDelete(ctx, key, del)
	if err != nil && errors.Is(err, source.ErrConflict) && checked && rvUnset {
		return &BudgetError{Budget: budget, Cause: fmt.Sprintf("The disruption budget %s is still being processed by the server.", budget),
			RetryAfter: 10 * time.Second}
	}
	return err
}

// checkBudgets applies the budget covering pod, if any. checked is true
// when an unready pod may go without using the allowance, on the
// condition that it is still at the version read.
func (c *Cluster) checkBudgets(ctx context.Context, pod *api.Pod) (budget string, checked bool, err error) {
	pdbs := storeOf[*api.PodDisruptionBudget](c)
	l, err := pdbs.List(ctx, source.ListOptions{})
	if err != nil {
		return "", false, err
	}
	var matching []*api.PodDisruptionBudget
	for _, b := range l.Items {
		if b.Namespace != pod.Namespace {
			continue
		}
		sel, err := b.Spec.Selector.AsSelector()
		if err != nil || !sel.Matches(pod.Labels) {
			continue // an invalid selector matches nothing
		}
		matching = append(matching, b)
	}
	switch len(matching) {
	case 0:
		return "", false, nil
	case 1:
	default:
		return "", false, ErrMultipleBudgets
	}
	b := matching[0]
	if !api.IsPodReady(pod) {
		if p := b.Spec.UnhealthyPodEvictionPolicy; p != nil && *p == api.AlwaysAllow {
			return b.Name, true, nil
		}
		if b.Status.CurrentHealthy >= b.Status.DesiredHealthy && b.Status.DesiredHealthy > 0 {
			return b.Name, true, nil
		}
	}
	key := api.Key(b)
	for attempt := 0; ; attempt++ {
		err := c.decrement(ctx, pod.Name, b)
		if err == nil || !errors.Is(err, source.ErrConflict) {
			return b.Name, false, err
		}
		if attempt+1 >= evictionRetries {
			return b.Name, false, fmt.Errorf("cluster: couldn't update PodDisruptionBudget %q due to conflicts: %w", b.Name, source.ErrTransient)
		}
		fresh, rv, err := pdbs.Get(ctx, key)
		if err != nil {
			return b.Name, false, err
		}
		fresh.ResourceVersion = rv
		b = fresh
	}
}

// decrement is kube-apiserver's checkAndDecrement: one disruption of b's
// allowance for the pod podName, written to b's status on the condition
// that b is still at its resourceVersion.
func (c *Cluster) decrement(ctx context.Context, podName string, b *api.PodDisruptionBudget) error {
	switch {
	case b.Status.ObservedGeneration < b.Generation:
		return &BudgetError{Budget: b.Name, Cause: fmt.Sprintf("The disruption budget %s is still being processed by the server.", b.Name),
			RetryAfter: 10 * time.Second}
	case b.Status.DisruptionsAllowed < 0:
		return fmt.Errorf("poddisruptionbudget.policy %q is forbidden: pdb disruptions allowed is negative: %w", b.Name, ErrForbidden)
	case len(b.Status.DisruptedPods) > MaxDisruptedPods:
		return fmt.Errorf("poddisruptionbudget.policy %q is forbidden: DisruptedPods map too big - too many evictions not confirmed by PDB controller: %w", b.Name, ErrForbidden)
	case b.Status.DisruptionsAllowed == 0:
		return &BudgetError{Budget: b.Name, Cause: fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently",
			b.Name, b.Status.DesiredHealthy, b.Status.CurrentHealthy)}
	}
	next := b.DeepCopy()
	next.Status.DisruptionsAllowed--
	now := time.Now()
	if next.Status.DisruptionsAllowed == 0 {
		setBudgetCondition(&next.Status, now)
	}
	if next.Status.DisruptedPods == nil {
		next.Status.DisruptedPods = map[string]api.Time{}
	}
	next.Status.DisruptedPods[podName] = api.NewTime(now)
	_, err := storeOf[*api.PodDisruptionBudget](c).UpdateStatus(ctx, next)
	return err
}

// setBudgetCondition sets the DisruptionAllowed condition to
// False/InsufficientPods, as component-helpers'
// UpdateDisruptionAllowedCondition does for an allowance of 0 (the same
// rule as package disruption's UpdateCondition).
func setBudgetCondition(st *api.PodDisruptionBudgetStatus, now time.Time) {
	c := api.Condition{Type: "DisruptionAllowed", Status: api.ConditionFalse, Reason: "InsufficientPods",
		ObservedGeneration: st.ObservedGeneration, LastTransitionTime: api.NewTime(now)}
	st.Conditions = slices.Clone(st.Conditions)
	for i := range st.Conditions {
		cur := &st.Conditions[i]
		if cur.Type != c.Type {
			continue
		}
		if cur.Status != c.Status {
			cur.Status, cur.LastTransitionTime = c.Status, c.LastTransitionTime
		}
		cur.Reason, cur.Message, cur.ObservedGeneration = c.Reason, c.Message, c.ObservedGeneration
		return
	}
	st.Conditions = append(st.Conditions, c)
}

// markAndDelete adds the DisruptionTarget condition to the pod under key
// (checking opts' preconditions against the stored pod first), then
// deletes it with opts, the resourceVersion precondition moved to the
// version the condition wrote (kube's addConditionAndDeletePod).
func (c *Cluster) markAndDelete(ctx context.Context, key string, opts client.DeleteOptions) error {
	pods := storeOf[*api.Pod](c)
	scratch := &api.Pod{}
	rv, err := pods.write(ctx, "update status", key, opts.Preconditions.ResourceVersion, scratch, func(cur *api.Pod) (*api.Pod, error) {
		if uid := opts.Preconditions.UID; uid != "" && uid != cur.UID {
			return nil, fmt.Errorf("cluster: evict pod %q: precondition failed: UID in precondition: %s, UID in object meta: %s: %w",
				key, uid, cur.UID, source.ErrConflict)
		}
		next := cur.DeepCopy()
		cond := api.PodCondition{Type: "DisruptionTarget", Status: api.ConditionTrue,
			Reason: ReasonEvictionByEvictionAPI, Message: messageEvicting, LastTransitionTime: api.NewTime(now())}
		if old, ok := next.Status.GetCondition("DisruptionTarget"); ok && old.Status == cond.Status {
			cond.LastTransitionTime = old.LastTransitionTime
		}
		setPodCondition(&next.Status, cond)
		return next, nil
	})
	if err != nil {
		return err
	}
	if opts.Preconditions.ResourceVersion != "" {
		opts.Preconditions.ResourceVersion = rv
	}
	_, err = pods.DeleteWith(ctx, key, opts)
	return err
}

// canIgnoreBudget: a pod not running, or already being deleted, has
// already caused its disruption (kube's canIgnorePDB).
func canIgnoreBudget(p *api.Pod) bool {
	switch p.Status.Phase {
	case api.PodSucceeded, api.PodFailed, api.PodPending:
		return true
	}
	return p.DeletionTimestamp != nil
}

// enforceVersion: a pod that is not terminal is deleted at the version
// read, so it cannot become ready meanwhile (kube's
// shouldEnforceResourceVersion).
func enforceVersion(p *api.Pod) bool {
	switch p.Status.Phase {
	case api.PodSucceeded, api.PodFailed:
		return false
	}
	return p.DeletionTimestamp == nil
}

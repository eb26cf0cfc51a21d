package scheduler

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/source"
)

// Binder binds a pod to a node: kube-apiserver's pods/binding.
type Binder interface {
	// Bind sets pod's spec.nodeName to node on the condition that the
	// stored pod is still unbound (and is the same incarnation, by UID);
	// when it is bound already, Bind fails with an error wrapping
	// source.ErrConflict (ErrAlreadyBound).
	Bind(ctx context.Context, pod *api.Pod, node string) error
}

// StatusWriter writes the scheduler's view of a pod into its status.
type StatusWriter interface {
	// SetCondition sets cond (PodScheduled=False, reason Unschedulable)
	// in the stored pod's status, unless the pod is bound by now.
	SetCondition(ctx context.Context, pod *api.Pod, cond api.PodCondition) error
}

// ErrAlreadyBound is wrapped by Bind's error when the pod is bound
// already; it wraps source.ErrConflict.
var ErrAlreadyBound = fmt.Errorf("scheduler: pod is already bound: %w", source.ErrConflict)

// ReasonUnschedulable is the reason of the PodScheduled=False condition.
const ReasonUnschedulable = "Unschedulable"

// bindRetries bounds the read-modify-write retries of PodWriter when
// another writer (a status update) races it.
const bindRetries = 5

// PodWriter is a Binder and a StatusWriter over any source.Writer of pods
// (fake.Source in tests, the cluster store in the control plane): Get the
// pod, change it, Update it with its own resourceVersion as the
// precondition, and on a conflict read again (up to a few times). Binding
// also sets PodScheduled=True and clears status.nominatedNodeName, as
// kube-apiserver's binding does (the ClearingNominatedNodeNameAfterBinding
// feature gate, beta and on by default since v1.35).
type PodWriter struct {
	// Pods is where pods are stored.
	Pods source.Writer[*api.Pod]
}

// Bind implements Binder.
func (w PodWriter) Bind(ctx context.Context, pod *api.Pod, node string) error {
	return w.update(ctx, pod, func(cur *api.Pod) (bool, error) {
		if cur.Spec.NodeName != "" {
			return false, fmt.Errorf("%w: %s is on %s", ErrAlreadyBound, api.Key(cur), cur.Spec.NodeName)
		}
		cur.Spec.NodeName = node
		cur.Status.NominatedNodeName = ""
		setCondition(&cur.Status, api.PodCondition{Type: api.PodScheduled, Status: api.ConditionTrue}, time.Now())
		return true, nil
	})
}

// SetCondition implements StatusWriter; an unchanged condition is not
// written again.
func (w PodWriter) SetCondition(ctx context.Context, pod *api.Pod, cond api.PodCondition) error {
	return w.update(ctx, pod, func(cur *api.Pod) (bool, error) {
		if cur.Spec.NodeName != "" {
			return false, nil
		}
		return setCondition(&cur.Status, cond, time.Now()), nil
	})
}

// update is the read-modify-write of one pod with retries on conflict.
func (w PodWriter) update(ctx context.Context, pod *api.Pod, change func(*api.Pod) (bool, error)) error {
	key := api.Key(pod)
	var err error
	for range bindRetries {
		var cur *api.Pod
		cur, _, err = w.Pods.Get(ctx, key)
		if err != nil {
			return fmt.Errorf("scheduler: %s: %w", key, err)
		}
		if pod.UID != "" && cur.UID != pod.UID {
			return fmt.Errorf("scheduler: %s was replaced (uid %s, not %s): %w", key, cur.UID, pod.UID, source.ErrConflict)
		}
		cur = cur.DeepCopy()
		ok, cerr := change(cur)
		if cerr != nil || !ok {
			return cerr
		}
		if _, err = w.Pods.Update(ctx, cur, ""); !errors.Is(err, source.ErrConflict) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("scheduler: update %s: %w", key, err)
	}
	return nil
}

// setCondition sets cond in s, keeping LastTransitionTime when the
// status does not change; it reports whether anything changed.
func setCondition(s *api.PodStatus, cond api.PodCondition, now time.Time) bool {
	old, ok := s.GetCondition(cond.Type)
	if !ok {
		cond.LastTransitionTime = api.NewTime(now)
		cond.LastProbeTime = api.NewTime(now)
		s.Conditions = append(s.Conditions, cond)
		return true
	}
	if old.Status == cond.Status && old.Reason == cond.Reason && old.Message == cond.Message {
		return false
	}
	if old.Status == cond.Status {
		cond.LastTransitionTime = old.LastTransitionTime
	} else {
		cond.LastTransitionTime = api.NewTime(now)
	}
	cond.LastProbeTime = api.NewTime(now)
	*old = cond
	return true
}

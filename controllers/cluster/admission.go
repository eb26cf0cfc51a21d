package cluster

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/source"
)

// Operation is the kind of write an admission function sees
// (admission.Operation).
type Operation = admission.Operation

// The operations.
const (
	// OperationCreate: Create (and CreateObject).
	OperationCreate = admission.Create
	// OperationUpdate: Update, UpdateStatus, Patch, UpdateScale and Bind.
	OperationUpdate = admission.Update
	// OperationDelete: Delete and DeleteWith.
	OperationDelete = admission.Delete
)

// Attributes describe a write to an admission function
// (admission.Attributes).
type Attributes = admission.Attributes

// AdmissionFunc is a validating admission plugin (admission.ValidatingFunc):
// it sees each create and update after defaulting, validation and the
// namespace lifecycle check, and each delete (Object nil, OldObject the
// stored object) once its preconditions hold; a non-nil error aborts the
// write.
type AdmissionFunc = admission.ValidatingFunc

// MutatingFunc is a mutating admission plugin (admission.MutatingFunc),
// run before every AdmissionFunc; it may change the object about to be
// stored.
type MutatingFunc = admission.MutatingFunc

// admitCreate runs the namespace lifecycle check, Options.Mutating and
// Options.Admission.
func (c *Cluster) admitCreate(ctx context.Context, resource string, namespaced bool, obj api.Object) error {
	m := obj.GetObjectMeta()
	if namespaced {
		ns, _, err := storeOf[*api.Namespace](c).s.Get(ctx, m.Namespace)
		switch {
		case errors.Is(err, source.ErrNotFound):
			return fmt.Errorf("cluster: create %s %q: namespace %q not found: %w", resource, api.Key(obj), m.Namespace, source.ErrNotFound)
		case err != nil:
			return fmt.Errorf("cluster: create %s %q: get namespace: %w", resource, api.Key(obj), err)
		case (ns.DeletionTimestamp != nil || ns.Status.Phase == api.NamespaceTerminating) && resource != "events":
			return fmt.Errorf("cluster: create %s %q: unable to create new content in namespace %s because it is being terminated: %w",
				resource, api.Key(obj), m.Namespace, ErrForbidden)
		}
	}
	return c.admit(ctx, Attributes{Operation: OperationCreate, Resource: resource, Object: obj})
}

// admitUpdate runs Options.Mutating and Options.Admission on an update.
func (c *Cluster) admitUpdate(ctx context.Context, resource, op string, obj, old api.Object) error {
	a := Attributes{Operation: OperationUpdate, Resource: resource, Object: obj, OldObject: old}
	switch op {
	case "update status":
		a.Subresource = "status"
	case "bind":
		a.Subresource = "binding"
	}
	return c.admit(ctx, a)
}

// admitDelete runs Options.Mutating and Options.Admission on a delete of
// cur, as kube-apiserver's delete validation does: operation DELETE, no
// object, a copy of the stored object as the old one, and the delete's
// options.
func (c *Cluster) admitDelete(ctx context.Context, resource string, cur api.Object, opts DeleteOptions) error {
	return c.admit(ctx, Attributes{Operation: OperationDelete, Resource: resource, OldObject: cur.DeepCopyObject(), DeleteOptions: &opts})
}

// admit fills in the object's kind, namespace and name (from the old
// object on a delete) and the requester (admission.WithRequest), then
// runs the mutating phase, then the validating one, then the request's
// own checks. An object the mutating phase changed is validated again, as
// kube-apiserver validates after mutating admission, and on an update
// its generation is bumped if the spec changed (see afterMutation).
func (c *Cluster) admit(ctx context.Context, a Attributes) error {
	obj := a.Object
	if a.Operation == OperationDelete {
		obj = a.OldObject
	}
	a.Kind, a.Namespace, a.Name = obj.GroupVersionKind(), obj.GetObjectMeta().Namespace, obj.GetObjectMeta().Name
	a.DryRun = a.DryRun || IsDryRun(ctx)
	user, checks, fromRequest := admission.RequestFrom(ctx)
	if fromRequest && a.UserInfo.Username == "" {
		a.UserInfo = user
	}
	// A snapshot to tell whether the mutating admission changed the
	// object's encoding (compared walked, not encoded: jsonEqual).
	var before api.Object
	if a.Object != nil && len(c.opts.Mutating) > 0 {
		before = a.Object.DeepCopyObject()
	}
	for _, f := range c.opts.Mutating {
		if err := f(ctx, a); err != nil {
			return fmt.Errorf("cluster: %s %s %q: mutating admission: %w", a.Operation, a.Resource, api.Key(obj), err)
		}
	}
	if before != nil {
		if !jsonEqual(before, a.Object) {
			if r, ok := c.kinds.Load().byGroupKind[[2]string{a.Kind.Group, a.Kind.Kind}].(afterMutation); ok {
				if err := r.afterMutation(a); err != nil {
					return err
				}
			}
		}
	}
	for _, f := range c.opts.Admission {
		if err := f(ctx, a); err != nil {
			return fmt.Errorf("cluster: %s %s %q: admission: %w", a.Operation, a.Resource, api.Key(obj), err)
		}
	}
	for _, f := range checks {
		if err := f(ctx, a); err != nil {
			return fmt.Errorf("cluster: %s %s %q: %w", a.Operation, a.Resource, api.Key(obj), err)
		}
	}
	return nil
}

// afterMutation is a store that checks an object the mutating phase
// changed.
type afterMutation interface {
	afterMutation(a Attributes) error
}

// afterMutation validates a.Object again after the mutating phase changed
// it: the metadata and the kind's validation, and on an update the
// kind's update validation and the rules of an object being deleted;
// before that, on an update of the object itself (no subresource) whose
// spec the mutating phase changed, it bumps metadata.generation unless
// the write already did.
func (s *Store[T]) afterMutation(a Attributes) error {
	obj, ok := a.Object.(T)
	if !ok {
		return nil
	}
	old, hasOld := a.OldObject.(T)
	m := obj.GetObjectMeta()
	if hasOld && a.Operation == OperationUpdate && a.Subresource == "" && !s.kind.specEqual(old, obj) &&
		m.Generation == old.GetObjectMeta().Generation {
		m.Generation++
	}
	var fs fieldErrors
	validateMeta(m, s.kind.resource, s.kind.namespaced, &fs)
	if s.kind.validate != nil {
		s.kind.validate(obj, &fs)
	}
	if hasOld && s.kind.validateUpdate != nil {
		s.kind.validateUpdate(old, obj, &fs)
	}
	if hasOld {
		s.validateDeleting(old, obj, &fs)
	}
	return fs.err(s.kind.resource, m.Name)
}

// Bind assigns the pod namespace/name to nodeName, as a scheduler's
// Binding does (a pod's spec.nodeName cannot be changed by Update): it
// sets spec.nodeName and the PodScheduled condition, and clears
// status.nominatedNodeName (kube-apiserver's binding with the
// ClearingNominatedNodeNameAfterBinding feature gate, beta and on by
// default since v1.35). A pod already bound,
// or being deleted, is ErrConflict. It returns the resourceVersion of the
// write.
func (c *Cluster) Bind(ctx context.Context, namespace, name, nodeName string) (string, error) {
	if nodeName == "" {
		return "", fmt.Errorf("cluster: bind pod %s/%s: empty node name: %w", namespace, name, ErrBadRequest)
	}
	s := storeOf[*api.Pod](c)
	scratch := &api.Pod{}
	return s.write(ctx, "bind", api.NamespacedKey(namespace, name), "", scratch, func(cur *api.Pod) (*api.Pod, error) {
		if cur.Spec.NodeName != "" {
			return nil, fmt.Errorf("cluster: bind pod %s/%s: pod is already assigned to node %q: %w", namespace, name, cur.Spec.NodeName, source.ErrConflict)
		}
		if cur.DeletionTimestamp != nil {
			return nil, fmt.Errorf("cluster: bind pod %s/%s: pod is being deleted: %w", namespace, name, source.ErrConflict)
		}
		next := cur.DeepCopy()
		next.Spec.NodeName = nodeName
		next.Status.NominatedNodeName = ""
		setPodCondition(&next.Status, api.PodCondition{Type: api.PodScheduled, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(now())})
		return next, nil
	})
}

func setPodCondition(st *api.PodStatus, c api.PodCondition) {
	for i := range st.Conditions {
		if st.Conditions[i].Type == c.Type {
			st.Conditions[i] = c
			return
		}
	}
	st.Conditions = append(st.Conditions, c)
}

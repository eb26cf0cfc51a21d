package admission

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync/atomic"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/source"
)

// listAll lists every object, at the latest version.
var listAll = source.ListOptions{}

func sortedNames(l api.ResourceList) []api.ResourceName { return slices.Sorted(maps.Keys(l)) }

// Priority is kube-apiserver's Priority admission plugin
// (plugin/pkg/admission/priority). Admit (an admission MutatingFunc)
// resolves the spec.priorityClassName of a pod being created into
// spec.priority and spec.preemptionPolicy: the named PriorityClass's
// value and policy, or, for a pod naming none, the global default
// class's (the pod then names it), else priority 0 and
// PreemptLowerPriority. A pod naming a class that does not exist, or
// setting a priority or policy other than its class's, is refused with
// a ForbiddenError ("no PriorityClass with name x was found"). Validate
// (a ValidatingFunc) refuses a second globalDefault class and the
// deletion of the system classes (system-node-critical,
// system-cluster-critical), which EnsureSystemPriorityClasses creates.
//
// Wire it as:
//
//	pr := admission.NewPriority()
//	c, err := cluster.New(ctx, cluster.Options{Mutating: []admission.MutatingFunc{pr.Admit}, Admission: []admission.ValidatingFunc{pr.Validate}})
//	err = pr.SetClient(c)
//	err = admission.EnsureSystemPriorityClasses(ctx, c)
//
// Until SetClient is called it admits everything unchanged.
type Priority struct {
	res atomic.Pointer[client.Resource[*api.PriorityClass]]
}

// NewPriority returns a Priority without a client; see SetClient.
func NewPriority() *Priority { return &Priority{} }

// SetClient sets the client Priority reads PriorityClasses through; an
// error when c does not serve them.
func (p *Priority) SetClient(c client.Client) error {
	res, err := client.For[*api.PriorityClass](c)
	if err != nil {
		return fmt.Errorf("priority: %w", err)
	}
	p.res.Store(&res)
	return nil
}

// SystemPriorityClasses returns the priority classes kube-apiserver
// creates in every cluster: system-node-critical (2000001000) and
// system-cluster-critical (2000000000).
func SystemPriorityClasses() []*api.PriorityClass {
	return []*api.PriorityClass{
		{ObjectMeta: api.ObjectMeta{Name: api.SystemNodeCritical}, Value: api.SystemCriticalPriority + 1000,
			Description: "Used for system critical pods that must not be moved from their current node."},
		{ObjectMeta: api.ObjectMeta{Name: api.SystemClusterCritical}, Value: api.SystemCriticalPriority,
			Description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."},
	}
}

// EnsureSystemPriorityClasses creates the system priority classes that
// c does not hold yet, as kube-apiserver's post-start hook does.
func EnsureSystemPriorityClasses(ctx context.Context, c client.Client) error {
	res, err := client.For[*api.PriorityClass](c)
	if err != nil {
		return fmt.Errorf("priority: %w", err)
	}
	for _, pc := range SystemPriorityClasses() {
		if _, err := res.Create(ctx, pc); err != nil && !errors.Is(err, source.ErrAlreadyExists) {
			return fmt.Errorf("priority: create %s: %w", pc.Name, err)
		}
	}
	return nil
}

// Admit resolves a new pod's priority; see Priority.
func (p *Priority) Admit(ctx context.Context, a Attributes) error {
	pod, ok := a.Object.(*api.Pod)
	res := p.res.Load()
	if !ok || res == nil || a.Operation != Create || a.Subresource != "" {
		return nil
	}
	priority := int32(0)
	policy := api.PreemptLowerPriority
	if pod.Spec.PriorityClassName == "" {
		def, err := p.globalDefault(ctx, *res)
		if err != nil {
			return fmt.Errorf("failed to get default priority class: %w", err)
		}
		if def != nil {
			pod.Spec.PriorityClassName, priority = def.Name, def.Value
			if def.PreemptionPolicy != nil {
				policy = *def.PreemptionPolicy
			}
		}
	} else {
		pc, _, err := (*res).Get(ctx, pod.Spec.PriorityClassName)
		switch {
		case errors.Is(err, source.ErrNotFound):
			return &ForbiddenError{Message: fmt.Sprintf("no PriorityClass with name %s was found", pod.Spec.PriorityClassName)}
		case err != nil:
			return fmt.Errorf("failed to get PriorityClass with name %s: %w", pod.Spec.PriorityClassName, err)
		}
		priority = pc.Value
		if pc.PreemptionPolicy != nil {
			policy = *pc.PreemptionPolicy
		}
	}
	if pod.Spec.Priority != nil && *pod.Spec.Priority != priority {
		return &ForbiddenError{Message: fmt.Sprintf("the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", *pod.Spec.Priority, priority)}
	}
	pod.Spec.Priority = &priority
	if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy != policy {
		return &ForbiddenError{Message: fmt.Sprintf("the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name", *pod.Spec.PreemptionPolicy, policy)}
	}
	pod.Spec.PreemptionPolicy = &policy
	return nil
}

// globalDefault returns the globalDefault class with the lowest value
// (kube's choice when several exist), or nil.
func (p *Priority) globalDefault(ctx context.Context, res client.Resource[*api.PriorityClass]) (*api.PriorityClass, error) {
	list, err := res.List(ctx, listAll)
	if err != nil {
		return nil, err
	}
	var def *api.PriorityClass
	for _, pc := range list.Items {
		if pc.GlobalDefault && (def == nil || pc.Value < def.Value) {
			def = pc
		}
	}
	return def, nil
}

// Validate refuses a second global default class and the deletion of a
// system class; see Priority.
func (p *Priority) Validate(ctx context.Context, a Attributes) error {
	res := p.res.Load()
	if res == nil || a.Resource != "priorityclasses" || a.Subresource != "" {
		return nil
	}
	switch a.Operation {
	case Delete:
		if a.Name == api.SystemNodeCritical || a.Name == api.SystemClusterCritical {
			return &ForbiddenError{Message: "this is a system priority class and cannot be deleted"}
		}
	case Create, Update:
		pc, ok := a.Object.(*api.PriorityClass)
		if !ok || !pc.GlobalDefault {
			return nil
		}
		list, err := (*res).List(ctx, listAll)
		if err != nil {
			return fmt.Errorf("priority: list priority classes: %w", err)
		}
		for _, other := range list.Items {
			if other.GlobalDefault && other.Name != pc.Name {
				return &ForbiddenError{Message: fmt.Sprintf("PriorityClass %s is already marked as default. Only one default can exist", other.Name)}
			}
		}
	}
	return nil
}

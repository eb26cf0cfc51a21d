package controlplane

import (
	"context"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/deployment"
	"github.com/ctrlkit/ctrlkit/controllers/scheduler"
	"github.com/ctrlkit/ctrlkit/source"
)

// Invariant is a property of the cluster checked at every create and
// update the store is about to apply (it runs as the last admission
// step, so it sees the write in a.Object and the state before it in the
// store). A non-nil error from Check is a Violation: recorded, passed to
// OnViolation, and returned by Stop. The write itself still happens —
// an invariant observes the system, it does not change it.
type Invariant struct {
	// Name identifies the invariant in a Violation.
	Name string
	// Check returns an error if the write a breaks the invariant. It
	// may read the stores (not the informers: it sees exactly the state
	// the write applies to).
	Check func(ctx context.Context, c *cluster.Cluster, a cluster.Attributes) error
	// OnViolation, if set, is called with each violation, on the
	// writer's goroutine, before the write is applied (a test calls
	// t.Error here, so the failure names the write that broke it).
	OnViolation func(Violation)
}

// Violation is a write that broke an invariant.
type Violation struct {
	// Invariant is the invariant's name.
	Invariant string
	// Operation, Resource and Key identify the write.
	Operation cluster.Operation
	Resource  string
	Key       string
	// Err is what Check returned.
	Err error
}

// Error describes the violation.
func (v Violation) Error() string {
	return fmt.Sprintf("invariant %s broken by %s %s %s: %v", v.Invariant, v.Operation, v.Resource, v.Key, v.Err)
}

// Unwrap returns Check's error.
func (v Violation) Unwrap() error { return v.Err }

// Violations returns the invariants broken so far, in order.
func (cp *ControlPlane) Violations() []Violation {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return append([]Violation(nil), cp.broken...)
}

func (cp *ControlPlane) checkInvariants(invs []Invariant) cluster.AdmissionFunc {
	return func(ctx context.Context, a cluster.Attributes) error {
		if a.Operation == cluster.OperationDelete {
			return nil // invariants check creates and updates
		}
		for _, inv := range invs {
			if inv.Check == nil {
				continue
			}
			if err := inv.Check(ctx, cp.Cluster, a); err != nil {
				v := Violation{Invariant: inv.Name, Operation: a.Operation, Resource: a.Resource, Key: api.Key(a.Object), Err: err}
				cp.mu.Lock()
				cp.broken = append(cp.broken, v)
				cp.mu.Unlock()
				if inv.OnViolation != nil {
					inv.OnViolation(v)
				}
			}
		}
		return nil
	}
}

// live reports whether a pod holds resources: not terminal, not being
// deleted.
func live(p *api.Pod) bool {
	return p.DeletionTimestamp == nil && p.Status.Phase != api.PodSucceeded && p.Status.Phase != api.PodFailed
}

// NodeNotOvercommitted is the invariant that no bind puts a node's
// pods' requests (cpu, memory, ephemeral storage, pod count) over its
// allocatable: the scheduler's PodFitsResources, checked from outside.
func NodeNotOvercommitted() Invariant {
	return Invariant{Name: "NodeNotOvercommitted", Check: func(ctx context.Context, c *cluster.Cluster, a cluster.Attributes) error {
		if a.Resource != "pods" || a.Subresource != "binding" {
			return nil
		}
		pod := a.Object.(*api.Pod)
		node, _, err := c.Nodes().Get(ctx, pod.Spec.NodeName)
		if err != nil {
			return nil // binding to a missing node is the store's business
		}
		l, err := c.Pods().List(ctx, source.ListOptions{})
		if err != nil {
			return fmt.Errorf("list pods: %w", err)
		}
		used := scheduler.PodRequests(pod, false)
		count := int64(1)
		for _, p := range l.Items {
			if p.Spec.NodeName == pod.Spec.NodeName && live(p) && p.UID != pod.UID {
				used = used.Add(scheduler.PodRequests(p, false))
				count++
			}
		}
		alloc := scheduler.ResourcesFromList(node.Status.Allocatable)
		if q, ok := node.Status.Allocatable[api.ResourcePods]; ok && count > q.Value() {
			return fmt.Errorf("node %s would run %d pods, allocatable %d", node.Name, count, q.Value())
		}
		if used.MilliCPU > alloc.MilliCPU || used.Memory > alloc.Memory || (alloc.EphemeralStorage > 0 && used.EphemeralStorage > alloc.EphemeralStorage) {
			return fmt.Errorf("node %s would have requests %+v over allocatable %+v", node.Name, used, alloc)
		}
		return nil
	}}
}

// DeploymentSurge is the invariant of a rolling update: no ReplicaSet
// of a Deployment is scaled up (created, or its spec.replicas raised)
// so that the replicas of all the Deployment's ReplicaSets add up to
// more than the Deployment's replicas + maxSurge. This is the bound
// kube-controller-manager keeps: it counts the ReplicaSets' replicas,
// not pods, so a pod of a scaled-down ReplicaSet that its controller has
// not deleted yet may briefly stand beside the new ReplicaSet's pods.
func DeploymentSurge() Invariant {
	return Invariant{Name: "DeploymentSurge", Check: func(ctx context.Context, c *cluster.Cluster, a cluster.Attributes) error {
		if a.Resource != "replicasets" || a.Subresource != "" {
			return nil
		}
		rs := a.Object.(*api.ReplicaSet)
		if old, ok := a.OldObject.(*api.ReplicaSet); ok && rsReplicas(rs) <= rsReplicas(old) {
			return nil
		}
		ref := rs.ControllerRef()
		if ref == nil || ref.Kind != "Deployment" {
			return nil
		}
		d, _, err := c.Deployments().Get(ctx, api.NamespacedKey(rs.Namespace, ref.Name))
		if err != nil || d.UID != ref.UID || d.Spec.Strategy.Type == api.RecreateDeploymentStrategyType {
			return nil
		}
		replicas := int32(1)
		if d.Spec.Replicas != nil {
			replicas = *d.Spec.Replicas
		}
		var surge int32
		if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
			if surge, _, err = deployment.ResolveFenceposts(ru.MaxSurge, ru.MaxUnavailable, replicas); err != nil {
				return nil
			}
		}
		rss, err := c.ReplicaSets().List(ctx, source.ListOptions{})
		if err != nil {
			return fmt.Errorf("list replicasets: %w", err)
		}
		sum := rsReplicas(rs)
		for _, r := range rss.Items {
			if r.Namespace == d.Namespace && r.Name != rs.Name && api.IsControlledBy(r, d) {
				sum += rsReplicas(r)
			}
		}
		if sum > replicas+surge {
			return fmt.Errorf("deployment %s would have %d replicas across its ReplicaSets, replicas %d + maxSurge %d", api.Key(d), sum, replicas, surge)
		}
		return nil
	}}
}

func rsReplicas(rs *api.ReplicaSet) int32 {
	if rs.Spec.Replicas == nil {
		return 1
	}
	return *rs.Spec.Replicas
}

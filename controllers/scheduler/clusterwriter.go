package scheduler

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/source"
)

// ClusterWriter is a Binder, a StatusWriter and a VolumeWriter over the client contract,
// as kube-scheduler writes to kube-apiserver: Bind is the pods/binding
// subresource (a client.Binder from client.BinderFor, which refuses a pod
// bound or being deleted meanwhile), SetCondition an UpdateStatus of the
// stored pod through the client's pods resource. A pod's spec.nodeName
// cannot be changed by a plain Update on an API server, so PodWriter does
// not work there.
type ClusterWriter struct {
	// Cluster is the client the scheduler writes to: the in-process
	// cluster, or anything else that serves pods and their binding
	// subresource.
	Cluster client.Client
}

// pods returns the client's pods resource.
func (w ClusterWriter) pods() (client.Resource[*api.Pod], error) {
	pods, err := client.For[*api.Pod](w.Cluster)
	if err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	return pods, nil
}

// Bind implements Binder.
func (w ClusterWriter) Bind(ctx context.Context, pod *api.Pod, node string) error {
	binder, err := client.BinderFor(w.Cluster)
	if err != nil {
		return fmt.Errorf("scheduler: bind %s: %w", api.Key(pod), err)
	}
	if pod.UID != "" {
		pods, err := w.pods()
		if err != nil {
			return err
		}
		cur, _, err := pods.Get(ctx, api.Key(pod))
		if err != nil {
			return fmt.Errorf("scheduler: bind %s: %w", api.Key(pod), err)
		}
		if cur.UID != pod.UID {
			return fmt.Errorf("scheduler: %s was replaced (uid %s, not %s): %w", api.Key(pod), cur.UID, pod.UID, source.ErrConflict)
		}
	}
	_, err = binder.Bind(ctx, pod.Namespace, pod.Name, node)
	if errors.Is(err, source.ErrConflict) {
		return fmt.Errorf("%w: %w", ErrAlreadyBound, err)
	}
	return err
}

// SetCondition implements StatusWriter: an unchanged condition is not
// written, and a pod bound meanwhile is left alone.
func (w ClusterWriter) SetCondition(ctx context.Context, pod *api.Pod, cond api.PodCondition) error {
	pods, err := w.pods()
	if err != nil {
		return err
	}
	key := api.Key(pod)
	for range bindRetries {
		var cur *api.Pod
		if cur, _, err = pods.Get(ctx, key); err != nil {
			return fmt.Errorf("scheduler: %s: %w", key, err)
		}
		if cur.Spec.NodeName != "" || !setCondition(&cur.Status, cond, time.Now()) {
			return nil
		}
		if _, err = pods.UpdateStatus(ctx, cur); !errors.Is(err, source.ErrConflict) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("scheduler: update status of %s: %w", key, err)
	}
	return nil
}

// BindVolume implements VolumeWriter: an Update of the volume through
// the client's persistentvolumes resource, conditioned on pv's
// resourceVersion (a volume changed meanwhile fails with a conflict, and
// the pod is retried).
func (w ClusterWriter) BindVolume(ctx context.Context, pv *api.PersistentVolume, claim *api.PersistentVolumeClaim) (*api.PersistentVolume, error) {
	pvs, err := client.For[*api.PersistentVolume](w.Cluster)
	if err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	cp := pv.DeepCopy()
	if !volumeBoundToClaim(pv, claim) {
		if cp.Annotations == nil {
			cp.Annotations = map[string]string{}
		}
		if _, ok := cp.Annotations[AnnBoundByController]; !ok {
			cp.Annotations[AnnBoundByController] = "yes"
		}
	}
	cp.Spec.ClaimRef = &api.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: claim.Namespace,
		Name: claim.Name, UID: claim.UID, ResourceVersion: claim.ResourceVersion}
	rv, err := pvs.Update(ctx, cp, pv.ResourceVersion)
	if err != nil {
		return nil, fmt.Errorf("scheduler: bind persistentvolume %q to claim %s: %w", pv.Name, api.Key(claim), err)
	}
	cp.ResourceVersion = rv
	return cp, nil
}

// SelectNode implements VolumeWriter: an Update of the claim through the
// client's persistentvolumeclaims resource, conditioned on claim's
// resourceVersion.
func (w ClusterWriter) SelectNode(ctx context.Context, claim *api.PersistentVolumeClaim, node string) (*api.PersistentVolumeClaim, error) {
	pvcs, err := client.For[*api.PersistentVolumeClaim](w.Cluster)
	if err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	cp := claim.DeepCopy()
	if cp.Annotations == nil {
		cp.Annotations = map[string]string{}
	}
	cp.Annotations[AnnSelectedNode] = node
	rv, err := pvcs.Update(ctx, cp, claim.ResourceVersion)
	if err != nil {
		return nil, fmt.Errorf("scheduler: select node %q for claim %s: %w", node, api.Key(claim), err)
	}
	cp.ResourceVersion = rv
	return cp, nil
}

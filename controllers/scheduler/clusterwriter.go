package scheduler

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	apiserver "github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/source"
)

// ClusterWriter is a Binder and a StatusWriter over the cluster store, as
// kube-scheduler writes to kube-apiserver: Bind is the binding subresource
// (Cluster.Bind, which refuses a pod bound or being deleted meanwhile),
// SetCondition an UpdateStatus of the stored pod. A pod's spec.nodeName
// cannot be changed by a plain Update of the cluster store, so PodWriter
// does not work there.
type ClusterWriter struct {
	// Cluster is the store the scheduler writes to.
	Cluster *apiserver.Cluster
}

// Bind implements Binder.
func (w ClusterWriter) Bind(ctx context.Context, pod *api.Pod, node string) error {
	if pod.UID != "" {
		cur, _, err := w.Cluster.Pods().Get(ctx, api.Key(pod))
		if err != nil {
			return fmt.Errorf("scheduler: bind %s: %w", api.Key(pod), err)
		}
		if cur.UID != pod.UID {
			return fmt.Errorf("scheduler: %s was replaced (uid %s, not %s): %w", api.Key(pod), cur.UID, pod.UID, source.ErrConflict)
		}
	}
	_, err := w.Cluster.Bind(ctx, pod.Namespace, pod.Name, node)
	if errors.Is(err, source.ErrConflict) {
		return fmt.Errorf("%w: %w", ErrAlreadyBound, err)
	}
	return err
}

// SetCondition implements StatusWriter: an unchanged condition is not
// written, and a pod bound meanwhile is left alone.
func (w ClusterWriter) SetCondition(ctx context.Context, pod *api.Pod, cond api.PodCondition) error {
	key := api.Key(pod)
	var err error
	for range bindRetries {
		var cur *api.Pod
		if cur, _, err = w.Cluster.Pods().Get(ctx, key); err != nil {
			return fmt.Errorf("scheduler: %s: %w", key, err)
		}
		if cur.Spec.NodeName != "" || !setCondition(&cur.Status, cond, time.Now()) {
			return nil
		}
		if _, err = w.Cluster.Pods().UpdateStatus(ctx, cur); !errors.Is(err, source.ErrConflict) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("scheduler: update status of %s: %w", key, err)
	}
	return nil
}

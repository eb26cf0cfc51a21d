package replicaset

import (
	"errors"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
)

// kind adapts one of the two kinds that keep replicas — ReplicaSet
// (apps/v1, a label selector) and ReplicationController (core/v1, a map
// selector) — to the one replication manager, as kube-controller-manager
// runs its ReplicationManager on the ReplicaSet code through a
// conversion.
type kind[T api.Object] struct {
	name  string // the Kind, as controller references name it
	store client.Resource[T]
	// spec reads what the manager needs of an owner; an error is a bad
	// selector or a missing template.
	spec func(T) (spec, error)
	// status returns the owner's status, as a ReplicaSetStatus.
	status func(T) api.ReplicaSetStatus
	// withStatus returns a deep copy of the owner with status st.
	withStatus func(T, api.ReplicaSetStatus) T
}

func replicaSetKind(c client.Client) (kind[*api.ReplicaSet], error) {
	store, err := client.For[*api.ReplicaSet](c)
	if err != nil {
		return kind[*api.ReplicaSet]{}, err
	}
	return kind[*api.ReplicaSet]{
		name:  "ReplicaSet",
		store: store,
		spec: func(rs *api.ReplicaSet) (spec, error) {
			sel, err := rs.Spec.Selector.AsSelector()
			if err != nil {
				return spec{}, fmt.Errorf("invalid selector: %w", err)
			}
			return spec{
				replicas:        replicasOf(rs.Spec.Replicas),
				minReadySeconds: rs.Spec.MinReadySeconds,
				selector:        sel,
				template:        &rs.Spec.Template,
				generation:      rs.Generation,
			}, nil
		},
		status: func(rs *api.ReplicaSet) api.ReplicaSetStatus { return rs.Status },
		withStatus: func(rs *api.ReplicaSet, st api.ReplicaSetStatus) *api.ReplicaSet {
			cp := rs.DeepCopy()
			cp.Status = st
			return cp
		},
	}, nil
}

func replicationControllerKind(c client.Client) (kind[*api.ReplicationController], error) {
	store, err := client.For[*api.ReplicationController](c)
	if err != nil {
		return kind[*api.ReplicationController]{}, err
	}
	return kind[*api.ReplicationController]{
		name:  "ReplicationController",
		store: store,
		spec: func(rc *api.ReplicationController) (spec, error) {
			if rc.Spec.Template == nil {
				return spec{}, errors.New("spec.template is missing")
			}
			sel := api.Nothing() // the API server requires a selector; no selector selects nothing
			if len(rc.Spec.Selector) > 0 {
				sel = api.SelectorFromSet(rc.Spec.Selector)
			}
			return spec{
				replicas:        replicasOf(rc.Spec.Replicas),
				minReadySeconds: rc.Spec.MinReadySeconds,
				selector:        sel,
				template:        rc.Spec.Template,
				generation:      rc.Generation,
			}, nil
		},
		status: func(rc *api.ReplicationController) api.ReplicaSetStatus {
			s := rc.Status
			return api.ReplicaSetStatus{
				Replicas:             s.Replicas,
				FullyLabeledReplicas: s.FullyLabeledReplicas,
				ReadyReplicas:        s.ReadyReplicas,
				AvailableReplicas:    s.AvailableReplicas,
				ObservedGeneration:   s.ObservedGeneration,
				Conditions:           s.Conditions,
			}
		},
		withStatus: func(rc *api.ReplicationController, st api.ReplicaSetStatus) *api.ReplicationController {
			cp := rc.DeepCopy()
			cp.Status = api.ReplicationControllerStatus{
				Replicas:             st.Replicas,
				FullyLabeledReplicas: st.FullyLabeledReplicas,
				ReadyReplicas:        st.ReadyReplicas,
				AvailableReplicas:    st.AvailableReplicas,
				ObservedGeneration:   st.ObservedGeneration,
				Conditions:           st.Conditions,
			}
			return cp
		},
	}, nil
}

// replicasOf reads spec.replicas, which the API server defaults to 1.
func replicasOf(r *int32) int {
	if r == nil {
		return 1
	}
	return int(*r)
}

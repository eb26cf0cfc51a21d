package cli

import (
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// unready lists what keeps the cluster of s from being settled in the
// sense of `up --once`, as `kubectl rollout status` and `kubectl wait
// --for=condition=Ready` judge it; empty when everything is ready:
//
//   - a pod that has not ended (phase neither Succeeded nor Failed) and
//     is not being deleted is Ready, unless it is bound (or pinned, as a
//     DaemonSet pins its pods by node affinity on metadata.name) to a
//     node that is not Ready: no kubelet reports there (a DaemonSet's pod
//     for a node registered by hand stays Pending). Any other
//     unscheduled pod is not ready;
//   - a Deployment has observed its generation and has spec.replicas
//     updated and available replicas, and no more;
//   - a StatefulSet has observed its generation and has spec.replicas
//     ready replicas.
//
// A quiet cluster is not enough: a pod whose readiness probe waits out
// initialDelaySeconds changes nothing until it passes.
func unready(s Snapshot) []string {
	nodeReady := map[string]bool{}
	for _, n := range s.Nodes {
		c, ok := n.Status.GetCondition(api.NodeReady)
		nodeReady[n.Name] = ok && c.Status == api.ConditionTrue
	}
	var out []string
	for _, p := range s.Pods {
		if p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed || p.DeletionTimestamp != nil || api.IsPodReady(p) {
			continue
		}
		node, pinned := pinnedNode(p)
		switch {
		case pinned && !nodeReady[node]:
			// No kubelet reports there.
		case p.Spec.NodeName == "":
			out = append(out, fmt.Sprintf("pod %s/%s: not scheduled", p.Namespace, p.Name))
		default:
			out = append(out, fmt.Sprintf("pod %s/%s: not ready (%s on %s)", p.Namespace, p.Name, phase(p), p.Spec.NodeName))
		}
	}
	for _, d := range s.Deployments {
		want := replicas(d.Spec.Replicas)
		st := d.Status
		if st.ObservedGeneration < d.Generation || st.UpdatedReplicas != want || st.AvailableReplicas != want || st.Replicas != want {
			out = append(out, fmt.Sprintf("deployment %s/%s: %d of %d replicas updated and available", d.Namespace, d.Name, min(st.UpdatedReplicas, st.AvailableReplicas), want))
		}
	}
	for _, ss := range s.StatefulSets {
		want := replicas(ss.Spec.Replicas)
		st := ss.Status
		if st.ObservedGeneration < ss.Generation || st.ReadyReplicas != want || st.Replicas != want {
			out = append(out, fmt.Sprintf("statefulset %s/%s: %d of %d replicas ready", ss.Namespace, ss.Name, st.ReadyReplicas, want))
		}
	}
	return out
}

func phase(p *api.Pod) string {
	if p.Status.Phase == "" {
		return "Pending"
	}
	return string(p.Status.Phase)
}

// pinnedNode is the node p runs on or must run on: spec.nodeName, else
// the one node its required node affinity names by metadata.name (the
// DaemonSet controller's pin); false when there is none.
func pinnedNode(p *api.Pod) (string, bool) {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName, true
	}
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return "", false
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) != 1 {
		return "", false
	}
	for _, r := range terms[0].MatchFields {
		if r.Key == api.NodeFieldName && r.Operator == api.NodeSelectorOpIn && len(r.Values) == 1 {
			return r.Values[0], true
		}
	}
	return "", false
}

package daemonset

import (
	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// AddDaemonTolerations adds to spec the tolerations the DaemonSet
// controller gives every daemon pod, so that daemons stay on (and are
// placed on) unhealthy nodes — kcm's AddOrUpdateDaemonPodTolerations:
// not-ready and unreachable NoExecute with no tolerationSeconds (so the
// taint-based eviction never evicts them); disk-pressure,
// memory-pressure, pid-pressure and unschedulable NoSchedule; and for a
// hostNetwork pod network-unavailable NoSchedule. A toleration of the
// template with the same key, operator, value and effect is replaced
// (a tolerationSeconds on it is dropped), as AddOrUpdateTolerationInPodSpec
// does.
func AddDaemonTolerations(spec *api.PodSpec) {
	add := func(key string, effect api.TaintEffect) {
		t := api.Toleration{Key: key, Operator: api.TolerationOpExists, Effect: effect}
		for i, cur := range spec.Tolerations {
			if cur.Key == t.Key && cur.Operator == t.Operator && cur.Value == t.Value && cur.Effect == t.Effect {
				spec.Tolerations[i] = t
				return
			}
		}
		spec.Tolerations = append(spec.Tolerations, t)
	}
	add(api.TaintNodeNotReady, api.TaintEffectNoExecute)
	add(api.TaintNodeUnreachable, api.TaintEffectNoExecute)
	add(api.TaintNodeDiskPressure, api.TaintEffectNoSchedule)
	add(api.TaintNodeMemoryPressure, api.TaintEffectNoSchedule)
	add(api.TaintNodePIDPressure, api.TaintEffectNoSchedule)
	add(api.TaintNodeUnschedulable, api.TaintEffectNoSchedule)
	if spec.HostNetwork {
		add(api.TaintNodeNetworkUnavailable, api.TaintEffectNoSchedule)
	}
}

// ShouldRun reports whether ds wants a daemon pod on node (shouldRun) and
// whether a daemon pod already there may stay (shouldContinueRunning):
// kcm's NodeShouldRunDaemonPod. The pod is the template with the daemon
// tolerations (AddDaemonTolerations). A template pinned by spec.nodeName
// to another node, or a node that spec.nodeSelector or the required node
// affinity does not admit, gives false, false. A node with a NoSchedule
// or NoExecute taint the pod does not tolerate gives false for
// shouldRun; shouldContinueRunning stays true unless one of those taints
// is NoExecute (which would evict the pod anyway).
func ShouldRun(ds *api.DaemonSet, node *api.Node) (shouldRun, shouldContinueRunning bool) {
	pod := newPod(ds, node.Name)
	if n := ds.Spec.Template.Spec.NodeName; n != "" && n != node.Name {
		return false, false
	}
	if !api.PodMatchesNode(pod, node) {
		return false, false
	}
	taints := node.Spec.Taints
	if _, untolerated := api.FindUntoleratedTaint(taints, pod.Spec.Tolerations, api.TaintEffectNoSchedule, api.TaintEffectNoExecute); untolerated {
		_, evicted := api.FindUntoleratedTaint(taints, pod.Spec.Tolerations, api.TaintEffectNoExecute)
		return false, !evicted
	}
	return true, true
}

// newPod is the pod ShouldRun checks against node: the template, in the
// daemon set's namespace, on node, with the daemon tolerations (kcm's
// NewPod).
func newPod(ds *api.DaemonSet, nodeName string) *api.Pod {
	t := ds.Spec.Template.DeepCopy()
	pod := &api.Pod{ObjectMeta: t.ObjectMeta, Spec: t.Spec}
	pod.Namespace = ds.Namespace
	pod.Spec.NodeName = nodeName
	AddDaemonTolerations(&pod.Spec)
	return pod
}

// targetNodeName is the node a daemon pod is for: spec.nodeName once
// bound, else the single metadata.name of an In requirement of its
// required node affinity's matchFields (kcm's GetTargetNodeName); false
// when there is none.
func targetNodeName(p *api.Pod) (string, bool) {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName, true
	}
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return "", false
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, r := range term.MatchFields {
			if r.Key == api.NodeFieldName && r.Operator == api.NodeSelectorOpIn {
				if len(r.Values) != 1 {
					return "", false
				}
				return r.Values[0], true
			}
		}
	}
	return "", false
}

// pinToNode returns affinity with its required node affinity replaced by
// the single term "metadata.name In [node]", keeping the pod and pod
// anti-affinity and the preferred node terms (kcm's
// ReplaceDaemonSetPodNodeNameNodeAffinity). The controller has already
// checked that node satisfies the template's own terms, so nothing is
// lost; the scheduler then places the pod on that node.
func pinToNode(affinity *api.Affinity, node string) *api.Affinity {
	sel := &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
		MatchFields: []api.NodeSelectorRequirement{{Key: api.NodeFieldName, Operator: api.NodeSelectorOpIn, Values: []string{node}}},
	}}}
	if affinity == nil {
		affinity = &api.Affinity{}
	}
	if affinity.NodeAffinity == nil {
		affinity.NodeAffinity = &api.NodeAffinity{}
	}
	affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = sel
	return affinity
}

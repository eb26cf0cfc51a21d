package daemonset

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// simpleDaemonSetLabel and friends are the labels of kcm's
// daemon_controller_test.go.
var (
	simpleDaemonSetLabel  = map[string]string{"name": "simple-daemon", "type": "production"}
	simpleDaemonSetLabel2 = map[string]string{"name": "simple-daemon", "type": "test"}
	simpleNodeLabel       = map[string]string{"color": "blue", "speed": "fast"}
)

type dsOpt func(*api.DaemonSet)

// newDaemonSet is kcm's newDaemonSet: selector and template labels
// simpleDaemonSetLabel, RollingUpdate.
func newDaemonSet(opts ...dsOpt) *api.DaemonSet {
	ds := &api.DaemonSet{TypeMeta: api.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: api.ObjectMeta{Name: "foo", Namespace: "default", UID: "ds-uid", Generation: 1}}
	ds.Spec.Selector = &api.LabelSelector{MatchLabels: simpleDaemonSetLabel}
	ds.Spec.Template.Labels = simpleDaemonSetLabel
	ds.Spec.Template.Spec.Containers = []api.Container{{Name: "foo", Image: "foo/bar"}}
	ds.Spec.UpdateStrategy.Type = RollingUpdateStrategy
	for _, o := range opts {
		o(ds)
	}
	return ds
}

func withNodeSelector(sel map[string]string) dsOpt {
	return func(ds *api.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = sel }
}
func withTolerations(ts ...api.Toleration) dsOpt {
	return func(ds *api.DaemonSet) { ds.Spec.Template.Spec.Tolerations = ts }
}
func withMaxUnavailable(v api.IntOrString) dsOpt {
	return func(ds *api.DaemonSet) {
		if ds.Spec.UpdateStrategy.RollingUpdate == nil {
			ds.Spec.UpdateStrategy.RollingUpdate = &api.RollingUpdateDaemonSet{}
		}
		ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = &v
	}
}
func withMaxSurge(v api.IntOrString) dsOpt {
	return func(ds *api.DaemonSet) {
		if ds.Spec.UpdateStrategy.RollingUpdate == nil {
			ds.Spec.UpdateStrategy.RollingUpdate = &api.RollingUpdateDaemonSet{}
		}
		ds.Spec.UpdateStrategy.RollingUpdate.MaxSurge = &v
	}
}

type nodeOpt func(*api.Node)

func newNode(name string, opts ...nodeOpt) *api.Node {
	n := &api.Node{ObjectMeta: api.ObjectMeta{Name: name}}
	n.Status.Conditions = []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionTrue}}
	for _, o := range opts {
		o(n)
	}
	return n
}

func labelled(l map[string]string) nodeOpt { return func(n *api.Node) { n.Labels = l } }
func tainted(ts ...api.Taint) nodeOpt      { return func(n *api.Node) { n.Spec.Taints = ts } }
func notReady(n *api.Node) {
	n.Status.Conditions = []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionFalse}}
}

// addNodes is kcm's addNodes: count nodes node-start … with labels.
func addNodes(start, count int, l map[string]string) []*api.Node {
	var out []*api.Node
	for i := start; i < start+count; i++ {
		out = append(out, newNode(fmt.Sprintf("node-%d", i), labelled(l)))
	}
	return out
}

type podOpt func(*api.Pod)

// podFor is a daemon pod of ds bound to node (kcm's newPod), created an
// hour before t0 plus a sequence number of seconds, Running, labelled
// with the current hash "new" as kcm's newPod labels its pods.
func podFor(seq *int, ds *api.DaemonSet, node string, l map[string]string, opts ...podOpt) *api.Pod {
	*seq++
	podSeq := *seq
	opts = append([]podOpt{hashed("new")}, opts...)
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("%s-%s-%03d", ds.Name, node, podSeq), Namespace: ds.Namespace,
		UID: api.UID(fmt.Sprintf("pod-uid-%d", podSeq)), Labels: l,
		CreationTimestamp: api.NewTime(t0.Add(-time.Hour + time.Duration(podSeq)*time.Second)),
		OwnerReferences:   []api.OwnerReference{api.NewControllerRef(ds)}}}
	p.Spec.NodeName = node
	p.Status.Phase = api.PodRunning
	p.Labels = maps.Clone(l)
	for _, o := range opts {
		o(p)
	}
	return p
}

// addPods is kcm's addPods: n pods of ds on node with labels l.
func addPods(seq *int, ds *api.DaemonSet, node string, l map[string]string, n int, opts ...podOpt) []*api.Pod {
	var out []*api.Pod
	for range n {
		out = append(out, podFor(seq, ds, node, l, opts...))
	}
	return out
}

func failed(p *api.Pod)    { p.Status.Phase = api.PodFailed }
func succeeded(p *api.Pod) { p.Status.Phase = api.PodSucceeded }
func deleting(p *api.Pod) {
	ts := api.NewTime(t0)
	p.DeletionTimestamp = &ts
}
func ready(p *api.Pod) {
	p.Status.Conditions = append(p.Status.Conditions, api.PodCondition{Type: api.PodReady, Status: api.ConditionTrue,
		LastTransitionTime: api.NewTime(t0.Add(-10 * time.Minute))})
}
func readySince(d time.Duration) podOpt {
	return func(p *api.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, api.PodCondition{Type: api.PodReady, Status: api.ConditionTrue,
			LastTransitionTime: api.NewTime(t0.Add(-d))})
	}
}
func hashed(h string) podOpt {
	return func(p *api.Pod) {
		p.Labels = maps.Clone(p.Labels)
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Labels[api.LabelControllerRevisionHash] = h
	}
}

// pinned makes p an unscheduled daemon pod pinned to node by affinity.
func pinned(node string) podOpt {
	return func(p *api.Pod) {
		p.Spec.NodeName = ""
		p.Spec.Affinity = pinToNode(nil, node)
		p.Status.Phase = api.PodPending
	}
}

func concat[T any](xs ...[]T) []T { return slices.Concat(xs...) }

func noBackoff(string) (time.Duration, bool) { return 0, false }

// testView is a view at t0 with burst 250, no back-off and hash "new".
func testView(ds *api.DaemonSet, nodes []*api.Node, pods []*api.Pod) view {
	// Claim as the shell does: only pods the selector picks.
	sel, _ := ds.Spec.Selector.AsSelector()
	var claimed []*api.Pod
	for _, p := range pods {
		if sel.Matches(p.Labels) {
			claimed = append(claimed, p)
		}
	}
	return view{ds: ds, nodes: nodes, pods: claimed, hash: "new", burst: DefaultBurstReplicas, backoff: noBackoff, now: t0}
}

func podNames(ps []*api.Pod) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

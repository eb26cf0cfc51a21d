package daemonset

import (
	"slices"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// view is what one sync of a daemon set decides from: the set, every
// node, the daemon pods it controls, the hash of its current revision,
// its failed-pod back-off, and the time.
type view struct {
	ds    *api.DaemonSet
	nodes []*api.Node // every node of the cluster
	// pods are the pods ds controls, without those both terminal and
	// being deleted (getNodesToDaemonPods with includeDeletedTerminal
	// false).
	pods  []*api.Pod
	hash  string // the controller-revision-hash of the current revision
	burst int    // burstReplicas
	// backoff reports whether deleting a failed pod of ds on node waits,
	// and for how long: the per-(set, node) back-off.
	backoff func(node string) (delay time.Duration, waiting bool)
	now     time.Time
}

// plan is what a sync does: creates, deletes and back-off steps.
type plan struct {
	// create lists the nodes that get a new daemon pod, at most burst.
	create []string
	// delete lists the pods to delete, at most burst.
	delete []*api.Pod
	// failed are the Failed pods among delete (a FailedDaemonPod event each).
	failed []*api.Pod
	// backoffNext lists the nodes whose failed-pod back-off advances.
	backoffNext []string
	// requeue is the shortest back-off a failed pod waits (0: none).
	requeue time.Duration
}

// decide is one sync's pod management, kcm's manage followed — when
// manage has nothing to do, as kcm's expectations make it — by the
// update strategy's step (rollingUpdate; OnDelete has none). Both lists
// are cut to burst, as syncNodes does.
func decide(v view) plan {
	byNode := podsByNode(v.pods)
	p := manage(v, byNode)
	if len(p.create) == 0 && len(p.delete) == 0 && isRollingUpdate(v.ds) {
		p.delete, p.create = rollingUpdate(v, byNode)
	}
	if len(p.create) > v.burst {
		p.create = p.create[:v.burst]
	}
	if len(p.delete) > v.burst {
		p.delete = p.delete[:v.burst]
	}
	return p
}

// podsByNode groups pods by the node they are for (targetNodeName); a
// pod for no node is left out, as kcm leaves it.
func podsByNode(pods []*api.Pod) map[string][]*api.Pod {
	m := make(map[string][]*api.Pod)
	for _, p := range pods {
		if n, ok := targetNodeName(p); ok {
			m[n] = append(m[n], p)
		}
	}
	for _, ps := range m {
		slices.SortFunc(ps, byCreation)
	}
	return m
}

// byCreation orders daemon pods oldest first, scheduled ones before
// unscheduled ones, ties by name (kcm's podByCreationTimestampAndPhase).
func byCreation(a, b *api.Pod) int {
	if sa, sb := a.Spec.NodeName != "", b.Spec.NodeName != ""; sa != sb {
		if sa {
			return -1
		}
		return 1
	}
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// sortedNodes returns the nodes by name: kcm walks its lister's order;
// a fixed order makes the decisions reproducible.
func sortedNodes(nodes []*api.Node) []*api.Node {
	out := slices.Clone(nodes)
	slices.SortFunc(out, func(a, b *api.Node) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// manage is kcm's manage and podsShouldBeOnNode, node by node:
//
//   - should run, no daemon pod: create one;
//   - may continue running: a Failed pod is deleted (unless its node's
//     back-off holds it: then the set is requeued when it ends), a
//     Succeeded one too; of the others, without surge all but the
//     oldest are deleted; with surge, the oldest pod of the current
//     revision and the oldest of an older one are kept, the rest deleted,
//     and of those two the old one goes once it is not ready or the new
//     one is available; a node left with no pod that should run gets one;
//   - must not run, has pods: every pod not being deleted is deleted.
//
// Last, pods never scheduled for nodes that no longer exist are deleted
// (getUnscheduledPodsWithoutNode). Pods bound to a node that is gone are
// left to the pod garbage collector, as in kcm.
func manage(v view, byNode map[string][]*api.Pod) plan {
	var p plan
	surge := allowsSurge(v.ds)
	exists := make(map[string]bool, len(v.nodes))
	for _, node := range sortedNodes(v.nodes) {
		exists[node.Name] = true
		shouldRun, shouldContinue := ShouldRun(v.ds, node)
		pods, has := byNode[node.Name]
		switch {
		case shouldRun && !has:
			p.create = append(p.create, node.Name)
		case shouldContinue:
			var running []*api.Pod
			for _, pod := range pods {
				switch {
				case pod.DeletionTimestamp != nil:
				case pod.Status.Phase == api.PodFailed:
					if d, waiting := v.backoff(node.Name); waiting {
						if p.requeue == 0 || d < p.requeue {
							p.requeue = d
						}
						continue
					}
					p.backoffNext = append(p.backoffNext, node.Name)
					p.delete = append(p.delete, pod)
					p.failed = append(p.failed, pod)
				case pod.Status.Phase == api.PodSucceeded:
					p.delete = append(p.delete, pod)
				default:
					running = append(running, pod)
				}
			}
			if !surge {
				if len(running) > 1 {
					p.delete = append(p.delete, running[1:]...)
				}
				continue
			}
			if len(running) <= 1 {
				if len(running) == 0 && shouldRun {
					p.create = append(p.create, node.Name)
				}
				continue
			}
			var oldestNew, oldestOld *api.Pod
			for _, pod := range running {
				switch {
				case pod.Labels[api.LabelControllerRevisionHash] == v.hash && oldestNew == nil:
					oldestNew = pod
				case pod.Labels[api.LabelControllerRevisionHash] != v.hash && oldestOld == nil:
					oldestOld = pod
				default:
					p.delete = append(p.delete, pod)
				}
			}
			if oldestNew != nil && oldestOld != nil &&
				(!api.IsPodReady(oldestOld) || isAvailable(oldestNew, v.ds.Spec.MinReadySeconds, v.now)) {
				p.delete = append(p.delete, oldestOld)
			}
		case has: // neither should run nor may continue
			for _, pod := range pods {
				if pod.DeletionTimestamp == nil {
					p.delete = append(p.delete, pod)
				}
			}
		}
	}
	var gone []string
	for n := range byNode {
		if !exists[n] {
			gone = append(gone, n)
		}
	}
	slices.Sort(gone)
	for _, n := range gone {
		for _, pod := range byNode[n] {
			if pod.Spec.NodeName == "" {
				p.delete = append(p.delete, pod)
			}
		}
	}
	return p
}

// isRollingUpdate reports whether ds updates its pods itself.
func isRollingUpdate(ds *api.DaemonSet) bool {
	return ds.Spec.UpdateStrategy.Type == "" || ds.Spec.UpdateStrategy.Type == RollingUpdateStrategy
}

// surgeCount is maxSurge resolved against n nodes, rounded up; 0 unless
// the strategy is RollingUpdate with maxSurge set (kcm's SurgeCount).
func surgeCount(ds *api.DaemonSet, n int) int {
	r := ds.Spec.UpdateStrategy.RollingUpdate
	if !isRollingUpdate(ds) || r == nil || r.MaxSurge == nil {
		return 0
	}
	s, err := r.MaxSurge.ScaledValue(n, true)
	if err != nil {
		return 0
	}
	return s
}

// unavailableCount is maxUnavailable resolved against n nodes, rounded
// up (kcm's UnavailableCount): its default is 1, which the API server
// writes into the spec; an unset value here counts as that default.
func unavailableCount(ds *api.DaemonSet, n int) int {
	if !isRollingUpdate(ds) {
		return 0
	}
	r := ds.Spec.UpdateStrategy.RollingUpdate
	if r == nil || r.MaxUnavailable == nil {
		return 1
	}
	u, err := r.MaxUnavailable.ScaledValue(n, true)
	if err != nil {
		return 0
	}
	return u
}

// allowsSurge reports whether ds may run two pods on a node during an
// update (kcm's AllowsSurge).
func allowsSurge(ds *api.DaemonSet) bool { return surgeCount(ds, 1) > 0 }

// isAvailable is kcm's IsPodAvailable: ready, and with minReadySeconds,
// ready since strictly more than that before now.
func isAvailable(p *api.Pod, minReadySeconds int32, now time.Time) bool {
	at, ok := availableAt(p, minReadySeconds)
	return ok && (minReadySeconds == 0 || now.After(at))
}

// availableAt returns when the ready pod p becomes available; ok is
// false for a pod that is not ready (or ready with no transition time
// while minReadySeconds > 0).
func availableAt(p *api.Pod, minReadySeconds int32) (time.Time, bool) {
	if !api.IsPodReady(p) {
		return time.Time{}, false
	}
	if minReadySeconds == 0 {
		return time.Time{}, true
	}
	c, _ := p.Status.GetCondition(api.PodReady)
	if c.LastTransitionTime.IsZero() {
		return time.Time{}, false
	}
	return c.LastTransitionTime.Add(time.Duration(minReadySeconds) * time.Second), true
}

// isUpdated reports whether pod runs the current revision: its
// controller-revision-hash label is hash (kcm's IsPodUpdated; the
// deprecated pod-template-generation label is not consulted).
func isUpdated(pod *api.Pod, hash string) bool {
	return hash != "" && pod.Labels[api.LabelControllerRevisionHash] == hash
}

package daemonset

import (
	"slices"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// rollingUpdate is kcm's rollingUpdate: the pods to delete and the nodes
// to create a pod on that move the set towards its current revision.
//
// Without surge (maxSurge 0) it deletes old pods and lets the next
// manage create their replacements: a node with no pod, with both an
// old and a new pod, with excess pods, or with a new pod not yet
// available counts as unavailable; an old pod that is not available is
// replaced at once (and counts as unavailable); old available pods are
// replaced while fewer than maxUnavailable nodes are unavailable.
//
// With surge it creates a new pod beside the old one first: at once
// where the old pod is not available, else on up to maxSurge nodes at a
// time (a node whose new pod is not yet available counts); an old pod is
// deleted once the new pod beside it is available; an old pod on a node
// that no longer should run one is deleted while enough pods elsewhere
// are available.
//
// Nodes are walked by name, where kcm walks a map in random order.
func rollingUpdate(v view, byNode map[string][]*api.Pod) (del []*api.Pod, create []string) {
	nodes := make(map[string]*api.Node, len(v.nodes))
	desired := 0
	names := make([]string, 0, len(byNode))
	for n := range byNode {
		names = append(names, n)
	}
	for _, node := range v.nodes {
		nodes[node.Name] = node
		if shouldRun, _ := ShouldRun(v.ds, node); shouldRun {
			desired++
			if _, ok := byNode[node.Name]; !ok {
				names = append(names, node.Name)
			}
		}
	}
	slices.Sort(names)
	maxSurge, maxUnavailable := fenceposts(v.ds, desired)
	minReady := v.ds.Spec.MinReadySeconds

	if maxSurge == 0 {
		unavailable := 0
		var replace, candidates []*api.Pod
		for _, n := range names {
			newPod, oldPod, ok := updatedPodsOnNode(byNode[n], v.hash)
			switch {
			case !ok: // excess pods: manage prunes them
				unavailable++
			case (oldPod == nil) == (newPod == nil):
				unavailable++ // manage creates or deletes here
			case newPod != nil:
				if !isAvailable(newPod, minReady, v.now) {
					unavailable++
				}
			case !isAvailable(oldPod, minReady, v.now):
				replace = append(replace, oldPod) // and it counts: kcm's numUnavailable++
				unavailable++
			case unavailable >= maxUnavailable:
			default:
				candidates = append(candidates, oldPod)
			}
		}
		room := min(max(maxUnavailable-unavailable, 0), len(candidates))
		return append(replace, candidates[:room]...), nil
	}

	var shouldNotRun, candidates []string
	var shouldNotRunPods []*api.Pod
	surging, available := 0, 0
	for _, n := range names {
		newPod, oldPod, ok := updatedPodsOnNode(byNode[n], v.hash)
		if !ok {
			surging++
			continue
		}
		switch {
		case oldPod != nil:
			if isAvailable(oldPod, minReady, v.now) {
				available++
			}
		case newPod != nil:
			if isAvailable(newPod, minReady, v.now) {
				available++
			}
		}
		switch {
		case oldPod == nil: // manage handles it
		case newPod == nil:
			node := nodes[n]
			shouldRun := false
			if node != nil {
				shouldRun, _ = ShouldRun(v.ds, node)
			}
			switch {
			case !isAvailable(oldPod, minReady, v.now):
				if !shouldRun {
					del = append(del, oldPod)
					continue
				}
				create = append(create, n)
			case !shouldRun:
				shouldNotRun = append(shouldNotRun, n)
				shouldNotRunPods = append(shouldNotRunPods, oldPod)
			case surging >= maxSurge:
			default:
				candidates = append(candidates, n)
			}
		default:
			if !isAvailable(newPod, minReady, v.now) {
				surging++
				continue
			}
			del = append(del, oldPod)
		}
	}
	if deletable := min(available-desired, len(shouldNotRun)); deletable > 0 {
		del = append(del, shouldNotRunPods[:deletable]...)
	}
	room := min(max(maxSurge-surging, 0), len(candidates))
	return del, append(create, candidates[:room]...)
}

// updatedPodsOnNode returns the node's one pod of the current revision
// and its one pod of an older revision, ignoring pods being deleted; ok
// is false when there are more than one of either (kcm's
// findUpdatedPodsOnNode).
func updatedPodsOnNode(pods []*api.Pod, hash string) (newPod, oldPod *api.Pod, ok bool) {
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		if isUpdated(p, hash) {
			if newPod != nil {
				return nil, nil, false
			}
			newPod = p
		} else {
			if oldPod != nil {
				return nil, nil, false
			}
			oldPod = p
		}
	}
	return newPod, oldPod, true
}

// fenceposts resolves maxSurge and maxUnavailable against the desired
// number of nodes (kcm's updatedDesiredNodeCounts): both round up; a
// configuration allowing neither falls back to maxUnavailable 1.
func fenceposts(ds *api.DaemonSet, desired int) (maxSurge, maxUnavailable int) {
	maxSurge, maxUnavailable = surgeCount(ds, desired), unavailableCount(ds, desired)
	if desired > 0 && maxSurge == 0 && maxUnavailable == 0 {
		maxUnavailable = 1
	}
	return maxSurge, maxUnavailable
}

package podgc

import (
	"cmp"
	"slices"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Reason says why a pod is deleted.
type Reason string

// The reasons.
const (
	// Terminated: a finished pod beyond the threshold.
	Terminated Reason = "Terminated"
	// Orphaned: its node does not exist.
	Orphaned Reason = "Orphaned"
	// UnscheduledTerminating: being deleted, never scheduled.
	UnscheduledTerminating Reason = "UnscheduledTerminating"
)

// Deletion is one pod to delete and why.
type Deletion struct {
	Pod    *api.Pod
	Reason Reason
}

// Decision is what one pass decides.
type Decision struct {
	// Delete are the pods to delete now.
	Delete []Deletion
	// Quarantine are the missing nodes to start quarantining now.
	Quarantine []string
	// Confirm are the nodes whose quarantine is over: read them live,
	// and delete their pods if they are still missing.
	Confirm []string
}

// Decide is one pass of the collector over the cached pods and nodes at
// now. quarantined holds when each missing node entered quarantine.
func Decide(pods []*api.Pod, nodeExists func(name string) bool, quarantined map[string]time.Time,
	threshold int, quarantine time.Duration, now time.Time) Decision {
	var d Decision
	if threshold > 0 {
		var done []*api.Pod
		for _, p := range pods {
			if terminal(p) && p.DeletionTimestamp == nil {
				done = append(done, p)
			}
		}
		if extra := len(done) - threshold; extra > 0 {
			slices.SortStableFunc(done, func(a, b *api.Pod) int {
				if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
					return c
				}
				return cmp.Compare(api.Key(a), api.Key(b))
			})
			for _, p := range done[:extra] {
				d.Delete = append(d.Delete, Deletion{p, Terminated})
			}
		}
	}
	missing := map[string]bool{}
	for _, p := range pods {
		switch n := p.Spec.NodeName; {
		case n == "" && p.DeletionTimestamp != nil:
			d.Delete = append(d.Delete, Deletion{p, UnscheduledTerminating})
		case n != "" && !nodeExists(n) && !missing[n]:
			missing[n] = true
			since, ok := quarantined[n]
			switch {
			case !ok:
				d.Quarantine = append(d.Quarantine, n)
			case now.Sub(since) >= quarantine:
				d.Confirm = append(d.Confirm, n)
			}
		}
	}
	slices.Sort(d.Quarantine)
	slices.Sort(d.Confirm)
	return d
}

// OnNode returns the pods bound to node.
func OnNode(pods []*api.Pod, node string) []*api.Pod {
	var out []*api.Pod
	for _, p := range pods {
		if p.Spec.NodeName == node {
			out = append(out, p)
		}
	}
	return out
}

func terminal(p *api.Pod) bool {
	return p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed
}

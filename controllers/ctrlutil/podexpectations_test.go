package ctrlutil_test

import (
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/ctrlutil"
	"github.com/ctrlkit/ctrlkit/expectations"
	"github.com/ctrlkit/ctrlkit/informer"
)

// Each pod counts once for its creation and once for its deletion,
// whichever notifications of it arrive (kube-controller-manager's
// addPod/updatePod/deletePod of the ReplicaSet controller, with the
// coalescing of a lagging handler on top).
func TestPodExpectations(t *testing.T) {
	deleting := func(p *api.Pod) {
		ts := api.NewTime(now)
		p.DeletionTimestamp = &ts
	}
	owned := func(p *api.Pod) { p.Labels = map[string]string{"owner": "rs"} }
	type step struct {
		op  string // add, update, delete
		pod *api.Pod
	}
	a, aGoing := newPod("a", owned), newPod("a", owned, deleting)
	orphan := newPod("o")
	for _, tc := range []struct {
		name             string
		steps            []step
		wantAdd, wantDel int // outstanding of an expectation of 1 creation and of a's deletion
	}{
		{"add", []step{{"add", a}}, 0, 1},
		{"add then delete", []step{{"add", a}, {"delete", a}}, 0, 0},
		{"delete without add (coalesced)", []step{{"delete", a}}, 0, 0},
		{"deletion timestamp then delete counts once", []step{{"add", a}, {"update", aGoing}, {"update", aGoing}, {"delete", aGoing}}, 0, 0},
		{"added while being deleted", []step{{"add", aGoing}}, 0, 0},
		{"add twice counts once", []step{{"add", a}, {"update", a}}, 0, 1},
		{"orphans observe nothing", []step{{"add", orphan}, {"delete", orphan}}, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exp, err := expectations.NewUIDTracking(expectations.Options{Logger: slog.New(slog.DiscardHandler)})
			require.NoError(t, err)
			pe := ctrlutil.NewPodExpectations(exp, func(p *api.Pod) (string, bool) {
				return "default/rs", p.Labels["owner"] == "rs"
			}, ctrlutil.PodExpectationsOptions{})
			exp.ExpectDeletions("default/rs", []string{string(a.UID)})
			exp.RaiseExpectations("default/rs", 1, 0)
			var calls []string
			h := pe.Wrap(informer.HandlerFuncs[*api.Pod]{
				AddFunc:    func(p *api.Pod, _ bool) { calls = append(calls, "add "+p.Name) },
				UpdateFunc: func(_, p *api.Pod) { calls = append(calls, "update "+p.Name) },
				DeleteFunc: func(p *api.Pod, _ bool) { calls = append(calls, "delete "+p.Name) },
			})
			for _, s := range tc.steps {
				switch s.op {
				case "add":
					h.OnAdd(s.pod, false)
				case "update":
					h.OnUpdate(s.pod, s.pod)
				case "delete":
					h.OnDelete(s.pod, false)
				}
			}
			add, del, ok := exp.Get("default/rs")
			require.True(t, ok)
			require.Equal(t, tc.wantAdd, add, "creations outstanding")
			require.Equal(t, tc.wantDel, del, "deletions outstanding")
			require.Len(t, calls, len(tc.steps), "the wrapped handler sees every notification")
		})
	}
}

// ByName observes creations by name: only the names expected count.
func TestPodExpectationsByName(t *testing.T) {
	exp, err := expectations.NewUIDTracking(expectations.Options{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	exp.ExpectCreationsOf("default/job", []string{"job-0", "job-1"})
	pe := ctrlutil.NewPodExpectations(exp, func(*api.Pod) (string, bool) { return "default/job", true },
		ctrlutil.PodExpectationsOptions{ByName: true})
	pe.OnAdd(newPod("job-0"), false)
	pe.OnAdd(newPod("stranger"), false)
	pe.OnDelete(newPod("job-0"), true)
	add, _, _ := exp.Get("default/job")
	require.Equal(t, 1, add, "job-1 is still awaited")
	require.Equal(t, 1, pe.Len(), "job-0 is forgotten once deleted; stranger is still tracked")
}

// A ReplicaSet-like controller lowers its expectations from its pod
// handler: the pod's add observes the creation, the deletion timestamp
// its deletion, and the final delete nothing more.
func ExamplePodExpectations() {
	exp, _ := expectations.NewUIDTracking(expectations.Options{Logger: slog.New(slog.DiscardHandler)})
	pe := ctrlutil.NewPodExpectations(exp, func(p *api.Pod) (string, bool) {
		ref := p.ControllerRef()
		if ref == nil {
			return "", false
		}
		return api.NamespacedKey(p.Namespace, ref.Name), true
	}, ctrlutil.PodExpectationsOptions{})
	show := func(when string) {
		add, del, _ := exp.Get("default/web")
		fmt.Printf("%s: %d creations, %d deletions outstanding\n", when, add, del)
	}

	rs := &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", UID: "u1"}}
	pod := ctrlutil.PodFromTemplate(&api.PodTemplateSpec{}, rs)
	pod.Name, pod.UID = "web-abcde", "p1"
	exp.ExpectCreations("default/web", 1)
	show("created")
	pe.OnAdd(pod, false)
	show("added")

	exp.ExpectDeletions("default/web", []string{"p1"})
	going := pod.DeepCopy()
	ts := api.NewTime(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
	going.DeletionTimestamp = &ts
	pe.OnUpdate(pod, going)
	show("terminating")
	pe.OnDelete(going, false)
	show("gone")
	// Output:
	// created: 1 creations, 0 deletions outstanding
	// added: 0 creations, 0 deletions outstanding
	// terminating: 0 creations, 0 deletions outstanding
	// gone: 0 creations, 0 deletions outstanding
}

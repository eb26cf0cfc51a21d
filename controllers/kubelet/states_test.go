package kubelet

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// podStates behaves as a map by key over random adds, replacements and
// removals, and stays ordered by namespace, then name.
func TestPodStatesAsMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var ps podStates
	model := map[string]*podState{}
	for i := range 2000 {
		ns := []string{"", "a", "default", "kube-system"}[rng.IntN(4)]
		name := fmt.Sprintf("p%d", rng.IntN(40))
		key := api.NamespacedKey(ns, name)
		switch rng.IntN(3) {
		case 0, 1:
			s := &podState{namespace: ns, podName: name, uid: api.UID(fmt.Sprint(i))}
			ps.add(s)
			model[key] = s
		case 2:
			if s := model[key]; s != nil {
				ps.remove(s)
				delete(model, key)
			} else {
				ps.remove(&podState{namespace: ns, podName: name}) // absent: a no-op
			}
		}
		if got := ps.get(key); got != model[key] {
			t.Fatalf("step %d: get(%q) = %p, want %p", i, key, got, model[key])
		}
		if len(ps) != len(model) {
			t.Fatalf("step %d: %d states, want %d", i, len(ps), len(model))
		}
	}
	for key, s := range model {
		if ps.get(key) != s {
			t.Errorf("get(%q): not its state", key)
		}
	}
	if !slices.IsSortedFunc(ps, func(a, b *podState) int {
		if c := strings.Compare(a.namespace, b.namespace); c != 0 {
			return c
		}
		return strings.Compare(a.podName, b.podName)
	}) {
		t.Error("not ordered by namespace, then name")
	}
}

package garbagecollector

import (
	"context"
	"slices"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/api/apitest"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/informer"
)

func cm(ns, name, uid string) objectRef {
	return objectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns, Name: name, UID: api.UID(uid)}
}

func cmRef(name, uid string, blocking bool) api.OwnerReference {
	return api.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: name, UID: api.UID(uid), BlockOwnerDeletion: &blocking}
}

func add(id objectRef, owners ...api.OwnerReference) graphEvent {
	return graphEvent{typ: addEvent, id: id, owners: owners}
}

// TestGraph runs scripted event sequences through the graph and checks
// the work each last event queues (kcm's GraphBuilder.processGraphChanges
// cases in garbagecollector_test.go: TestProcessEvent and the virtual
// node scenarios of TestConflictingData).
func TestGraph(t *testing.T) {
	owner, dep, dep2 := cm("default", "owner", "o"), cm("default", "dep", "d"), cm("default", "dep2", "d2")
	tests := []struct {
		name        string
		events      []graphEvent
		wantDelete  []api.UID
		wantOrphan  []api.UID
		wantInvalid int
		check       func(t *testing.T, g *graph)
	}{
		{
			name:   "dependent of an observed owner: nothing to check",
			events: []graphEvent{add(owner), add(dep, cmRef("owner", "o", true))},
		},
		{
			name:       "dependent of an unobserved owner: a virtual owner, and the dependent is checked",
			events:     []graphEvent{add(dep, cmRef("owner", "o", true))},
			wantDelete: []api.UID{"d"},
			check: func(t *testing.T, g *graph) {
				if n := g.nodes["o"]; n == nil || !n.virtual || n.id.Namespace != "default" {
					t.Errorf("owner node = %+v, want virtual in default", n)
				}
			},
		},
		{
			name:   "the virtual owner is observed: it becomes real",
			events: []graphEvent{add(dep, cmRef("owner", "o", true)), add(owner)},
			check: func(t *testing.T, g *graph) {
				if n := g.nodes["o"]; n == nil || n.virtual || len(n.dependents) != 1 {
					t.Errorf("owner node = %+v, want observed with one dependent", n)
				}
			},
		},
		{
			name:   "a virtual owner left without dependents leaves the graph",
			events: []graphEvent{add(dep, cmRef("owner", "o", true)), {typ: deleteEvent, id: dep}},
			check: func(t *testing.T, g *graph) {
				if len(g.nodes) != 0 {
					t.Errorf("graph holds %v", g.nodes)
				}
			},
		},
		{
			name:       "owner deleted: its dependents are attempted",
			events:     []graphEvent{add(owner), add(dep2, cmRef("owner", "o", false)), add(dep, cmRef("owner", "o", true)), {typ: deleteEvent, id: owner}},
			wantDelete: []api.UID{"d", "d2"},
		},
		{
			name: "owner enters foreground deletion: its dependents and itself are attempted",
			events: []graphEvent{add(owner), add(dep, cmRef("owner", "o", true)),
				{typ: updateEvent, id: owner, deleting: true, finalizers: []string{cluster.FinalizerDeleteDependents}}},
			wantDelete: []api.UID{"d", "o"},
		},
		{
			name: "a second update in foreground deletion queues nothing more",
			events: []graphEvent{add(owner), add(dep, cmRef("owner", "o", true)),
				{typ: updateEvent, id: owner, deleting: true, finalizers: []string{cluster.FinalizerDeleteDependents}},
				{typ: updateEvent, id: owner, deleting: true, finalizers: []string{cluster.FinalizerDeleteDependents, "x"}}},
		},
		{
			name: "owner enters orphan deletion: it is queued to orphan",
			events: []graphEvent{add(owner), add(dep, cmRef("owner", "o", true)),
				{typ: updateEvent, id: owner, deleting: true, finalizers: []string{cluster.FinalizerOrphanDependents}}},
			wantOrphan: []api.UID{"o"},
		},
		{
			name: "a blocking dependent of a foreground owner goes: the owner is attempted",
			events: []graphEvent{add(owner), add(dep, cmRef("owner", "o", true)),
				{typ: updateEvent, id: owner, deleting: true, finalizers: []string{cluster.FinalizerDeleteDependents}},
				{typ: deleteEvent, id: dep}},
			wantDelete: []api.UID{"o"},
		},
		{
			name: "a dependent stops blocking a foreground owner: the owner is attempted",
			events: []graphEvent{add(owner), add(dep, cmRef("owner", "o", true)),
				{typ: updateEvent, id: owner, deleting: true, finalizers: []string{cluster.FinalizerDeleteDependents}},
				{typ: updateEvent, id: dep, owners: []api.OwnerReference{cmRef("owner", "o", false)}}},
			wantDelete: []api.UID{"o"},
		},
		{
			name: "a dependent drops its blocking reference: the foreground owner is attempted",
			events: []graphEvent{add(owner), add(dep, cmRef("owner", "o", true)),
				{typ: updateEvent, id: owner, deleting: true, finalizers: []string{cluster.FinalizerDeleteDependents}},
				{typ: updateEvent, id: dep}},
			wantDelete: []api.UID{"o"},
			check: func(t *testing.T, g *graph) {
				if len(g.nodes["o"].dependents) != 0 {
					t.Error("the owner still lists the dependent")
				}
			},
		},
		{
			name:        "dependent in another namespace than its observed owner: invalid, checked",
			events:      []graphEvent{add(cm("other", "owner", "o")), add(dep, cmRef("owner", "o", true))},
			wantDelete:  []api.UID{"d"},
			wantInvalid: 1,
		},
		{
			name:        "owner observed after its dependent, in another namespace: invalid, checked",
			events:      []graphEvent{add(dep, cmRef("owner", "o", true)), add(cm("other", "owner", "o"))},
			wantDelete:  []api.UID{"d"},
			wantInvalid: 1,
		},
		{
			name: "cluster-scoped owner of a namespaced dependent: valid",
			events: []graphEvent{add(objectRef{APIVersion: "v1", Kind: "Node", Name: "n1", UID: "n"}),
				add(dep, api.OwnerReference{APIVersion: "v1", Kind: "Node", Name: "n1", UID: "n"})},
		},
		{
			name: "a virtual cluster-scoped owner has no namespace",
			events: []graphEvent{add(dep, api.OwnerReference{APIVersion: "v1", Kind: "Node", Name: "n1", UID: "n"}),
				add(objectRef{APIVersion: "v1", Kind: "Node", Name: "n1", UID: "n"})},
			check: func(t *testing.T, g *graph) {
				if n := g.nodes["n"]; n.virtual || n.id.Namespace != "" {
					t.Errorf("node = %+v", n.id)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGraph()
			var fx graphEffects
			for _, ev := range tt.events {
				fx = g.process(ev)
			}
			slices.Sort(fx.attemptToDelete)
			if !slices.Equal(fx.attemptToDelete, tt.wantDelete) {
				t.Errorf("attemptToDelete = %v, want %v", fx.attemptToDelete, tt.wantDelete)
			}
			if !slices.Equal(fx.attemptToOrphan, tt.wantOrphan) {
				t.Errorf("attemptToOrphan = %v, want %v", fx.attemptToOrphan, tt.wantOrphan)
			}
			if len(fx.invalidNamespace) != tt.wantInvalid {
				t.Errorf("invalidNamespace = %v, want %d", fx.invalidNamespace, tt.wantInvalid)
			}
			if tt.check != nil {
				tt.check(t, g)
			}
		})
	}
}

// TestNewWatchesEveryKind checks that New watches every kind
// controllers/api defines and every kind added with api.Register
// (apitest's, among others), so that no owner goes unobserved.
func TestNewWatchesEveryKind(t *testing.T) {
	c, err := cluster.New(context.Background(), cluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	gc, err := New(c, informer.NewFactory(informer.FactoryOptions{}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	kinds := api.Registered()
	for _, k := range kinds {
		if _, ok := gc.lookupKind(k.APIVersion(), k.Kind); !ok {
			t.Errorf("%s is not watched", k.GroupVersionKind)
		}
	}
	if !slices.ContainsFunc(kinds, func(k api.KindInfo) bool { return k.GroupVersionKind == apitest.WidgetGVK }) {
		t.Error("apitest's Widget is not registered")
	}
	if len(gc.kinds) != len(kinds) {
		t.Errorf("%d kinds watched, want %d", len(gc.kinds), len(kinds))
	}
}

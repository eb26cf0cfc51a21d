package clienttest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/source"
)

// NewClient returns the client a subtest runs against. It may return a
// fresh client each time or the same one: every subtest works in
// namespaces of its own. The client must serve the namespaces default,
// kube-system and kube-public and every built-in kind; whatever it
// starts must stop with t.Cleanup.
type NewClient func(t *testing.T) client.Client

// testCase is one subtest of the suite.
type testCase struct {
	name string
	fn   func(t *testing.T, e *env)
}

// suite returns the subtests in the order Run runs them.
func suite() []testCase {
	return []testCase{
		{"Create", testCreate},
		{"CreateGenerateName", testCreateGenerateName},
		{"CreateInvalid", testCreateInvalid},
		{"CreateMissingNamespace", testCreateMissingNamespace},
		{"Get", testGet},
		{"UpdateConflict", testUpdateConflict},
		{"UpdateUnconditional", testUpdateUnconditional},
		{"UpdateNoop", testUpdateNoop},
		{"UpdateGeneration", testUpdateGeneration},
		{"UpdateIgnoresStatus", testUpdateIgnoresStatus},
		{"UpdateUIDPrecondition", testUpdateUIDPrecondition},
		{"UpdateStatus", testUpdateStatus},
		{"UpdateStatusConflict", testUpdateStatusConflict},
		{"PatchMerge", testPatchMerge},
		{"PatchJSON", testPatchJSON},
		{"PatchStrategicMerge", testPatchStrategicMerge},
		{"PatchConflict", testPatchConflict},
		{"PatchTestFails", testPatchTestFails},
		{"DeletePreconditions", testDeletePreconditions},
		{"DeleteBackground", testDeleteBackground},
		{"DeleteOrphan", testDeleteOrphan},
		{"DeleteForeground", testDeleteForeground},
		{"DeleteFinalizer", testDeleteFinalizer},
		{"DeletePodGraceful", testDeletePodGraceful},
		{"SelectNamespace", testSelectNamespace},
		{"SelectLabels", testSelectLabels},
		{"SelectFieldName", testSelectFieldName},
		{"SelectFieldNodeName", testSelectFieldNodeName},
		{"SelectLeaving", testSelectLeaving},
		{"WatchFromList", testWatchFromList},
		{"SelectBadRequest", testSelectBadRequest},
		{"Scale", testScale},
		{"ScaleConflict", testScaleConflict},
		{"ScaleUnsupported", testScaleUnsupported},
		{"Predicates", testPredicates},
	}
}

// Cases returns the names of the suite's subtests, in the order Run runs
// them (for go test -run Suite/Name).
func Cases() []string {
	s := suite()
	names := make([]string, len(s))
	for i, c := range s {
		names[i] = c.name
	}
	return names
}

// Run runs the suite against the clients newClient returns, each case
// as a subtest in namespaces it creates (named clienttest-<random>-<n>,
// so runs against a shared server do not collide).
func Run(t *testing.T, newClient NewClient) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	run := &runState{id: hex.EncodeToString(b[:])}
	for _, c := range suite() {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			t.Cleanup(cancel)
			c.fn(t, &env{run: run, ctx: ctx, c: newClient(t)})
		})
	}
}

// runState is what the subtests of one Run share: the names they take.
type runState struct {
	id string
	n  atomic.Int64
}

// env is a subtest's client and context.
type env struct {
	run *runState
	ctx context.Context
	c   client.Client
}

// eventWait bounds each wait for a watch event.
const eventWait = 15 * time.Second

// resource returns c's Resource[T] or fails the test.
func resource[T api.Object](t *testing.T, e *env) client.Resource[T] {
	t.Helper()
	r, err := client.For[T](e.c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// namespace creates a namespace of the subtest's own and its "default"
// service account (kube-apiserver's ServiceAccount admission refuses
// pods without one, and no controller makes it here).
func (e *env) namespace(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("clienttest-%s-%d", e.run.id, e.run.n.Add(1))
	_, err := resource[*api.Namespace](t, e).Create(e.ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name}})
	must(t, err)
	sa := &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Namespace: name, Name: "default"}}
	if _, err := resource[*api.ServiceAccount](t, e).Create(e.ctx, sa); err != nil && !client.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	return name
}

// missingNamespace returns the name of a namespace that does not exist.
func (e *env) missingNamespace() string {
	return fmt.Sprintf("clienttest-%s-missing-%d", e.run.id, e.run.n.Add(1))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// predicates are the contract's error predicates, by name.
var predicates = []struct {
	name string
	is   func(error) bool
}{
	{"IsNotFound", client.IsNotFound},
	{"IsAlreadyExists", client.IsAlreadyExists},
	{"IsConflict", client.IsConflict},
	{"IsInvalid", client.IsInvalid},
	{"IsForbidden", client.IsForbidden},
	{"IsBadRequest", client.IsBadRequest},
	{"IsGone", client.IsGone},
	{"IsTooLarge", client.IsTooLarge},
	{"IsTooManyRequests", client.IsTooManyRequests},
	{"IsServerTimeout", client.IsServerTimeout},
}

// classify returns the names of the predicates err satisfies.
func classify(err error) []string {
	var names []string
	for _, p := range predicates {
		if p.is(err) {
			names = append(names, p.name)
		}
	}
	return names
}

// wantErr fails the test unless err satisfies the predicate named want
// and no other.
func wantErr(t *testing.T, what string, err error, want string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want %s", what, want)
		return
	}
	if got := classify(err); len(got) != 1 || got[0] != want {
		t.Errorf("%s: %v is %v, want exactly %s", what, err, got, want)
	}
}

// next returns the next event of events, failing the test when none
// arrives within eventWait or the channel closes.
func next[T api.Object](t *testing.T, e *env, events <-chan source.Event[T]) source.Event[T] {
	t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, eventWait)
	defer cancel()
	select {
	case ev, ok := <-events:
		if !ok {
			t.Fatal("the watch closed")
		}
		if ev.Type == source.Error {
			t.Fatalf("watch error: %v", ev.Err)
		}
		return ev
	case <-ctx.Done():
		t.Fatal("no watch event in time")
	}
	panic("unreachable")
}

// nextChange is next, skipping bookmarks.
func nextChange[T api.Object](t *testing.T, e *env, events <-chan source.Event[T]) source.Event[T] {
	t.Helper()
	for {
		if ev := next(t, e, events); ev.Type != source.Bookmark {
			return ev
		}
	}
}

// expect fails the test unless ev is of type typ for the object name.
func expect[T api.Object](t *testing.T, ev source.Event[T], typ source.EventType, name string) {
	t.Helper()
	var got string
	if v := reflect.ValueOf(ev.Object); v.IsValid() && !v.IsNil() {
		got = ev.Object.GetObjectMeta().Name
	}
	if ev.Type != typ || got != name {
		t.Fatalf("event %v %q, want %v %q", ev.Type, got, typ, name)
	}
}

// watch watches the objects that opts selects from version rv.
func watch[T api.Object](t *testing.T, e *env, r client.Resource[T], opts client.SelectOptions, rv string) <-chan source.Event[T] {
	t.Helper()
	lw, err := r.Select(opts)
	must(t, err)
	events, err := lw.Watch(e.ctx, source.WatchOptions{ResourceVersion: rv})
	must(t, err)
	return events
}

// names returns the sorted names of items.
func names[T api.Object](items []T) string {
	n := make([]string, len(items))
	for i, o := range items {
		n[i] = o.GetObjectMeta().Name
	}
	slices.Sort(n)
	return strings.Join(n, ",")
}

// Pod returns a minimal valid pod.
func Pod(namespace, name string, labels map[string]string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1.27"}}},
	}
}

// Deployment returns a minimal valid deployment selecting app=name.
func Deployment(namespace, name string) *api.Deployment {
	l := map[string]string{"app": name}
	return &api.Deployment{
		ObjectMeta: api.ObjectMeta{Namespace: namespace, Name: name},
		Spec: api.DeploymentSpec{
			Selector: &api.LabelSelector{MatchLabels: l},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: l},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1.27"}}},
			},
		},
	}
}

// ConfigMap returns a config map holding data.
func ConfigMap(namespace, name string, data map[string]string) *api.ConfigMap {
	return &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: namespace, Name: name}, Data: data}
}

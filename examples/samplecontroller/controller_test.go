package main

// The tests of kubernetes/sample-controller's controller_test.go
// (TestCreatesDeployment, TestDoNothing, TestUpdateDeployment,
// TestNotControlledByUs), ported: a fixture preloads the sources, syncs
// the informers, calls the sync handler once and compares the writes a
// fake.Recorder saw with the expected ones — client-go's fake clientset
// actions, typed.

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/informer"
)

type fixture struct {
	t           *testing.T
	foos        []*Foo
	deployments []*api.Deployment
	// the writes the sync is expected to make
	fooActions []fake.Action[*Foo]
	depActions []fake.Action[*api.Deployment]
}

func newFoo(name string, replicas int32) *Foo {
	return &Foo{
		TypeMeta:   api.TypeMeta{APIVersion: fooGVK.APIVersion()},
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       FooSpec{DeploymentName: name + "-deployment", Replicas: &replicas},
	}
}

func (f *fixture) run(key string, expectError bool) *events.Memory {
	var rec *events.Memory
	synctest.Test(f.t, func(t *testing.T) {
		ctx := t.Context()
		quiet := slog.New(slog.DiscardHandler)
		cl, err := newCluster(quiet)
		require.NoError(t, err)
		for _, foo := range f.foos {
			_, err := cl.foos.Create(ctx, foo.DeepCopy())
			require.NoError(t, err)
		}
		for _, d := range f.deployments {
			_, err := cl.deployments.Create(ctx, d.DeepCopy())
			require.NoError(t, err)
		}
		fooRec := fake.NewRecorder[*Foo](cl.foos, api.Key[*Foo])
		depRec := fake.NewRecorder[*api.Deployment](cl.deployments, api.Key[*api.Deployment])
		rec = events.NewMemory()
		c, err := NewController(cl.fooInf, cl.depInf, fooRec, depRec, rec, quiet)
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() { _ = cl.fooInf.Run(ctx) }()
		go func() { _ = cl.depInf.Run(ctx) }()
		require.True(t, informer.WaitForCacheSync(ctx, cl.fooInf.HasSynced, cl.depInf.HasSynced))

		_, err = c.sync(ctx, key)
		if expectError {
			require.Error(t, err)
		} else {
			require.NoError(t, err)
		}
		checkActions(t, "foos", f.fooActions, fooRec.Actions())
		checkActions(t, "deployments", f.depActions, depRec.Actions())
	})
	return rec
}

// checkActions compares verbs, keys and objects; the versions the source
// stamped into the written objects are not compared.
func checkActions[T api.Object](t *testing.T, what string, want, got []fake.Action[T]) {
	t.Helper()
	require.Len(t, got, len(want), "%s: %v", what, got)
	for i := range want {
		require.Equal(t, want[i].Verb, got[i].Verb, "%s action %d", what, i)
		require.Equal(t, want[i].Key, got[i].Key, "%s action %d", what, i)
		w, g := want[i].Object.DeepCopyObject(), got[i].Object.DeepCopyObject()
		w.SetResourceVersion("")
		g.SetResourceVersion("")
		require.Equal(t, w, g, "%s action %d object", what, i)
	}
}

func (f *fixture) expectCreateDeployment(d *api.Deployment) {
	f.depActions = append(f.depActions, fake.Action[*api.Deployment]{Verb: fake.VerbCreate, Key: api.Key(d), Object: d})
}

func (f *fixture) expectUpdateDeployment(d *api.Deployment) {
	f.depActions = append(f.depActions, fake.Action[*api.Deployment]{Verb: fake.VerbUpdate, Key: api.Key(d), Object: d})
}

func (f *fixture) expectUpdateFooStatus(foo *Foo) {
	f.fooActions = append(f.fooActions, fake.Action[*Foo]{Verb: fake.VerbUpdate, Key: api.Key(foo), Object: foo})
}

func TestCreatesDeployment(t *testing.T) {
	f := &fixture{t: t}
	foo := newFoo("test", 1)
	f.foos = append(f.foos, foo)
	f.expectCreateDeployment(newDeployment(foo))
	f.expectUpdateFooStatus(foo)
	rec := f.run("default/test", false)
	require.Equal(t, []string{"Normal Synced Foo synced successfully"}, rec.Strings())
}

func TestDoNothing(t *testing.T) {
	f := &fixture{t: t}
	foo := newFoo("test", 1)
	f.foos = append(f.foos, foo)
	f.deployments = append(f.deployments, newDeployment(foo))
	f.expectUpdateFooStatus(foo)
	f.run("default/test", false)
}

func TestUpdateDeployment(t *testing.T) {
	f := &fixture{t: t}
	foo := newFoo("test", 1)
	d := newDeployment(foo)
	foo.Spec.Replicas = ptr(int32(2))
	f.foos = append(f.foos, foo)
	f.deployments = append(f.deployments, d)
	f.expectUpdateDeployment(newDeployment(foo))
	f.expectUpdateFooStatus(foo)
	f.run("default/test", false)
}

func TestNotControlledByUs(t *testing.T) {
	f := &fixture{t: t}
	foo := newFoo("test", 1)
	d := newDeployment(foo)
	d.OwnerReferences = nil
	f.foos = append(f.foos, foo)
	f.deployments = append(f.deployments, d)
	rec := f.run("default/test", true)
	require.Equal(t, []string{fmt.Sprintf("Warning ErrResourceExists "+MessageResourceExists, d.Name)}, rec.Strings())
}

func ptr[T any](v T) *T { return &v }

// The demo runs to its end (in virtual time: its polling waits cost
// nothing).
func TestRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) { require.NoError(t, run()) })
}

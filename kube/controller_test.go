package kube_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/sample-apiserver/pkg/apis/wardle/v1alpha1"

	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/kube"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// defaultReference is the controller of TestControllerEndToEnd's
// decision: the reference a Flunder should have, and whether it must
// be written.
func defaultReference(f *v1alpha1.Flunder) (string, bool) {
	if f.Spec.Reference != "" {
		return f.Spec.Reference, false
	}
	return "self-" + f.Name, true
}

// TestControllerEndToEnd runs a small ctrlkit controller against the
// real server, shaped as a client-go controller is (informer from a
// factory, handlers that queue keys, a worker, a lister) but on ctrlkit:
// every Flunder without spec.reference gets "self-<name>", written with
// the cached object's resourceVersion as precondition (a conflict
// retries the key).
func TestControllerEndToEnd(t *testing.T) {
	ctx := t.Context()
	ns := newNamespace("controller")
	src := flunders(t, ns)

	factory := informer.NewFactory(informer.FactoryOptions{})
	inf, err := informer.Shared[*v1alpha1.Flunder](factory, "flunders", kube.Ordered[*v1alpha1.Flunder]{Source: src}, kube.Key, informer.Options[*v1alpha1.Flunder]{})
	require.NoError(t, err)
	q := workqueue.New(workqueue.Options[string]{Name: "flunders"})
	_, err = inf.AddEventHandler(informer.HandlerFuncs[*v1alpha1.Flunder]{
		AddFunc:    func(f *v1alpha1.Flunder, _ bool) { q.Add(kube.Key(f)) },
		UpdateFunc: func(_, f *v1alpha1.Flunder) { q.Add(kube.Key(f)) },
		DeleteFunc: func(f *v1alpha1.Flunder, _ bool) { q.Add(kube.Key(f)) },
	}, informer.HandlerOptions{})
	require.NoError(t, err)

	// Objects before the controller starts and after.
	for _, name := range []string{"a", "b"} {
		_, err := src.Create(ctx, newFlunder(ns, name, ""))
		require.NoError(t, err)
	}
	_, err = src.Create(ctx, newFlunder(ns, "kept", "other"))
	require.NoError(t, err)

	runCtx, stop := context.WithCancel(ctx)
	factory.Start(runCtx)
	require.True(t, factory.WaitForCacheSync(ctx))
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			key, shutdown := q.Get()
			if shutdown {
				return
			}
			err := func() error {
				f, ok := inf.Lister().Get(key)
				if !ok {
					return nil // deleted
				}
				ref, write := defaultReference(f)
				if !write {
					return nil
				}
				f = f.DeepCopy() // never write to the cache
				f.Spec.Reference = ref
				_, err := src.Update(runCtx, f, "") // precondition: f's resourceVersion
				return err
			}()
			if err != nil && runCtx.Err() == nil {
				q.AddRateLimited(key)
			} else {
				q.Forget(key)
			}
			q.Done(key)
		}
	})
	t.Cleanup(func() {
		stop()
		q.ShutDown()
		wg.Wait()
		factory.Shutdown()
	})

	_, err = src.Create(ctx, newFlunder(ns, "c", ""))
	require.NoError(t, err)

	want := map[string]string{"a": "self-a", "b": "self-b", "c": "self-c", "kept": "other"}
	// A poll on a real server, bounded by 10s: the writes go through it.
	require.Eventually(t, func() bool {
		for name, ref := range want {
			f, ok := inf.Lister().Get(ns + "/" + name)
			if !ok || f.Spec.Reference != ref {
				return false
			}
		}
		return true
	}, 10*time.Second, 10*time.Millisecond)
	for name, ref := range want {
		f, _, err := src.Get(ctx, ns+"/"+name)
		require.NoError(t, err)
		require.Equal(t, ref, f.Spec.Reference, name)
	}
}

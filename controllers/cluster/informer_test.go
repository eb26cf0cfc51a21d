package cluster_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/cluster/clustertest"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// An informer over a selection ends equal to the selection, whatever
// moves objects into and out of it, and its handlers hear the
// transitions as adds and deletes.
func TestInformerOverSelection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		c := newMemory(t, cluster.Options{})
		lw, err := c.Pods().Select(cluster.SelectOptions{LabelSelector: "app=web", FieldSelector: "spec.nodeName="})
		if err != nil {
			t.Fatal(err)
		}
		inf, err := informer.New[*api.Pod](lw, api.Key[*api.Pod], informer.Options[*api.Pod]{})
		if err != nil {
			t.Fatal(err)
		}
		present := map[string]bool{}
		_, err = inf.AddEventHandler(informer.HandlerFuncs[*api.Pod]{
			AddFunc:    func(p *api.Pod, _ bool) { present[api.Key(p)] = true },
			DeleteFunc: func(p *api.Pod, _ bool) { delete(present, api.Key(p)) },
		}, informer.HandlerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { defer close(done); inf.Run(ctx) }()

		rng := rand.New(rand.NewPCG(1, 2))
		for i := range 300 {
			name := fmt.Sprintf("p%d", rng.IntN(20))
			key := "default/" + name
			p, _, err := c.Pods().Get(ctx, key)
			switch {
			case err != nil:
				app := []string{"web", "db"}[rng.IntN(2)]
				_, err = c.Pods().Create(ctx, clustertest.Pod("default", name, map[string]string{"app": app}))
			case rng.IntN(5) == 0:
				_, err = c.Pods().DeleteWith(ctx, key, cluster.DeleteOptions{GracePeriodSeconds: new(int64)})
			case rng.IntN(5) == 0 && p.Spec.NodeName == "":
				_, err = c.Bind(ctx, "default", name, "n1")
			default:
				p.Labels["app"] = []string{"web", "db"}[rng.IntN(2)]
				_, err = c.Pods().Update(ctx, p, "")
			}
			if err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
			if i%50 == 0 {
				synctest.Wait()
			}
		}
		// A watch opened from the informer's first List can find the
		// hub started after a later write (expired): the reflector then
		// relists after its backoff, as client-go's does. Let (virtual)
		// time pass for it; synctest.Wait alone does not advance the clock.
		time.Sleep(10 * time.Second)
		synctest.Wait()
		want, err := lw.List(ctx, source.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if inf.Lister().Len() != len(want.Items) || len(present) != len(want.Items) {
			t.Fatalf("cache %d, handler %d, selection %d", inf.Lister().Len(), len(present), len(want.Items))
		}
		for _, p := range want.Items {
			got, ok := inf.Lister().Get(api.Key(p))
			if !ok || got.ResourceVersion != p.ResourceVersion || !present[api.Key(p)] {
				t.Errorf("%s: cached %v at %v, want %s", api.Key(p), ok, got, p.ResourceVersion)
			}
		}
		cancel()
		<-done
	})
}

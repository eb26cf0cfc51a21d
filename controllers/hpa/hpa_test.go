package hpa_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/controllers/hpa"
	"github.com/ctrlkit/ctrlkit/controllers/manager"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

type change struct {
	at       time.Duration
	replicas int32
}

// A Deployment of 2 at 20% cpu on a 50% target, min 2, max 10: a step
// to 90% scales 2 → 4 → 8 → 10 as the new pods become ready and the
// rate policies allow; a drop to 10% scales down only once the 300 s
// stabilization window has passed, to the minimum.
func TestLoadStep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		quiet := slog.New(slog.DiscardHandler)
		cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 3,
			// This test runs its own autoscaler over its own load.
			Manager: manager.Options{Controllers: []string{"*", "-horizontalpodautoscaling"}}})
		if err != nil {
			t.Fatal(err)
		}
		c := cp.Cluster
		load := hpa.NewLoad(c.Pods())
		load.SetUtilization("default", 20)
		f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
		h, err := hpa.New(c, f, hpa.Options{Metrics: load, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		f.Start(ctx)
		var wg sync.WaitGroup
		wg.Go(func() {
			if err := h.Run(ctx); !errors.Is(err, context.Canceled) {
				t.Errorf("Run: %v", err)
			}
		})
		defer func() {
			cancel()
			wg.Wait()
			f.Shutdown()
			if err := cp.Stop(); err != nil {
				t.Error(err)
			}
		}()
		two := int32(2)
		d := &api.Deployment{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
			Spec: api.DeploymentSpec{Replicas: &two, Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
				Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
					Spec: api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: "nginx",
						Resources: api.ResourceRequirements{Requests: api.ResourceList{"cpu": api.MustParse("200m")}}}}}}}}
		if _, err := c.Deployments().Create(ctx, d); err != nil {
			t.Fatal(err)
		}
		fifty := int32(50)
		if _, err := c.HorizontalPodAutoscalers().Create(ctx, &api.HorizontalPodAutoscaler{
			ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
			Spec: api.HorizontalPodAutoscalerSpec{ScaleTargetRef: api.CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"},
				MinReplicas: &two, MaxReplicas: 10,
				Metrics: []api.MetricSpec{{Type: "Resource", Resource: &api.ResourceMetricSource{Name: api.ResourceCPU,
					Target: api.MetricTarget{Type: "Utilization", AverageUtilization: &fifty}}}}},
		}); err != nil {
			t.Fatal(err)
		}
		// Record every change of the Deployment's spec.replicas.
		start := time.Now()
		var mu sync.Mutex
		changes := []change{{0, 2}}
		w, err := c.Deployments().Watch(ctx, source.WatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			for ev := range w {
				if ev.Object == nil || ev.Object.Spec.Replicas == nil {
					continue
				}
				mu.Lock()
				if n := *ev.Object.Spec.Replicas; n != changes[len(changes)-1].replicas {
					changes = append(changes, change{time.Since(start), n})
				}
				mu.Unlock()
			}
		})
		snapshot := func() []change {
			mu.Lock()
			defer mu.Unlock()
			return append([]change(nil), changes...)
		}

		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if got := snapshot(); len(got) != 1 {
			t.Fatalf("at 20%%: %v, want no scaling", got)
		}
		got, _, err := c.HorizontalPodAutoscalers().Get(ctx, "default/web")
		if err != nil {
			t.Fatal(err)
		}
		if u := got.Status.CurrentMetrics; len(u) != 1 || *u[0].Resource.Current.AverageUtilization != 20 {
			t.Errorf("current metrics %+v, want 20%%", u)
		}

		stepAt := time.Since(start)
		load.SetUtilization("default", 90)
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		up := snapshot()
		var seq []int32
		for _, ch := range up {
			seq = append(seq, ch.replicas)
		}
		if want := []int32{2, 4, 8, 10}; !equal(seq, want) {
			t.Fatalf("scale-up %v (%v), want %v", seq, up, want)
		}
		for i := 1; i < len(up); i++ {
			if up[i].at < stepAt {
				t.Errorf("scaled before the load step: %v", up)
			}
			if i > 1 && up[i].at-up[i-1].at < 15*time.Second {
				t.Errorf("two scale-ups within one 15 s period: %v", up)
			}
		}
		got, _, err = c.HorizontalPodAutoscalers().Get(ctx, "default/web")
		if err != nil {
			t.Fatal(err)
		}
		if c := cond(got, hpa.ScalingLimited); c.Status != api.ConditionTrue || c.Reason != "TooManyReplicas" {
			t.Errorf("at the max: ScalingLimited %+v, want True TooManyReplicas", c)
		}
		if got.Status.DesiredReplicas != 10 || got.Status.LastScaleTime == nil {
			t.Errorf("status %+v", got.Status)
		}

		t.Logf("scale-up: %v (load step at %v)", up, stepAt)
		dropAt := time.Since(start)
		load.SetUtilization("default", 10)
		time.Sleep(4 * time.Minute)
		synctest.Wait()
		if got := snapshot(); len(got) != len(up) {
			t.Fatalf("scaled down within the stabilization window: %v", got[len(up):])
		}
		time.Sleep(3 * time.Minute)
		synctest.Wait()
		down := snapshot()[len(up):]
		if len(down) != 1 || down[0].replicas != 2 {
			t.Fatalf("scale-down %v, want one step to the minimum 2", down)
		}
		t.Logf("scale-down: %v (drop at %v)", down, dropAt)
		if d := down[0].at - dropAt; d < 285*time.Second || d > 330*time.Second {
			t.Errorf("scaled down %v after the drop, want about the 300 s window", d)
		}
	})
}

func equal(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func cond(h *api.HorizontalPodAutoscaler, typ string) api.HorizontalPodAutoscalerCondition {
	for _, c := range h.Status.Conditions {
		if c.Type == typ {
			return c
		}
	}
	return api.HorizontalPodAutoscalerCondition{}
}

package hpa_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/hpa"
	"github.com/ctrlkit/ctrlkit/informer"
)

// Targets of every kind are brought within min and max without
// metrics; a target whose pods report nothing leaves ScalingActive
// False with the reason.
func TestTargetsAndBounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		c, err := cluster.New(ctx, cluster.Options{})
		if err != nil {
			t.Fatal(err)
		}
		stop := startWithTargets(t, ctx, cancel, c, c)
		defer stop()
		n := func(v int32) *int32 { return &v }
		sel, tmpl := targetSelector(), targetTemplate()
		if _, err := c.Deployments().Create(ctx, &api.Deployment{ObjectMeta: api.ObjectMeta{Name: "dep", Namespace: "default"},
			Spec: api.DeploymentSpec{Replicas: n(2), Selector: sel, Template: tmpl}}); err != nil {
			t.Fatal(err)
		}
		for _, a := range []struct {
			kind, name string
			min, max   int32
		}{{"ReplicaSet", "rs", 3, 10}, {"StatefulSet", "sts", 1, 5}, {"Deployment", "dep", 1, 5}} {
			if _, err := c.HorizontalPodAutoscalers().Create(ctx, &api.HorizontalPodAutoscaler{
				ObjectMeta: api.ObjectMeta{Name: a.name, Namespace: "default"},
				Spec: api.HorizontalPodAutoscalerSpec{ScaleTargetRef: api.CrossVersionObjectReference{Kind: a.kind, Name: a.name, APIVersion: "apps/v1"},
					MinReplicas: n(a.min), MaxReplicas: a.max}}); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(time.Second)
		synctest.Wait()
		got, _, err := c.HorizontalPodAutoscalers().Get(ctx, "default/sts")
		if err != nil {
			t.Fatal(err)
		}
		if c := cond(got, hpa.AbleToScale); c.Reason != "SucceededRescale" || c.Message != "the HPA controller was able to update the target scale to 5" {
			t.Errorf("after the first sync: AbleToScale %+v", c)
		}
		time.Sleep(20 * time.Second)
		synctest.Wait()
		rs, _, _ := c.ReplicaSets().Get(ctx, "default/rs")
		sts, _, _ := c.StatefulSets().Get(ctx, "default/sts")
		if *rs.Spec.Replicas != 3 || *sts.Spec.Replicas != 5 {
			t.Errorf("replicas: ReplicaSet %d (want min 3), StatefulSet %d (want max 5)", *rs.Spec.Replicas, *sts.Spec.Replicas)
		}
		got, _, err = c.HorizontalPodAutoscalers().Get(ctx, "default/sts")
		if err != nil {
			t.Fatal(err)
		}
		if got.Status.LastScaleTime == nil || got.Status.DesiredReplicas != 5 {
			t.Errorf("StatefulSet's autoscaler status %+v", got.Status)
		}
		got, _, err = c.HorizontalPodAutoscalers().Get(ctx, "default/dep")
		if err != nil {
			t.Fatal(err)
		}
		if c := cond(got, hpa.ScalingActive); c.Status != api.ConditionFalse || c.Reason != "FailedGetResourceMetric" ||
			!strings.Contains(c.Message, "the HPA was unable to compute the replica count: ") {
			t.Errorf("ScalingActive %+v", c)
		}
		if d, _, _ := c.Deployments().Get(ctx, "default/dep"); *d.Spec.Replicas != 2 {
			t.Errorf("deployment scaled to %d without metrics", *d.Spec.Replicas)
		}
	})
}

func targetSelector() *api.LabelSelector {
	return &api.LabelSelector{MatchLabels: map[string]string{"app": "x"}}
}

func targetTemplate() api.PodTemplateSpec {
	return api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "x"}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
}

// startWithTargets runs an autoscaler over client c (whose pods, load
// and targets live in cluster cl) until ctx ends, after creating the
// targets every test here scales: the ReplicaSet "rs" (1 replica) and
// the StatefulSet "sts" (8) in default. The returned func cancels ctx and
// waits for the autoscaler to stop.
func startWithTargets(t *testing.T, ctx context.Context, cancel context.CancelFunc, c client.Client, cl *cluster.Cluster) (stop func()) {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	h, err := hpa.New(c, f, hpa.Options{Metrics: hpa.NewLoad(cl.Pods()), Logger: quiet})
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
	stop = func() { cancel(); wg.Wait(); f.Shutdown() }
	n := func(v int32) *int32 { return &v }
	if _, err := cl.ReplicaSets().Create(ctx, &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "rs", Namespace: "default"},
		Spec: api.ReplicaSetSpec{Replicas: n(1), Selector: targetSelector(), Template: targetTemplate()}}); err != nil {
		stop()
		t.Fatal(err)
	}
	if _, err := cl.StatefulSets().Create(ctx, &api.StatefulSet{ObjectMeta: api.ObjectMeta{Name: "sts", Namespace: "default"},
		Spec: api.StatefulSetSpec{Replicas: n(8), Selector: targetSelector(), Template: targetTemplate(), ServiceName: "sts"}}); err != nil {
		stop()
		t.Fatal(err)
	}
	return stop
}

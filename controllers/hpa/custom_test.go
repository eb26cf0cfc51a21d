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
)

// Custom metrics read from annotations: a Pods metric (every pod of
// "web" reports qps 30 on an average target of 10) scales web 2 → 6 → 10
// (its maximum); an Object metric with an AverageValue target (the
// Service "api" reports 100 requests on 20 per pod) scales api to 5; an
// External metric is refused with FailedGetExternalMetric.
func TestCustomMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		quiet := slog.New(slog.DiscardHandler)
		cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 3,
			Manager: manager.Options{Controllers: []string{"*", "-horizontalpodautoscaling"}}})
		if err != nil {
			t.Fatal(err)
		}
		c := cp.Cluster
		f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
		h, err := hpa.New(c, f, hpa.Options{Metrics: hpa.NewLoad(c.Pods()).WithObjects(c), Logger: quiet})
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
		deploy := func(name string, replicas int32, annotations map[string]string) {
			t.Helper()
			d := &api.Deployment{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
				Spec: api.DeploymentSpec{Replicas: &replicas, Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": name}},
					Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": name}, Annotations: annotations},
						Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}}}
			if _, err := c.Deployments().Create(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
		autoscale := func(name string, m api.MetricSpec) {
			t.Helper()
			if _, err := c.HorizontalPodAutoscalers().Create(ctx, &api.HorizontalPodAutoscaler{
				ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
				Spec: api.HorizontalPodAutoscalerSpec{ScaleTargetRef: api.CrossVersionObjectReference{Kind: "Deployment", Name: name, APIVersion: "apps/v1"},
					MaxReplicas: 10, Metrics: []api.MetricSpec{m}},
			}); err != nil {
				t.Fatal(err)
			}
		}
		q := func(s string) *api.Quantity { v := api.MustParse(s); return &v }
		deploy("web", 2, map[string]string{hpa.MetricAnnotationPrefix + "qps": "30"})
		autoscale("web", api.MetricSpec{Type: api.PodsMetricSourceType, Pods: &api.PodsMetricSource{
			Metric: api.MetricIdentifier{Name: "qps"}, Target: api.MetricTarget{Type: api.AverageValueMetricType, AverageValue: q("10")}}})
		deploy("api", 2, nil)
		if _, err := c.Services().Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Name: "api", Namespace: "default",
			Annotations: map[string]string{hpa.MetricAnnotationPrefix + "requests": "100"}},
			Spec: api.ServiceSpec{Selector: map[string]string{"app": "api"}, Ports: []api.ServicePort{{Port: 80}}}}); err != nil {
			t.Fatal(err)
		}
		autoscale("api", api.MetricSpec{Type: api.ObjectMetricSourceType, Object: &api.ObjectMetricSource{
			DescribedObject: api.CrossVersionObjectReference{Kind: "Service", Name: "api", APIVersion: "v1"},
			Metric:          api.MetricIdentifier{Name: "requests"}, Target: api.MetricTarget{Type: api.AverageValueMetricType, AverageValue: q("20")}}})
		deploy("ext", 1, nil)
		autoscale("ext", api.MetricSpec{Type: api.ExternalMetricSourceType, External: &api.ExternalMetricSource{
			Metric: api.MetricIdentifier{Name: "queue"}, Target: api.MetricTarget{Type: api.ValueMetricType, Value: q("1")}}})

		time.Sleep(3 * time.Minute)
		synctest.Wait()
		replicas := func(name string) int32 {
			d, _, err := c.Deployments().Get(ctx, "default/"+name)
			if err != nil {
				t.Fatal(err)
			}
			return *d.Spec.Replicas
		}
		status := func(name string) api.HorizontalPodAutoscalerStatus {
			a, _, err := c.HorizontalPodAutoscalers().Get(ctx, "default/"+name)
			if err != nil {
				t.Fatal(err)
			}
			return a.Status
		}
		cond := func(st api.HorizontalPodAutoscalerStatus, typ string) api.HorizontalPodAutoscalerCondition {
			for _, c := range st.Conditions {
				if c.Type == typ {
					return c
				}
			}
			return api.HorizontalPodAutoscalerCondition{}
		}
		if n := replicas("web"); n != 10 {
			t.Errorf("web: %d replicas, want 10", n)
		}
		st := status("web")
		if m := st.CurrentMetrics; len(m) != 1 || m[0].Type != api.PodsMetricSourceType || m[0].Pods.Metric.Name != "qps" || m[0].Pods.Current.AverageValue.MilliValue() != 30000 {
			t.Errorf("web: current metrics %+v, want qps averaging 30", m)
		}
		if c := cond(st, hpa.ScalingActive); c.Reason != "ValidMetricFound" || c.Message != "the HPA was able to successfully calculate a replica count from pods metric qps" {
			t.Errorf("web: ScalingActive %+v", c)
		}
		if n := replicas("api"); n != 5 {
			t.Errorf("api: %d replicas, want 5", n)
		}
		st = status("api")
		if m := st.CurrentMetrics; len(m) != 1 || m[0].Object == nil || m[0].Object.DescribedObject.Name != "api" || m[0].Object.Current.AverageValue.MilliValue() != 20000 {
			t.Errorf("api: current metrics %+v, want requests at 20 per pod", m)
		}
		if n := replicas("ext"); n != 1 {
			t.Errorf("ext: %d replicas, want 1", n)
		}
		if c := cond(status("ext"), hpa.ScalingActive); c.Status != api.ConditionFalse || c.Reason != "FailedGetExternalMetric" ||
			c.Message != "the HPA was unable to compute the replica count: failed to get queue external metric: unable to get external metric default/queue/<nil>: no external metrics API (external.metrics.k8s.io) is served" {
			t.Errorf("ext: ScalingActive %+v", c)
		}
	})
}

package resourcequota_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/replicaset"
	"github.com/ctrlkit/ctrlkit/controllers/resourcequota"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

var quiet = slog.New(slog.DiscardHandler)

// env is a cluster with quota admission and the quota controller (and,
// with rs, the ReplicaSet controller) in a synctest bubble.
type env struct {
	t   *testing.T
	ctx context.Context
	c   *cluster.Cluster
}

func start(t *testing.T, rs bool) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	qa := resourcequota.NewAdmission()
	c, err := cluster.New(ctx, cluster.Options{Admission: []cluster.AdmissionFunc{qa.Admit}})
	if err != nil {
		t.Fatal(err)
	}
	if err := qa.SetClient(c); err != nil {
		t.Fatal(err)
	}
	f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	ctl, err := resourcequota.New(c, f, resourcequota.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	var runs []func(context.Context) error
	runs = append(runs, ctl.Run)
	if rs {
		r, err := replicaset.New(c, f, replicaset.Options{Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r.Run)
	}
	f.Start(ctx)
	var wg sync.WaitGroup
	for _, run := range runs {
		wg.Go(func() {
			if err := run(ctx); !errors.Is(err, context.Canceled) {
				t.Errorf("Run: %v", err)
			}
		})
	}
	t.Cleanup(func() {
		cancel()
		f.Shutdown()
		wg.Wait()
	})
	if _, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "ns"}}); err != nil {
		t.Fatal(err)
	}
	return &env{t: t, ctx: ctx, c: c}
}

func (e *env) quota(name string, hard api.ResourceList, mod func(*api.ResourceQuota)) {
	e.t.Helper()
	rq := &api.ResourceQuota{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "ns"}, Spec: api.ResourceQuotaSpec{Hard: hard}}
	if mod != nil {
		mod(rq)
	}
	if _, err := e.c.ResourceQuotas().Create(e.ctx, rq); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) used(name string) string {
	e.t.Helper()
	rq, _, err := e.c.ResourceQuotas().Get(e.ctx, "ns/"+name)
	if err != nil {
		e.t.Fatal(err)
	}
	var parts []string
	for _, n := range []api.ResourceName{"configmaps", "count/deployments.apps", "count/pods", "cpu", "memory", "pods", "requests.cpu", "secrets", "services", "services.nodeports"} {
		if v, ok := rq.Status.Used[n]; ok {
			parts = append(parts, string(n)+"="+v.String())
		}
	}
	return strings.Join(parts, ",")
}

// settle lets virtual time pass (the controllers' cache sync polls) and
// waits until every goroutine of the bubble is idle.
func settle() {
	time.Sleep(time.Second)
	synctest.Wait()
}

func newPod(name, priorityClass string, cpu string) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "ns"},
		Spec: api.PodSpec{PriorityClassName: priorityClass, Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
	if cpu != "" {
		p.Spec.Containers[0].Resources.Requests = api.ResourceList{"cpu": api.MustParse(cpu), "memory": api.MustParse("1Gi")}
	}
	return p
}

func (e *env) createPod(p *api.Pod) error {
	_, err := e.c.Pods().Create(e.ctx, p)
	return err
}

// The controller counts usage per scope and priority class, and
// recounts after deletes (replenishment).
func TestUsageAndReplenishment(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, false)
		b := api.ResourceList{"pods": api.MustParse("10"), "cpu": api.MustParse("10"), "memory": api.MustParse("20Gi")}
		e.quota("pods-medium", b, func(rq *api.ResourceQuota) {
			rq.Spec.ScopeSelector = &api.ScopeSelector{MatchExpressions: []api.ScopedResourceSelectorRequirement{{ScopeName: "PriorityClass", Operator: "In", Values: []string{"medium"}}}}
		})
		e.quota("best-effort", api.ResourceList{"pods": api.MustParse("5")}, func(rq *api.ResourceQuota) {
			rq.Spec.Scopes = []api.ResourceQuotaScope{api.ResourceQuotaScopeBestEffort}
		})
		e.quota("objects", api.ResourceList{"configmaps": api.MustParse("5"), "secrets": api.MustParse("5"), "services": api.MustParse("5"), "count/deployments.apps": api.MustParse("2")}, nil)
		settle()
		if got, want := e.used("pods-medium"), "cpu=0,memory=0,pods=0"; got != want {
			t.Errorf("pods-medium used %s, want %s", got, want)
		}
		for i, pc := range []string{"medium", "medium", "high"} {
			if err := e.createPod(newPod(fmt.Sprintf("m%d", i), pc, "500m")); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.createPod(newPod("be", "", "")); err != nil {
			t.Fatal(err)
		}
		for _, o := range []api.Object{
			&api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm", Namespace: "ns"}},
			&api.Secret{ObjectMeta: api.ObjectMeta{Name: "s", Namespace: "ns"}},
			&api.Service{ObjectMeta: api.ObjectMeta{Name: "svc", Namespace: "ns"}, Spec: api.ServiceSpec{Ports: []api.ServicePort{{Port: 80}}}},
		} {
			if _, err := e.c.CreateObject(e.ctx, o); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		// Charged at admission, before any recount.
		if got, want := e.used("pods-medium"), "cpu=1,memory=2Gi,pods=2"; got != want {
			t.Errorf("pods-medium used %s, want %s", got, want)
		}
		if got, want := e.used("best-effort"), "pods=1"; got != want {
			t.Errorf("best-effort used %s, want %s", got, want)
		}
		if got, want := e.used("objects"), "configmaps=1,count/deployments.apps=0,secrets=1,services=1"; got != want {
			t.Errorf("objects used %s, want %s", got, want)
		}
		// Replenishment: a delete and a pod turning terminal.
		if _, err := e.c.Pods().DeleteWith(e.ctx, "ns/m0", cluster.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		p, _, err := e.c.Pods().Get(e.ctx, "ns/m1")
		if err != nil {
			t.Fatal(err)
		}
		p.Status.Phase = api.PodSucceeded
		if _, err := e.c.Pods().UpdateStatus(e.ctx, p); err != nil {
			t.Fatal(err)
		}
		if _, err := e.c.Secrets().DeleteWith(e.ctx, "ns/s", cluster.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if got, want := e.used("pods-medium"), "cpu=0,memory=0,pods=0"; got != want {
			t.Errorf("after replenishment: pods-medium used %s, want %s", got, want)
		}
		if got, want := e.used("objects"), "configmaps=1,count/deployments.apps=0,secrets=0,services=1"; got != want {
			t.Errorf("after replenishment: objects used %s, want %s", got, want)
		}
	})
}

// Over quota: the exact message; a pod without the requests a quota
// constrains is refused with the reason.
func TestOverQuotaMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, false)
		e.quota("pods-medium", api.ResourceList{"pods": api.MustParse("10"), "cpu": api.MustParse("10"), "memory": api.MustParse("20Gi")}, func(rq *api.ResourceQuota) {
			rq.Spec.ScopeSelector = &api.ScopeSelector{MatchExpressions: []api.ScopedResourceSelectorRequirement{{ScopeName: "PriorityClass", Operator: "In", Values: []string{"medium"}}}}
		})
		settle()
		for i := range 10 {
			if err := e.createPod(newPod(fmt.Sprintf("p%d", i), "medium", "100m")); err != nil {
				t.Fatal(err)
			}
		}
		err := e.createPod(newPod("p10", "medium", "100m"))
		if !errors.Is(err, resourcequota.ErrExceeded) {
			t.Fatalf("11th pod: err %v, want ErrExceeded", err)
		}
		const want = "exceeded quota: pods-medium, requested: pods=1, used: pods=10, limited: pods=10"
		if !strings.HasSuffix(err.Error(), want) {
			t.Errorf("message %q, want it to end with %q", err, want)
		}
		err = e.createPod(newPod("nores", "medium", ""))
		if want := "failed quota: pods-medium: must specify cpu for: c; memory for: c"; err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("pod without requests: err %v, want %q", err, want)
		}
		// Outside the scope: admitted.
		if err := e.createPod(newPod("low", "low", "")); err != nil {
			t.Errorf("pod of another priority class: %v", err)
		}
	})
}

// 100 concurrent creates against pods: 10 admit exactly 10.
func TestConcurrentCreates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, false)
		e.quota("ten", api.ResourceList{"pods": api.MustParse("10")}, nil)
		settle()
		var ok, refused atomic.Int32
		var wg sync.WaitGroup
		for i := range 100 {
			wg.Go(func() {
				err := e.createPod(newPod(fmt.Sprintf("p%03d", i), "", ""))
				switch {
				case err == nil:
					ok.Add(1)
				case errors.Is(err, resourcequota.ErrExceeded):
					refused.Add(1)
				default:
					t.Errorf("create: %v", err)
				}
			})
		}
		wg.Wait()
		list, err := e.c.Pods().List(e.ctx, source.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ok.Load() != 10 || refused.Load() != 90 || len(list.Items) != 10 {
			t.Errorf("admitted %d, refused %d, stored %d; want 10, 90, 10", ok.Load(), refused.Load(), len(list.Items))
		}
		if got := e.used("ten"); got != "pods=10" {
			t.Errorf("used %s, want pods=10", got)
		}
	})
}

// Service creates hold the store's address lock while admission runs;
// quota admission, which writes quotas from inside that lock, neither
// deadlocks nor over-admits when they race with pod creates.
func TestConcurrentServicesAndPods(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, false)
		e.quota("mixed", api.ResourceList{"pods": api.MustParse("5"), "services": api.MustParse("3"), "services.nodeports": api.MustParse("2")}, nil)
		settle()
		var pods, svcs, nodePorts atomic.Int32
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Go(func() {
				if e.createPod(newPod(fmt.Sprintf("p%02d", i), "", "")) == nil {
					pods.Add(1)
				}
			})
			wg.Go(func() {
				svc := &api.Service{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("s%02d", i), Namespace: "ns"},
					Spec: api.ServiceSpec{Ports: []api.ServicePort{{Port: 80}}}}
				if i%2 == 0 {
					svc.Spec.Type = api.ServiceTypeNodePort
				}
				if _, err := e.c.Services().Create(e.ctx, svc); err == nil {
					svcs.Add(1)
					if i%2 == 0 {
						nodePorts.Add(1)
					}
				} else if !errors.Is(err, resourcequota.ErrExceeded) {
					t.Errorf("service: %v", err)
				}
			})
		}
		wg.Wait()
		if pods.Load() != 5 || svcs.Load() != 3 || nodePorts.Load() > 2 {
			t.Errorf("admitted %d pods, %d services (%d node ports); want 5, 3, at most 2", pods.Load(), svcs.Load(), nodePorts.Load())
		}
		if got, want := e.used("mixed"), fmt.Sprintf("pods=5,services=3,services.nodeports=%d", nodePorts.Load()); got != want {
			t.Errorf("used %s, want %s", got, want)
		}
	})
}

// A ReplicaSet whose creates are refused stays at the quota, with the
// ReplicaFailure condition, and grows when the quota is raised.
func TestReplicaSetHeldAtQuota(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, true)
		e.quota("three", api.ResourceList{"pods": api.MustParse("3")}, nil)
		settle()
		five := int32(5)
		rs := &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "ns"},
			Spec: api.ReplicaSetSpec{Replicas: &five, Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
				Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
					Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}}}
		if _, err := e.c.ReplicaSets().Create(e.ctx, rs); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		count := func() int {
			l, err := e.c.Pods().List(e.ctx, source.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return len(l.Items)
		}
		if n := count(); n != 3 {
			t.Fatalf("pods %d, want 3 (held at the quota)", n)
		}
		got, _, err := e.c.ReplicaSets().Get(e.ctx, "ns/web")
		if err != nil {
			t.Fatal(err)
		}
		var failure *api.ReplicaSetCondition
		for i := range got.Status.Conditions {
			if got.Status.Conditions[i].Type == replicaset.ReplicaFailure {
				failure = &got.Status.Conditions[i]
			}
		}
		if failure == nil || failure.Status != api.ConditionTrue || !strings.Contains(failure.Message, "exceeded quota: three") {
			t.Errorf("ReplicaFailure condition %+v, want True with the quota's message", failure)
		}
		rq, _, err := e.c.ResourceQuotas().Get(e.ctx, "ns/three")
		if err != nil {
			t.Fatal(err)
		}
		rq.Spec.Hard["pods"] = api.MustParse("5")
		if _, err := e.c.ResourceQuotas().Update(e.ctx, rq, ""); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		if n := count(); n != 5 {
			t.Errorf("after raising the quota: pods %d, want 5", n)
		}
	})
}

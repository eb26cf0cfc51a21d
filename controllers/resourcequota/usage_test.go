package resourcequota

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/internal/sharedtest"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func q(s string) api.Quantity { return api.MustParse(s) }

func pod(name string, mod func(*api.Pod)) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "ns"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
	if mod != nil {
		mod(p)
	}
	return p
}

func withResources(req, lim api.ResourceList) func(*api.Pod) {
	return func(p *api.Pod) {
		p.Spec.Containers[0].Resources = api.ResourceRequirements{Requests: req, Limits: lim}
	}
}

func listString(l api.ResourceList) string { return prettyPrint(l) }

// Cases after kcm pkg/quota/v1/evaluator/core/pods_test.go
// (TestPodEvaluatorUsage): what a pod is charged.
func TestPodUsage(t *testing.T) {
	grace := int64(30)
	tests := []struct {
		name string
		pod  *api.Pod
		want string
	}{
		{"best effort", pod("a", nil), "count/pods=1,pods=1"},
		{"requests", pod("a", withResources(api.ResourceList{"cpu": q("1"), "memory": q("1Gi")}, nil)),
			"count/pods=1,cpu=1,memory=1Gi,pods=1,requests.cpu=1,requests.memory=1Gi"},
		// Requests default to limits once, when the cluster stores the
		// pod (api.DefaultRequestsFromLimits); Usage does not redo it.
		{"limits only, as stored", pod("a", func(p *api.Pod) {
			withResources(nil, api.ResourceList{"cpu": q("2")})(p)
			api.DefaultRequestsFromLimits(&p.Spec)
		}), "count/pods=1,cpu=2,limits.cpu=2,pods=1,requests.cpu=2"},
		{"limits only, not defaulted", pod("a", withResources(nil, api.ResourceList{"cpu": q("2")})),
			"count/pods=1,limits.cpu=2,pods=1"},
		{"init container larger than the sum", pod("a", func(p *api.Pod) {
			p.Spec.Containers[0].Resources.Requests = api.ResourceList{"cpu": q("100m")}
			p.Spec.Containers = append(p.Spec.Containers, api.Container{Name: "d", Image: "x",
				Resources: api.ResourceRequirements{Requests: api.ResourceList{"cpu": q("200m")}}})
			p.Spec.InitContainers = []api.Container{{Name: "i", Image: "x",
				Resources: api.ResourceRequirements{Requests: api.ResourceList{"cpu": q("1")}}}}
		}), "count/pods=1,cpu=1,pods=1,requests.cpu=1"},
		{"sum of containers and overhead", pod("a", func(p *api.Pod) {
			p.Spec.Containers[0].Resources.Requests = api.ResourceList{"memory": q("100Mi")}
			p.Spec.Containers = append(p.Spec.Containers, api.Container{Name: "d", Image: "x",
				Resources: api.ResourceRequirements{Requests: api.ResourceList{"memory": q("200Mi")}}})
			p.Spec.Overhead = api.ResourceList{"memory": q("10Mi")}
		}), "count/pods=1,memory=310Mi,pods=1,requests.memory=310Mi"},
		{"succeeded: object count only", pod("a", func(p *api.Pod) { p.Status.Phase = api.PodSucceeded }), "count/pods=1"},
		{"failed: object count only", pod("a", func(p *api.Pod) { p.Status.Phase = api.PodFailed }), "count/pods=1"},
		{"terminating within grace", pod("a", func(p *api.Pod) {
			dt := api.NewTime(t0.Add(10 * time.Second))
			p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &dt, &grace
		}), "count/pods=1,pods=1"},
		{"stuck terminating past grace", pod("a", func(p *api.Pod) {
			dt := api.NewTime(t0.Add(-31 * time.Second))
			p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &dt, &grace
		}), "count/pods=1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := listString(Usage("pods", tt.pod, t0)); got != tt.want {
				t.Errorf("usage %s, want %s", got, tt.want)
			}
		})
	}
}

// Cases ported from Kubernetes' pkg/quota/v1/evaluator/core/pods_test.go
// (TestPodEvaluatorUsage: "init container CPU", "container MEM", "init
// container local ephemeral storage", "init container maximums override
// sum of containers" without its extended resource, which ctrlkit's quota
// does not count, "count pod overhead as usage"), and a sidecar case
// after the rule of k8s.io/component-helpers/resource.PodRequests and
// PodLimits that the evaluator calls.
func TestPodUsageKubeEvaluator(t *testing.T) {
	rr := func(req, lim api.ResourceList) api.ResourceRequirements {
		return api.ResourceRequirements{Requests: req, Limits: lim}
	}
	always := api.ContainerRestartPolicy(api.RestartPolicyAlways)
	tests := []struct {
		name string
		spec api.PodSpec
		want string
	}{
		{"init container CPU", api.PodSpec{InitContainers: []api.Container{{Resources: rr(
			api.ResourceList{"cpu": q("1m")}, api.ResourceList{"cpu": q("2m")})}}},
			"count/pods=1,cpu=1m,limits.cpu=2m,pods=1,requests.cpu=1m"},
		{"container MEM", api.PodSpec{Containers: []api.Container{{Resources: rr(
			api.ResourceList{"memory": q("1m")}, api.ResourceList{"memory": q("2m")})}}},
			"count/pods=1,limits.memory=2m,memory=1m,pods=1,requests.memory=1m"},
		{"init container local ephemeral storage", api.PodSpec{InitContainers: []api.Container{{Resources: rr(
			api.ResourceList{"ephemeral-storage": q("32Mi")}, api.ResourceList{"ephemeral-storage": q("64Mi")})}}},
			"count/pods=1,ephemeral-storage=32Mi,limits.ephemeral-storage=64Mi,pods=1,requests.ephemeral-storage=32Mi"},
		{"init container maximums override sum of containers", api.PodSpec{
			InitContainers: []api.Container{
				{Resources: rr(api.ResourceList{"cpu": q("4"), "memory": q("100M")}, api.ResourceList{"cpu": q("8"), "memory": q("200M")})},
				{Resources: rr(api.ResourceList{"cpu": q("1"), "memory": q("50M")}, api.ResourceList{"cpu": q("2"), "memory": q("100M")})},
			},
			Containers: []api.Container{
				{Resources: rr(api.ResourceList{"cpu": q("1"), "memory": q("50M")}, api.ResourceList{"cpu": q("2"), "memory": q("100M")})},
				{Resources: rr(api.ResourceList{"cpu": q("2"), "memory": q("25M")}, api.ResourceList{"cpu": q("5"), "memory": q("50M")})},
			}},
			"count/pods=1,cpu=4,limits.cpu=8,limits.memory=200M,memory=100M,pods=1,requests.cpu=4,requests.memory=100M"},
		{"count pod overhead as usage", api.PodSpec{Overhead: api.ResourceList{"cpu": q("1")},
			Containers: []api.Container{{Resources: rr(api.ResourceList{"cpu": q("1")}, api.ResourceList{"cpu": q("2")})}}},
			"count/pods=1,cpu=2,limits.cpu=3,pods=1,requests.cpu=2"},
		// A sidecar (restartable init container) runs beside the app
		// containers, so it adds to their sum: requests 1+2 = 3 (not
		// max(2, 1) = 2), limits 2+4 = 6; overhead memory is not added to
		// limits, as memory is not limited.
		{"sidecar adds to the app containers", api.PodSpec{Overhead: api.ResourceList{"memory": q("10Mi")},
			InitContainers: []api.Container{{RestartPolicy: &always, Resources: rr(
				api.ResourceList{"cpu": q("2")}, api.ResourceList{"cpu": q("4")})}},
			Containers: []api.Container{{Resources: rr(api.ResourceList{"cpu": q("1")}, api.ResourceList{"cpu": q("2")})}}},
			"count/pods=1,cpu=3,limits.cpu=6,memory=10Mi,pods=1,requests.cpu=3,requests.memory=10Mi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: tt.spec}
			if got := listString(Usage("pods", p, t0)); got != tt.want {
				t.Errorf("usage %s, want %s", got, tt.want)
			}
		})
	}
}

func TestObjectUsage(t *testing.T) {
	sc := "fast"
	tests := []struct {
		resource string
		obj      api.Object
		want     string
	}{
		{"secrets", &api.Secret{}, "count/secrets=1,secrets=1"},
		{"configmaps", &api.ConfigMap{}, "configmaps=1,count/configmaps=1"},
		{"deployments", &api.Deployment{}, "count/deployments.apps=1"},
		{"jobs", &api.Job{}, "count/jobs.batch=1"},
		{"services", &api.Service{Spec: api.ServiceSpec{Type: api.ServiceTypeClusterIP}}, "count/services=1,services=1"},
		{"services", &api.Service{Spec: api.ServiceSpec{Type: api.ServiceTypeNodePort, Ports: []api.ServicePort{{Port: 80}, {Port: 443}}}},
			"count/services=1,services=1,services.nodeports=2"},
		{"services", &api.Service{Spec: api.ServiceSpec{Type: api.ServiceTypeLoadBalancer, Ports: []api.ServicePort{{Port: 80, NodePort: 30001}}}},
			"count/services=1,services=1,services.loadbalancers=1,services.nodeports=1"},
		{"persistentvolumeclaims", &api.PersistentVolumeClaim{Spec: api.PersistentVolumeClaimSpec{StorageClassName: &sc,
			Resources: api.VolumeResourceRequirements{Requests: api.ResourceList{"storage": q("10Gi")}}}},
			"count/persistentvolumeclaims=1,fast.storageclass.storage.k8s.io/persistentvolumeclaims=1,fast.storageclass.storage.k8s.io/requests.storage=10Gi,persistentvolumeclaims=1,requests.storage=10Gi"},
	}
	for _, tt := range tests {
		if got := listString(Usage(tt.resource, tt.obj, t0)); got != tt.want {
			t.Errorf("%s: usage %s, want %s", tt.resource, got, tt.want)
		}
	}
}

// Cases after kcm pods_test.go TestPodEvaluatorMatchingScopes: which
// quotas count which pods.
func TestScopes(t *testing.T) {
	deadline := int64(60)
	best := pod("best", nil)
	burst := pod("burst", withResources(api.ResourceList{"cpu": q("100m")}, nil))
	term := pod("term", func(p *api.Pod) { p.Spec.ActiveDeadlineSeconds = &deadline })
	medium := pod("medium", func(p *api.Pod) { p.Spec.PriorityClassName = "medium" })
	high := pod("high", func(p *api.Pod) { p.Spec.PriorityClassName = "high" })
	sel := func(op string, values ...string) *api.ResourceQuota {
		return &api.ResourceQuota{Spec: api.ResourceQuotaSpec{Hard: api.ResourceList{"pods": q("10")},
			ScopeSelector: &api.ScopeSelector{MatchExpressions: []api.ScopedResourceSelectorRequirement{
				{ScopeName: api.ResourceQuotaScopePriorityClass, Operator: api.ScopeSelectorOperator(op), Values: values}}}}}
	}
	scoped := func(s api.ResourceQuotaScope) *api.ResourceQuota {
		return &api.ResourceQuota{Spec: api.ResourceQuotaSpec{Hard: api.ResourceList{"pods": q("10")}, Scopes: []api.ResourceQuotaScope{s}}}
	}
	tests := []struct {
		name  string
		quota *api.ResourceQuota
		pods  map[*api.Pod]bool
	}{
		{"BestEffort", scoped(api.ResourceQuotaScopeBestEffort), map[*api.Pod]bool{best: true, burst: false}},
		{"NotBestEffort", scoped(api.ResourceQuotaScopeNotBestEffort), map[*api.Pod]bool{best: false, burst: true}},
		{"Terminating", scoped(api.ResourceQuotaScopeTerminating), map[*api.Pod]bool{term: true, best: false}},
		{"NotTerminating", scoped(api.ResourceQuotaScopeNotTerminating), map[*api.Pod]bool{term: false, best: true}},
		{"PriorityClass In", sel("In", "medium"), map[*api.Pod]bool{medium: true, high: false, best: false}},
		{"PriorityClass NotIn", sel("NotIn", "medium"), map[*api.Pod]bool{medium: false, high: true, best: true}},
		{"PriorityClass Exists", sel("Exists"), map[*api.Pod]bool{medium: true, high: true, best: false}},
		{"PriorityClass DoesNotExist", sel("DoesNotExist"), map[*api.Pod]bool{medium: false, best: true}},
		{"no scope", &api.ResourceQuota{Spec: api.ResourceQuotaSpec{Hard: api.ResourceList{"pods": q("1")}}}, map[*api.Pod]bool{best: true, term: true}},
		{"limits nothing pods are charged", &api.ResourceQuota{Spec: api.ResourceQuotaSpec{Hard: api.ResourceList{"secrets": q("1")}}}, map[*api.Pod]bool{best: false}},
	}
	for _, tt := range tests {
		for p, want := range tt.pods {
			if got := Matches(tt.quota, "pods", p); got != want {
				t.Errorf("%s: pod %s matches %v, want %v", tt.name, p.Name, got, want)
			}
		}
	}
	// Scopes apply to pods only: a scoped quota counts no service.
	if Matches(&api.ResourceQuota{Spec: api.ResourceQuotaSpec{Hard: api.ResourceList{"services": q("1")},
		Scopes: []api.ResourceQuotaScope{api.ResourceQuotaScopeBestEffort}}}, "services", &api.Service{}) {
		t.Error("a scoped quota counts a service")
	}
}

// The pods-medium quota of Kubernetes' ResourceQuota documentation, loaded from its YAML sequence form,
// counts only pods of priority class medium, and only non-terminal ones.
func TestCalculateUsagePodsMedium(t *testing.T) {
	b, err := os.ReadFile(sharedtest.Manifest(t, "pods-medium-quota.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := api.Decode(b, api.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rq := objs[0].(*api.ResourceQuota)
	res := api.ResourceList{"cpu": q("500m"), "memory": q("1Gi")}
	var pods []api.Object
	for i, pc := range []string{"medium", "medium", "high", "", "medium"} {
		p := pod("p", func(p *api.Pod) {
			p.Spec.PriorityClassName = pc
			p.Spec.Containers[0].Resources.Requests = res
		})
		if i == 4 {
			p.Status.Phase = api.PodSucceeded
		}
		pods = append(pods, p)
	}
	st, dirty := Status(rq, Objects{"pods": pods}, t0)
	if got, want := listString(st.Used), "cpu=1,memory=2Gi,pods=2"; got != want {
		t.Errorf("used %s, want %s", got, want)
	}
	if got, want := listString(st.Hard), "cpu=10,memory=20Gi,pods=10"; got != want {
		t.Errorf("hard %s, want %s", got, want)
	}
	if !dirty {
		t.Error("first sync not dirty")
	}
	rq.Status = st
	if _, dirty := Status(rq, Objects{"pods": pods}, t0); dirty {
		t.Error("an unchanged count is dirty")
	}
	rq.Spec.Hard["pods"] = q("20")
	if _, dirty := Status(rq, Objects{"pods": pods}, t0); !dirty {
		t.Error("a changed spec.hard is not dirty")
	}
}

// Admission's decisions and kube-apiserver's messages.
func TestCheck(t *testing.T) {
	quota := func(name string, hard, used api.ResourceList) *api.ResourceQuota {
		return &api.ResourceQuota{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "ns"},
			Spec: api.ResourceQuotaSpec{Hard: hard}, Status: api.ResourceQuotaStatus{Hard: hard, Used: used}}
	}
	create := func(p *api.Pod) cluster.Attributes {
		return cluster.Attributes{Operation: cluster.OperationCreate, Resource: "pods", Object: p}
	}
	res := withResources(api.ResourceList{"cpu": q("1"), "memory": q("1Gi")}, api.ResourceList{"cpu": q("2")})
	tests := []struct {
		name    string
		quotas  []*api.ResourceQuota
		attr    cluster.Attributes
		wantErr string
		charged string // used of the first charged quota
	}{
		{"full", []*api.ResourceQuota{quota("pods-medium", api.ResourceList{"pods": q("10")}, api.ResourceList{"pods": q("10")})},
			create(pod("a", nil)), "exceeded quota: pods-medium, requested: pods=1, used: pods=10, limited: pods=10", ""},
		{"room", []*api.ResourceQuota{quota("q", api.ResourceList{"pods": q("10")}, api.ResourceList{"pods": q("9")})},
			create(pod("a", nil)), "", "pods=10"},
		{"two resources exceeded", []*api.ResourceQuota{quota("compute", api.ResourceList{"requests.cpu": q("2"), "limits.cpu": q("3"), "pods": q("5")},
			api.ResourceList{"requests.cpu": q("1500m"), "limits.cpu": q("2"), "pods": q("1")})},
			create(pod("a", res)), "exceeded quota: compute, requested: limits.cpu=2,requests.cpu=1, used: limits.cpu=2,requests.cpu=1500m, limited: limits.cpu=3,requests.cpu=2", ""},
		{"must specify", []*api.ResourceQuota{quota("compute", api.ResourceList{"limits.memory": q("3Gi"), "cpu": q("5")}, api.ResourceList{"limits.memory": q("0"), "cpu": q("0")})},
			create(pod("a", nil)), "failed quota: compute: must specify cpu for: c; limits.memory for: c", ""},
		{"status unknown", []*api.ResourceQuota{quota("q", api.ResourceList{"pods": q("10")}, nil)},
			create(pod("a", nil)), "status unknown for quota: q, resources: pods", ""},
		{"not in scope", []*api.ResourceQuota{func() *api.ResourceQuota {
			rq := quota("pods-medium", api.ResourceList{"pods": q("1")}, api.ResourceList{"pods": q("1")})
			rq.Spec.ScopeSelector = &api.ScopeSelector{MatchExpressions: []api.ScopedResourceSelectorRequirement{{ScopeName: "PriorityClass", Operator: "In", Values: []string{"medium"}}}}
			return rq
		}()}, create(pod("a", nil)), "", ""},
		{"status subresource ignored", []*api.ResourceQuota{quota("q", api.ResourceList{"pods": q("0")}, api.ResourceList{"pods": q("0")})},
			cluster.Attributes{Operation: cluster.OperationUpdate, Resource: "pods", Subresource: "status", Object: pod("a", nil)}, "", ""},
		{"service update adding node ports", []*api.ResourceQuota{quota("q", api.ResourceList{"services.nodeports": q("1")}, api.ResourceList{"services.nodeports": q("0")})},
			cluster.Attributes{Operation: cluster.OperationUpdate, Resource: "services",
				Object:    &api.Service{ObjectMeta: api.ObjectMeta{Name: "s", Namespace: "ns"}, Spec: api.ServiceSpec{Type: api.ServiceTypeNodePort, Ports: []api.ServicePort{{Port: 1}, {Port: 2}}}},
				OldObject: &api.Service{ObjectMeta: api.ObjectMeta{Name: "s", Namespace: "ns"}, Spec: api.ServiceSpec{Type: api.ServiceTypeClusterIP, Ports: []api.ServicePort{{Port: 1}, {Port: 2}}}}},
			"exceeded quota: q, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Check(tt.quotas, tt.attr, t0)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || !errors.Is(err, ErrExceeded) {
					t.Fatalf("err %v, want %q wrapping ErrExceeded", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.charged == "" {
				if len(out) != 0 {
					t.Fatalf("charged %d quotas, want none", len(out))
				}
				return
			}
			if len(out) == 0 || listString(out[0].Status.Used) != tt.charged {
				t.Fatalf("charged %v, want used %s", out, tt.charged)
			}
		})
	}
}

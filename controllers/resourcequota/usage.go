package resourcequota

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// The resource names a quota can hold beyond those of controllers/api.
const (
	ResourceServices               api.ResourceName = "services"
	ResourceServicesNodePorts      api.ResourceName = "services.nodeports"
	ResourceServicesLoadBalancers  api.ResourceName = "services.loadbalancers"
	ResourceReplicationControllers api.ResourceName = "replicationcontrollers"
	ResourceQuotas                 api.ResourceName = "resourcequotas"
	ResourceSecrets                api.ResourceName = "secrets"
	ResourceConfigMaps             api.ResourceName = "configmaps"
	ResourcePersistentVolumeClaims api.ResourceName = "persistentvolumeclaims"
	ResourceRequestsStorage        api.ResourceName = "requests.storage"
	ResourceRequestsEphemeral      api.ResourceName = "requests.ephemeral-storage"
	ResourceLimitsEphemeral        api.ResourceName = "limits.ephemeral-storage"
)

// Groups maps each built-in resource the quota system counts to its API
// group ("" for core): the names of count/<resource>.<group> quotas
// (count/<resource> for core). It derives from the registrations of the
// built-in kinds of controllers/api: every namespaced kind but events,
// which kcm's quota never counts (its ignoredResources). It is fixed at
// initialization and must not be changed; Counted adds the kinds of
// api.Register.
var Groups = builtinGroups()

func builtinGroups() map[string]string {
	m := map[string]string{}
	for _, k := range api.Registered() {
		if api.IsBuiltin(k.GroupVersionKind) && k.Namespaced && !(k.Group == "" && k.Resource == "events") {
			m[k.Resource] = k.Group
		}
	}
	return m
}

// Counted returns every resource the quota system counts now, each to
// its API group, keyed as this package's functions name a resource: the
// built-in ones by their resource name, as in Groups ("pods",
// "deployments"), and the namespaced kinds added with api.Register by
// their resource and group ("widgets.example.com"), which is also what
// their object-count quota names (count/widgets.example.com, kcm's
// generic object count evaluator). It reads the registry at each call,
// so it sees kinds registered at any time; the map is the caller's.
func Counted() map[string]string {
	m := make(map[string]string, len(Groups))
	for r, g := range Groups {
		m[r] = g
	}
	for _, k := range api.Registered() {
		if !api.IsBuiltin(k.GroupVersionKind) && k.Namespaced {
			m[k.QualifiedResource()] = k.Group
		}
	}
	return m
}

// countedKind returns the registration of resource r, a key of Counted,
// or false when r is not counted.
func countedKind(r string) (api.KindInfo, bool) {
	if g, ok := Groups[r]; ok {
		return api.InfoOfResource(g, r)
	}
	res, group, ok := strings.Cut(r, ".")
	if !ok {
		return api.KindInfo{}, false
	}
	info, ok := api.InfoOfResource(group, res)
	if !ok || !info.Namespaced || api.IsBuiltin(info.GroupVersionKind) {
		return api.KindInfo{}, false
	}
	return info, true
}

// resourceOf returns the key of Counted for obj, an object of the
// resource named resource: resource itself for a built-in kind,
// "<resource>.<group>" for a kind added with api.Register.
func resourceOf(resource string, obj api.Object) string {
	if obj == nil {
		return resource
	}
	gvk := obj.GroupVersionKind()
	if api.IsBuiltin(gvk) {
		return resource
	}
	if info, ok := api.InfoOf(gvk); ok {
		return info.QualifiedResource()
	}
	return resource
}

// legacyCounts are the resources also counted under their bare name
// ("secrets" as well as "count/secrets"); pods are not among them,
// because "pods" counts only pods that are not terminal.
var legacyCounts = map[string]bool{
	"services": true, "replicationcontrollers": true, "resourcequotas": true, "secrets": true,
	"configmaps": true, "persistentvolumeclaims": true,
}

// CountName is the object-count resource name of resource, a key of
// Counted: count/pods, count/deployments.apps,
// count/widgets.example.com.
func CountName(resource string) api.ResourceName {
	if g := Groups[resource]; g != "" {
		return api.ResourceName("count/" + resource + "." + g)
	}
	return api.ResourceName("count/" + resource)
}

// podResources are what a pod is charged for (kcm's podResources).
var podResources = []api.ResourceName{
	api.ResourcePods, api.ResourceCPU, api.ResourceMemory, api.ResourceEphemeralStorage,
	api.ResourceRequestsCPU, api.ResourceRequestsMemory, ResourceRequestsEphemeral,
	api.ResourceLimitsCPU, api.ResourceLimitsMemory, ResourceLimitsEphemeral,
}

// validationSet: a quota on one of these makes every container of a
// counted pod declare it (kcm keeps this "mistake" for compatibility).
var validationSet = []api.ResourceName{
	api.ResourceCPU, api.ResourceMemory, api.ResourceRequestsCPU, api.ResourceRequestsMemory,
	api.ResourceLimitsCPU, api.ResourceLimitsMemory,
}

const storageClassSuffix = ".storageclass.storage.k8s.io/"

// MatchingResources returns the names among input that objects of
// resource are charged for (kcm's Evaluator.MatchingResources).
func MatchingResources(resource string, input []api.ResourceName) []api.ResourceName {
	var out []api.ResourceName
	for _, n := range input {
		if n == CountName(resource) {
			out = append(out, n)
			continue
		}
		switch resource {
		case "pods":
			if slices.Contains(podResources, n) {
				out = append(out, n)
			}
		case "services":
			if n == ResourceServices || n == ResourceServicesNodePorts || n == ResourceServicesLoadBalancers {
				out = append(out, n)
			}
		case "persistentvolumeclaims":
			if n == ResourcePersistentVolumeClaims || n == ResourceRequestsStorage ||
				(strings.Contains(string(n), storageClassSuffix) &&
					(strings.HasSuffix(string(n), "/requests.storage") || strings.HasSuffix(string(n), "/persistentvolumeclaims"))) {
				out = append(out, n)
			}
		default:
			if legacyCounts[resource] && n == api.ResourceName(resource) {
				out = append(out, n)
			}
		}
	}
	return out
}

// Usage returns what obj, an object of resource, is charged at now
// (kcm's Evaluator.Usage): its object count always; for a pod that
// counts (QuotaPod), "pods" and its requests and limits as api.PodRequests
// and api.PodLimits compute them (Kubernetes' rule: sidecar init
// containers beside the app containers, the largest init container as a
// floor, plus overhead). A container's requests are read as stored: the
// cluster has already defaulted them from its limits
// (api.DefaultRequestsFromLimits), as kube-apiserver does before quota
// sees a pod. For a service, its node ports and load balancer; for a
// claim, its storage request.
func Usage(resource string, obj api.Object, now time.Time) api.ResourceList {
	one := api.NewQuantity(1, api.DecimalSI)
	u := api.ResourceList{CountName(resource): one}
	if legacyCounts[resource] {
		u[api.ResourceName(resource)] = one
	}
	switch o := obj.(type) {
	case *api.Pod:
		if !QuotaPod(o, now) {
			return u
		}
		u[api.ResourcePods] = one
		for name, q := range computeUsage(api.PodRequests(o), api.PodLimits(o)) {
			u[name] = q
		}
	case *api.Service:
		ports := 0
		for _, p := range o.Spec.Ports {
			if o.Spec.Type == api.ServiceTypeNodePort || p.NodePort != 0 {
				ports++
			}
		}
		if o.Spec.Type == api.ServiceTypeNodePort || o.Spec.Type == api.ServiceTypeLoadBalancer {
			u[ResourceServicesNodePorts] = api.NewQuantity(int64(ports), api.DecimalSI)
		}
		if o.Spec.Type == api.ServiceTypeLoadBalancer {
			u[ResourceServicesLoadBalancers] = one
		}
	case *api.PersistentVolumeClaim:
		if s, ok := o.Spec.Resources.Requests[api.ResourceStorage]; ok {
			u[ResourceRequestsStorage] = s
			if o.Spec.StorageClassName != nil && *o.Spec.StorageClassName != "" {
				u[api.ResourceName(*o.Spec.StorageClassName+storageClassSuffix+"requests.storage")] = s
			}
		}
		if o.Spec.StorageClassName != nil && *o.Spec.StorageClassName != "" {
			u[api.ResourceName(*o.Spec.StorageClassName+storageClassSuffix+"persistentvolumeclaims")] = one
		}
	}
	return u
}

// QuotaPod reports whether pod is charged for compute resources at now
// (kcm's QuotaV1Pod): not when it is terminal (Succeeded, Failed), nor
// when it was marked for deletion and its grace period has passed since
// its deletionTimestamp (a pod stuck terminating on a lost node).
func QuotaPod(pod *api.Pod, now time.Time) bool {
	if pod.Status.Phase == api.PodSucceeded || pod.Status.Phase == api.PodFailed {
		return false
	}
	if pod.DeletionTimestamp != nil && pod.DeletionGracePeriodSeconds != nil {
		grace := time.Duration(*pod.DeletionGracePeriodSeconds) * time.Second
		if now.After(pod.DeletionTimestamp.Time.Add(grace)) {
			return false
		}
	}
	return true
}

// computeUsage maps requests and limits to quota names (kcm's
// podComputeUsageHelper): bare cpu and memory are requests.
func computeUsage(req, lim api.ResourceList) api.ResourceList {
	u := api.ResourceList{}
	for _, r := range []api.ResourceName{api.ResourceCPU, api.ResourceMemory, api.ResourceEphemeralStorage} {
		if q, ok := req[r]; ok {
			u[r] = q
			u["requests."+r] = q
		}
		if q, ok := lim[r]; ok {
			u["limits."+r] = q
		}
	}
	return u
}

// isBestEffort reports the BestEffort QoS class: no container declares
// a cpu or memory request or limit.
func isBestEffort(p *api.Pod) bool {
	for _, cs := range [][]api.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for _, c := range cs {
			for _, l := range []api.ResourceList{c.Resources.Requests, c.Resources.Limits} {
				for _, r := range []api.ResourceName{api.ResourceCPU, api.ResourceMemory} {
					if q, ok := l[r]; ok && !q.IsZero() {
						return false
					}
				}
			}
		}
	}
	return true
}

// scopeSelectors returns a quota's scopes as selector requirements: each
// of spec.scopes as Exists, then spec.scopeSelector's (kcm's
// getScopeSelectorsFromQuota).
func scopeSelectors(q *api.ResourceQuota) []api.ScopedResourceSelectorRequirement {
	var out []api.ScopedResourceSelectorRequirement
	for _, s := range q.Spec.Scopes {
		out = append(out, api.ScopedResourceSelectorRequirement{ScopeName: s, Operator: "Exists"})
	}
	if q.Spec.ScopeSelector != nil {
		out = append(out, q.Spec.ScopeSelector.MatchExpressions...)
	}
	return out
}

// matchesScope reports whether obj is in the scope of one requirement.
// Only pods have scopes; every other object is outside every scope.
func matchesScope(s api.ScopedResourceSelectorRequirement, obj api.Object) bool {
	p, ok := obj.(*api.Pod)
	if !ok {
		return false
	}
	terminating := p.Spec.ActiveDeadlineSeconds != nil && *p.Spec.ActiveDeadlineSeconds >= 0
	switch s.ScopeName {
	case api.ResourceQuotaScopeTerminating:
		return terminating
	case api.ResourceQuotaScopeNotTerminating:
		return !terminating
	case api.ResourceQuotaScopeBestEffort:
		return isBestEffort(p)
	case api.ResourceQuotaScopeNotBestEffort:
		return !isBestEffort(p)
	case api.ResourceQuotaScopePriorityClass:
		// A label selector over the single label PriorityClass=<name>,
		// absent when the pod names no class.
		has := p.Spec.PriorityClassName != ""
		switch s.Operator {
		case "Exists":
			return has
		case "DoesNotExist":
			return !has
		case "In":
			return has && slices.Contains(s.Values, p.Spec.PriorityClassName)
		case "NotIn":
			return !has || !slices.Contains(s.Values, p.Spec.PriorityClassName)
		}
	}
	return false
}

// Matches reports whether quota q counts obj, an object of resource
// (kcm's generic.Matches): q limits something obj is charged for and
// obj is within every scope of q.
func Matches(q *api.ResourceQuota, resource string, obj api.Object) bool {
	return matches(q, names(q.Spec.Hard), resource, obj)
}

// matches is Matches over the given hard resource names: spec.hard's
// for the controller's count, status.hard's for admission (as
// kube-apiserver's evaluator, which enforces what the controller has
// observed).
func matches(q *api.ResourceQuota, hard []api.ResourceName, resource string, obj api.Object) bool {
	if len(MatchingResources(resource, hard)) == 0 {
		return false
	}
	for _, s := range scopeSelectors(q) {
		if !matchesScope(s, obj) {
			return false
		}
	}
	return true
}

// Objects are a namespace's objects per resource, a key of Counted
// ("pods" → its pods),
// what CalculateUsage counts.
type Objects map[string][]api.Object

// CalculateUsage returns the usage of q over objs at now, for every
// resource q.Spec.Hard names that some tracked resource is charged for
// (zero when nothing is), as kcm's CalculateUsage does.
func CalculateUsage(q *api.ResourceQuota, objs Objects, now time.Time) api.ResourceList {
	hard := names(q.Spec.Hard)
	used := api.ResourceList{}
	for resource := range Counted() {
		matched := MatchingResources(resource, hard)
		if len(matched) == 0 {
			continue
		}
		for _, n := range matched {
			if _, ok := used[n]; !ok {
				used[n] = api.NewQuantity(0, api.DecimalSI)
			}
		}
		for _, obj := range objs[resource] {
			if !Matches(q, resource, obj) {
				continue
			}
			u := Usage(resource, obj, now)
			for _, n := range matched {
				if v, ok := u[n]; ok {
					used[n] = used[n].Add(v)
				}
			}
		}
	}
	return used
}

// Status returns the status q should have over objs at now, and whether
// it differs from q's (kcm's syncResourceQuota): status.hard is
// spec.hard, status.used the calculated usage of the resources hard
// names; dirty when status.hard differs from spec.hard, when either
// status list is empty (the first sync), or when the usage changed.
func Status(q *api.ResourceQuota, objs Objects, now time.Time) (api.ResourceQuotaStatus, bool) {
	st := api.ResourceQuotaStatus{Hard: q.Spec.Hard.DeepCopy(), Used: CalculateUsage(q, objs, now)}
	if st.Hard == nil {
		st.Hard = api.ResourceList{}
	}
	dirty := q.Status.Hard == nil || q.Status.Used == nil ||
		!equalLists(q.Status.Hard, st.Hard) || !equalLists(q.Status.Used, st.Used)
	return st, dirty
}

func names(l api.ResourceList) []api.ResourceName {
	out := make([]api.ResourceName, 0, len(l))
	for n := range l {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func equalLists(a, b api.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for n, q := range a {
		if v, ok := b[n]; !ok || !v.Equal(q) {
			return false
		}
	}
	return true
}

// prettyPrint formats a list as kube-apiserver's quota errors do:
// name=value pairs sorted by name, joined by commas.
func prettyPrint(l api.ResourceList) string {
	var parts []string
	for _, n := range names(l) {
		parts = append(parts, string(n)+"="+l[n].String())
	}
	return strings.Join(parts, ",")
}

// constraints checks that every container of pod declares the cpu and
// memory requests and limits a quota restricting required constrains
// (kcm's podEvaluator.Constraints), with its message.
func constraints(required []api.ResourceName, pod *api.Pod) error {
	var req []api.ResourceName
	for _, n := range required {
		if slices.Contains(validationSet, n) {
			req = append(req, n)
		}
	}
	missing := map[api.ResourceName][]string{}
	for _, cs := range [][]api.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range cs {
			have := computeUsage(cs[i].Resources.Requests, cs[i].Resources.Limits)
			for _, n := range req {
				if _, ok := have[n]; !ok && !slices.Contains(missing[n], cs[i].Name) {
					missing[n] = append(missing[n], cs[i].Name)
				}
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	var msgs []string
	keys := make([]string, 0, len(missing))
	for n := range missing {
		keys = append(keys, string(n))
	}
	sort.Strings(keys)
	for _, k := range keys {
		c := missing[api.ResourceName(k)]
		sort.Strings(c)
		msgs = append(msgs, fmt.Sprintf("%s for: %s", k, strings.Join(c, ",")))
	}
	return fmt.Errorf("must specify %s", strings.Join(msgs, "; "))
}

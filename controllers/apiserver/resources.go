package apiserver

import (
	"fmt"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// resourceInfo is what discovery says about one resource.
type resourceInfo struct {
	group, version, kind string
	// name is the plural resource name ("pods").
	name       string
	namespaced bool
	shortNames []string
	categories []string
	hasStatus  bool
	hasScale   bool
}

func (r *resourceInfo) groupVersion() string {
	if r.group == "" {
		return r.version
	}
	return r.group + "/" + r.version
}

// qualified is "pods" or "deployments.apps", as kube-apiserver names a
// resource in messages.
func (r *resourceInfo) qualified() string {
	if r.group == "" {
		return r.name
	}
	return r.name + "." + r.group
}

// qualifiedKind is "Pod" or "Deployment.apps", as Invalid messages name a kind.
func (r *resourceInfo) qualifiedKind() string {
	if r.group == "" {
		return r.kind
	}
	return r.kind + "." + r.group
}

// singular is the lower-case kind.
func (r *resourceInfo) singular() string { return strings.ToLower(r.kind) }

// shortNames are kubectl's short names of the built-in resources.
var shortNames = map[string][]string{
	"pods": {"po"}, "services": {"svc"}, "deployments": {"deploy"}, "replicasets": {"rs"},
	"daemonsets": {"ds"}, "statefulsets": {"sts"}, "cronjobs": {"cj"}, "namespaces": {"ns"},
	"nodes": {"no"}, "endpoints": {"ep"}, "serviceaccounts": {"sa"}, "configmaps": {"cm"},
	"persistentvolumes": {"pv"}, "persistentvolumeclaims": {"pvc"},
	"horizontalpodautoscalers": {"hpa"}, "events": {"ev"}, "resourcequotas": {"quota"},
	"replicationcontrollers": {"rc"}, "storageclasses": {"sc"},
}

// allCategory are the resources `kubectl get all` lists.
var allCategory = map[string]bool{
	"pods": true, "services": true, "deployments": true, "replicasets": true, "daemonsets": true,
	"statefulsets": true, "jobs": true, "cronjobs": true, "replicationcontrollers": true,
	"horizontalpodautoscalers": true,
}

// handler serves the requests of one resource.
type handler interface {
	info() *resourceInfo
	serve(req *request)
}

// register adds the handler of T's store in c to s.
func register[T api.Object](s *Server, c *cluster.Cluster) error {
	st, ok := cluster.StoreFor[T](c)
	if !ok {
		var zero T
		return fmt.Errorf("apiserver: the cluster has no store of %T", zero)
	}
	var zero T
	obj, ok := api.New(zero.GroupVersionKind().Kind)
	if !ok {
		return fmt.Errorf("apiserver: unknown kind of %T", zero)
	}
	gvk := obj.GroupVersionKind()
	info := &resourceInfo{
		group: gvk.Group, version: gvk.Version, kind: gvk.Kind,
		name:       st.Resource(),
		namespaced: api.IsNamespaced(gvk.Kind),
		shortNames: shortNames[st.Resource()],
		hasStatus:  hasField(obj, "Status"),
		hasScale:   hasScale(obj),
	}
	if allCategory[info.name] {
		info.categories = []string{"all"}
	}
	h := &typed[T]{srv: s, store: st, res: info}
	s.handlers[info.groupVersion()+"/"+info.name] = h
	s.order = append(s.order, h)
	return nil
}

// registerAll registers every kind of controllers/api.
func registerAll(s *Server, c *cluster.Cluster) error {
	for _, f := range []func(*Server, *cluster.Cluster) error{
		register[*api.Pod], register[*api.Node], register[*api.Service], register[*api.Endpoints],
		register[*api.ReplicaSet], register[*api.ReplicationController], register[*api.Deployment],
		register[*api.StatefulSet], register[*api.DaemonSet], register[*api.ControllerRevision],
		register[*api.Job], register[*api.CronJob], register[*api.Namespace], register[*api.ResourceQuota],
		register[*api.ServiceAccount], register[*api.ConfigMap], register[*api.Secret],
		register[*api.PersistentVolume], register[*api.PersistentVolumeClaim], register[*api.StorageClass],
		register[*api.HorizontalPodAutoscaler], register[*api.Lease], register[*api.Event],
	} {
		if err := f(s, c); err != nil {
			return err
		}
	}
	if len(s.order) != len(api.Kinds()) {
		return fmt.Errorf("apiserver: %d kinds served, controllers/api has %d", len(s.order), len(api.Kinds()))
	}
	return nil
}

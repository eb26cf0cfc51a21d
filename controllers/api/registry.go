package api

import (
	"reflect"
	"slices"
	"time"
)

//go:generate go run ./internal/kindgen

// KindInfo is the registration of one kind: every fact about it that the
// API server's discovery, tables and routing, the decoder, the clients
// and the cluster's stores need. Each built-in kind is registered once,
// in this file; everything else derives from the registration (Kinds,
// Registered, InfoFor, …), so adding a built-in kind is adding its type
// and one registration here, then running go generate in this
// directory. Besides the deep copies, that writes the one thing Go cannot
// derive at run time: in each package with generic code per kind (the
// cluster's stores, the API server's handlers, the garbage collector's
// watchers, the resource quota's counters, the namespace controller's
// cleaners, the kube client's resources), the instantiation of that code
// for the kind's Go type (internal/kindgen; a test fails while one is out
// of date).
type KindInfo struct {
	// GroupVersionKind is the kind's current schema, the only version
	// served.
	GroupVersionKind
	// OldVersions are older apiVersions ("apps/v1beta2") whose documents
	// decode into the kind unchanged (see Decode).
	OldVersions []string
	// Resource is the plural resource name: the URL segment, the name in
	// discovery and the storage key prefix ("pods").
	Resource string
	// Namespaced is true for kinds whose objects live in a namespace.
	Namespaced bool
	// Status is true for kinds with a status subresource (a Status
	// field that Update ignores and UpdateStatus writes).
	Status bool
	// Scale is true for kinds with a scale subresource (autoscaling/v1
	// Scale).
	Scale bool
	// ScaleFields returns where obj, an object of the kind, keeps what
	// its scale subresource reads and writes: a pointer to its
	// spec.replicas field, its status.replicas and its pod selector in
	// label-selector syntax (what a CustomResourceDefinition's
	// specReplicasPath, statusReplicasPath and labelSelectorPath name);
	// set exactly when Scale is. specReplicas is nil for an object of
	// another kind.
	ScaleFields func(obj Object) (specReplicas **int32, statusReplicas int32, selector string)
	// ShortNames are kubectl's short names of the resource ("po").
	ShortNames []string
	// Categories are the discovery categories of the resource ("all":
	// what `kubectl get all` lists).
	Categories []string
	// Columns are the printer columns of the kind's tables (what
	// `kubectl get` prints), and Cells the cells of one object's row, one
	// per column; nil Columns means the API server's default (Name, Age).
	Columns []Column
	// Cells returns the cells of obj's row at time now; set exactly when
	// Columns is.
	Cells func(obj Object, now time.Time) []any

	// Default, if set, fills in the unset fields of obj, an object of
	// the kind, on every create and update, before validation (a
	// defaulting function, as a kind's SetDefaults or a mutating
	// webhook). The built-in kinds' defaulting lives in the cluster; this
	// hook is for kinds registered with Register.
	Default func(obj Object)
	// Validate, if set, checks obj, an object of the kind, on every
	// create and update, after Default, and returns every field error
	// found (nil when valid); the write then fails with a 422 Invalid
	// listing them. Metadata is validated by the cluster whatever this
	// says. For kinds registered with Register.
	Validate func(obj Object) []FieldError
	// ValidateUpdate, if set, checks what may not change between old,
	// the stored object, and obj, its replacement, on every update
	// (immutable fields), besides Validate. For kinds registered with
	// Register.
	ValidateUpdate func(old, obj Object) []FieldError

	typ reflect.Type
	new func() Object
}

// Column is one printer column of a kind (metav1.TableColumnDefinition):
// its name, its OpenAPI type ("string", "integer", "boolean") and its
// priority (0: always shown; 1: with `kubectl get -o wide`).
type Column struct {
	Name     string
	Type     string
	Priority int32
}

// New returns a new zero object of the kind, with its TypeMeta set.
func (k *KindInfo) New() Object {
	obj := k.new()
	setTypeMeta(obj, k.GroupVersionKind)
	return obj
}

// GoType returns the kind's Go type (*Pod for v1 Pod).
func (k *KindInfo) GoType() reflect.Type { return k.typ }

// QualifiedResource is the resource and its group as kube-apiserver
// names it in messages: "pods", "deployments.apps".
func (k *KindInfo) QualifiedResource() string {
	if k.Group == "" {
		return k.Resource
	}
	return k.Resource + "." + k.Group
}

// register completes the registration of T, the kind's Go type. It is
// the seam where a run-time registry of user kinds would add its own.
func register[T Object](info KindInfo) *KindInfo {
	info.typ = reflect.TypeFor[T]()
	elem := info.typ.Elem()
	info.new = func() Object { return reflect.New(elem).Interface().(Object) }
	return &info
}

// ScaleFieldsOf is the KindInfo.ScaleFields of a kind of Go type T, from
// f, which returns where an object of the kind keeps its spec.replicas
// (a pointer to the field), its status.replicas and its pod selector in
// label-selector syntax:
//
//	ScaleFields: api.ScaleFieldsOf(func(w *Widget) (**int32, int32, string) {
//		return &w.Spec.Replicas, w.Status.Replicas, "app=" + w.Name
//	}),
func ScaleFieldsOf[T Object](f func(T) (**int32, int32, string)) func(Object) (**int32, int32, string) {
	return scaleFields(f)
}

// scaleFields is the KindInfo.ScaleFields of a kind of Go type T, from
// f, which reads them from a T.
func scaleFields[T Object](f func(T) (**int32, int32, string)) func(Object) (**int32, int32, string) {
	return func(obj Object) (**int32, int32, string) {
		o, ok := obj.(T)
		if !ok {
			return nil, 0, ""
		}
		return f(o)
	}
}

// The groups and versions of the built-in kinds.
func core(kind string) GroupVersionKind { return GroupVersionKind{Version: "v1", Kind: kind} }
func apps(kind string) GroupVersionKind {
	return GroupVersionKind{Group: "apps", Version: "v1", Kind: kind}
}
func batch(kind string) GroupVersionKind {
	return GroupVersionKind{Group: "batch", Version: "v1", Kind: kind}
}
func networking(kind string) GroupVersionKind {
	return GroupVersionKind{Group: "networking.k8s.io", Version: "v1", Kind: kind}
}
func storage(kind string) GroupVersionKind {
	return GroupVersionKind{Group: "storage.k8s.io", Version: "v1", Kind: kind}
}
func rbacGroup(kind string) GroupVersionKind {
	return GroupVersionKind{Group: RBACGroup, Version: "v1", Kind: kind}
}
func admissionRegistration(kind string) GroupVersionKind {
	return GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: kind}
}

// all is the category of what `kubectl get all` lists.
var all = []string{"all"}

// The registrations of the built-in kinds.
var (
	podKind = register[*Pod](KindInfo{GroupVersionKind: core("Pod"), Resource: "pods", Namespaced: true,
		Status: true, ShortNames: []string{"po"}, Categories: all, Columns: podColumns, Cells: podCells})
	nodeKind = register[*Node](KindInfo{GroupVersionKind: core("Node"), Resource: "nodes",
		Status: true, ShortNames: []string{"no"}, Columns: nodeColumns, Cells: nodeCells})
	serviceKind = register[*Service](KindInfo{GroupVersionKind: core("Service"), Resource: "services", Namespaced: true,
		Status: true, ShortNames: []string{"svc"}, Categories: all, Columns: serviceColumns, Cells: serviceCells})
	endpointsKind = register[*Endpoints](KindInfo{GroupVersionKind: core("Endpoints"), Resource: "endpoints", Namespaced: true,
		ShortNames: []string{"ep"}, Columns: endpointsColumns, Cells: endpointsCells})
	replicaSetKind = register[*ReplicaSet](KindInfo{GroupVersionKind: apps("ReplicaSet"),
		OldVersions: []string{"apps/v1beta2", "extensions/v1beta1"}, Resource: "replicasets", Namespaced: true,
		Status: true, Scale: true, ShortNames: []string{"rs"}, Categories: all, Columns: replicaSetColumns, Cells: replicaSetCells,
		ScaleFields: scaleFields(func(o *ReplicaSet) (**int32, int32, string) {
			return &o.Spec.Replicas, o.Status.Replicas, labelSelectorString(o.Spec.Selector)
		})})
	replicationControllerKind = register[*ReplicationController](KindInfo{GroupVersionKind: core("ReplicationController"),
		Resource: "replicationcontrollers", Namespaced: true, Status: true, Scale: true, ShortNames: []string{"rc"}, Categories: all,
		ScaleFields: scaleFields(func(o *ReplicationController) (**int32, int32, string) {
			return &o.Spec.Replicas, o.Status.Replicas, SelectorFromSet(o.Spec.Selector).String()
		})})
	deploymentKind = register[*Deployment](KindInfo{GroupVersionKind: apps("Deployment"),
		OldVersions: []string{"apps/v1beta1", "apps/v1beta2", "extensions/v1beta1"}, Resource: "deployments", Namespaced: true,
		Status: true, Scale: true, ShortNames: []string{"deploy"}, Categories: all, Columns: deploymentColumns, Cells: deploymentCells,
		ScaleFields: scaleFields(func(o *Deployment) (**int32, int32, string) {
			return &o.Spec.Replicas, o.Status.Replicas, labelSelectorString(o.Spec.Selector)
		})})
	statefulSetKind = register[*StatefulSet](KindInfo{GroupVersionKind: apps("StatefulSet"),
		OldVersions: []string{"apps/v1beta1", "apps/v1beta2"}, Resource: "statefulsets", Namespaced: true,
		Status: true, Scale: true, ShortNames: []string{"sts"}, Categories: all, Columns: statefulSetColumns, Cells: statefulSetCells,
		ScaleFields: scaleFields(func(o *StatefulSet) (**int32, int32, string) {
			return &o.Spec.Replicas, o.Status.Replicas, labelSelectorString(o.Spec.Selector)
		})})
	daemonSetKind = register[*DaemonSet](KindInfo{GroupVersionKind: apps("DaemonSet"),
		OldVersions: []string{"apps/v1beta2", "extensions/v1beta1"}, Resource: "daemonsets", Namespaced: true,
		Status: true, ShortNames: []string{"ds"}, Categories: all, Columns: daemonSetColumns, Cells: daemonSetCells})
	controllerRevisionKind = register[*ControllerRevision](KindInfo{GroupVersionKind: apps("ControllerRevision"),
		OldVersions: []string{"apps/v1beta1", "apps/v1beta2"}, Resource: "controllerrevisions", Namespaced: true})
	jobKind = register[*Job](KindInfo{GroupVersionKind: batch("Job"), Resource: "jobs", Namespaced: true,
		Status: true, Categories: all, Columns: jobColumns, Cells: jobCells})
	cronJobKind = register[*CronJob](KindInfo{GroupVersionKind: batch("CronJob"),
		OldVersions: []string{"batch/v1beta1", "batch/v2alpha1"}, Resource: "cronjobs", Namespaced: true,
		Status: true, ShortNames: []string{"cj"}, Categories: all, Columns: cronJobColumns, Cells: cronJobCells})
	namespaceKind = register[*Namespace](KindInfo{GroupVersionKind: core("Namespace"), Resource: "namespaces",
		Status: true, ShortNames: []string{"ns"}, Columns: namespaceColumns, Cells: namespaceCells})
	resourceQuotaKind = register[*ResourceQuota](KindInfo{GroupVersionKind: core("ResourceQuota"), Resource: "resourcequotas",
		Namespaced: true, Status: true, ShortNames: []string{"quota"}})
	serviceAccountKind = register[*ServiceAccount](KindInfo{GroupVersionKind: core("ServiceAccount"), Resource: "serviceaccounts",
		Namespaced: true, ShortNames: []string{"sa"}})
	configMapKind = register[*ConfigMap](KindInfo{GroupVersionKind: core("ConfigMap"), Resource: "configmaps",
		Namespaced: true, ShortNames: []string{"cm"}})
	secretKind           = register[*Secret](KindInfo{GroupVersionKind: core("Secret"), Resource: "secrets", Namespaced: true})
	persistentVolumeKind = register[*PersistentVolume](KindInfo{GroupVersionKind: core("PersistentVolume"),
		Resource: "persistentvolumes", Status: true, ShortNames: []string{"pv"}})
	persistentVolumeClaimKind = register[*PersistentVolumeClaim](KindInfo{GroupVersionKind: core("PersistentVolumeClaim"),
		Resource: "persistentvolumeclaims", Namespaced: true, Status: true, ShortNames: []string{"pvc"}})
	storageClassKind = register[*StorageClass](KindInfo{GroupVersionKind: GroupVersionKind{Group: "storage.k8s.io", Version: "v1", Kind: "StorageClass"},
		OldVersions: []string{"storage.k8s.io/v1beta1"}, Resource: "storageclasses", ShortNames: []string{"sc"}})
	horizontalPodAutoscalerKind = register[*HorizontalPodAutoscaler](KindInfo{GroupVersionKind: GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"},
		OldVersions: []string{"autoscaling/v2beta2"}, Resource: "horizontalpodautoscalers", Namespaced: true,
		Status: true, ShortNames: []string{"hpa"}, Categories: all, Columns: horizontalPodAutoscalerColumns, Cells: horizontalPodAutoscalerCells})
	leaseKind = register[*Lease](KindInfo{GroupVersionKind: GroupVersionKind{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"},
		OldVersions: []string{"coordination.k8s.io/v1beta1"}, Resource: "leases", Namespaced: true})
	eventKind = register[*Event](KindInfo{GroupVersionKind: core("Event"), Resource: "events", Namespaced: true,
		ShortNames: []string{"ev"}, Columns: eventColumns, Cells: eventCells})
	customResourceDefinitionKind = register[*CustomResourceDefinition](KindInfo{GroupVersionKind: GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"},
		Resource: "customresourcedefinitions", Status: true, ShortNames: []string{"crd", "crds"}})
	validatingWebhookConfigurationKind = register[*ValidatingWebhookConfiguration](KindInfo{
		GroupVersionKind: admissionRegistration("ValidatingWebhookConfiguration"),
		OldVersions:      []string{"admissionregistration.k8s.io/v1beta1"}, Resource: "validatingwebhookconfigurations"})
	mutatingWebhookConfigurationKind = register[*MutatingWebhookConfiguration](KindInfo{
		GroupVersionKind: admissionRegistration("MutatingWebhookConfiguration"),
		OldVersions:      []string{"admissionregistration.k8s.io/v1beta1"}, Resource: "mutatingwebhookconfigurations"})
	podDisruptionBudgetKind = register[*PodDisruptionBudget](KindInfo{GroupVersionKind: GroupVersionKind{Group: "policy", Version: "v1", Kind: "PodDisruptionBudget"},
		OldVersions: []string{"policy/v1beta1"}, Resource: "poddisruptionbudgets", Namespaced: true, Status: true,
		ShortNames: []string{"pdb"}, Columns: podDisruptionBudgetColumns, Cells: podDisruptionBudgetCells})
	ingressKind = register[*Ingress](KindInfo{GroupVersionKind: networking("Ingress"), OldVersions: []string{"networking.k8s.io/v1beta1", "extensions/v1beta1"},
		Resource: "ingresses", Namespaced: true, Status: true, ShortNames: []string{"ing"}, Columns: ingressColumns, Cells: ingressCells})
	ingressClassKind = register[*IngressClass](KindInfo{GroupVersionKind: networking("IngressClass"), OldVersions: []string{"networking.k8s.io/v1beta1"},
		Resource: "ingressclasses", Columns: ingressClassColumns, Cells: ingressClassCells})
	networkPolicyKind = register[*NetworkPolicy](KindInfo{GroupVersionKind: networking("NetworkPolicy"), OldVersions: []string{"extensions/v1beta1"},
		Resource: "networkpolicies", Namespaced: true, ShortNames: []string{"netpol"}, Columns: networkPolicyColumns, Cells: networkPolicyCells})
	priorityClassKind = register[*PriorityClass](KindInfo{GroupVersionKind: GroupVersionKind{Group: "scheduling.k8s.io", Version: "v1", Kind: "PriorityClass"},
		OldVersions: []string{"scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1alpha1"}, Resource: "priorityclasses",
		ShortNames: []string{"pc"}, Columns: priorityClassColumns, Cells: priorityClassCells})
	limitRangeKind = register[*LimitRange](KindInfo{GroupVersionKind: core("LimitRange"), Resource: "limitranges", Namespaced: true,
		ShortNames: []string{"limits"}, Columns: limitRangeColumns, Cells: limitRangeCells})
	endpointSliceKind = register[*EndpointSlice](KindInfo{GroupVersionKind: GroupVersionKind{Group: "discovery.k8s.io", Version: "v1", Kind: "EndpointSlice"},
		OldVersions: []string{"discovery.k8s.io/v1beta1"}, Resource: "endpointslices", Namespaced: true,
		Columns: endpointSliceColumns, Cells: endpointSliceCells})
	csiDriverKind = register[*CSIDriver](KindInfo{GroupVersionKind: storage("CSIDriver"), OldVersions: []string{"storage.k8s.io/v1beta1"},
		Resource: "csidrivers", Columns: csiDriverColumns, Cells: csiDriverCells})
	csiNodeKind = register[*CSINode](KindInfo{GroupVersionKind: storage("CSINode"), OldVersions: []string{"storage.k8s.io/v1beta1"},
		Resource: "csinodes", Columns: csiNodeColumns, Cells: csiNodeCells})
	volumeAttachmentKind = register[*VolumeAttachment](KindInfo{GroupVersionKind: storage("VolumeAttachment"), OldVersions: []string{"storage.k8s.io/v1beta1"},
		Resource: "volumeattachments", Status: true, Columns: volumeAttachmentColumns, Cells: volumeAttachmentCells})
	roleKind = register[*Role](KindInfo{GroupVersionKind: rbacGroup("Role"), OldVersions: []string{RBACGroup + "/v1beta1"},
		Resource: "roles", Namespaced: true, Columns: roleColumns, Cells: roleCells})
	clusterRoleKind = register[*ClusterRole](KindInfo{GroupVersionKind: rbacGroup("ClusterRole"), OldVersions: []string{RBACGroup + "/v1beta1"},
		Resource: "clusterroles", Columns: roleColumns, Cells: roleCells})
	roleBindingKind = register[*RoleBinding](KindInfo{GroupVersionKind: rbacGroup("RoleBinding"), OldVersions: []string{RBACGroup + "/v1beta1"},
		Resource: "rolebindings", Namespaced: true, Columns: roleBindingColumns, Cells: roleBindingCells})
	clusterRoleBindingKind = register[*ClusterRoleBinding](KindInfo{GroupVersionKind: rbacGroup("ClusterRoleBinding"), OldVersions: []string{RBACGroup + "/v1beta1"},
		Resource: "clusterrolebindings", Columns: roleBindingColumns, Cells: roleBindingCells})
)

// builtin is every built-in kind, in the order Kinds and Registered list
// them (the order of discovery documents).
var builtin = newRegistry(podKind, nodeKind, serviceKind, endpointsKind, replicaSetKind,
	replicationControllerKind, deploymentKind, statefulSetKind, daemonSetKind, controllerRevisionKind,
	jobKind, cronJobKind, namespaceKind, resourceQuotaKind, serviceAccountKind, configMapKind, secretKind,
	persistentVolumeKind, persistentVolumeClaimKind, storageClassKind, horizontalPodAutoscalerKind,
	leaseKind, eventKind, customResourceDefinitionKind,
	validatingWebhookConfigurationKind, mutatingWebhookConfigurationKind,
	podDisruptionBudgetKind, ingressKind, ingressClassKind, networkPolicyKind, priorityClassKind,
	limitRangeKind, endpointSliceKind, csiDriverKind, csiNodeKind, volumeAttachmentKind,
	roleKind, clusterRoleKind, roleBindingKind, clusterRoleBindingKind)

// GroupVersionKind methods: each type's registration.

// GroupVersionKind returns v1, Kind=Pod.
func (*Pod) GroupVersionKind() GroupVersionKind { return podKind.GroupVersionKind }

// GroupVersionKind returns v1, Kind=Node.
func (*Node) GroupVersionKind() GroupVersionKind { return nodeKind.GroupVersionKind }

// GroupVersionKind returns v1, Kind=Service.
func (*Service) GroupVersionKind() GroupVersionKind { return serviceKind.GroupVersionKind }

// GroupVersionKind returns v1, Kind=Endpoints.
func (*Endpoints) GroupVersionKind() GroupVersionKind { return endpointsKind.GroupVersionKind }

// GroupVersionKind returns apps/v1, Kind=ReplicaSet.
func (*ReplicaSet) GroupVersionKind() GroupVersionKind { return replicaSetKind.GroupVersionKind }

// GroupVersionKind returns v1, Kind=ReplicationController.
func (*ReplicationController) GroupVersionKind() GroupVersionKind {
	return replicationControllerKind.GroupVersionKind
}

// GroupVersionKind returns apps/v1, Kind=Deployment.
func (*Deployment) GroupVersionKind() GroupVersionKind { return deploymentKind.GroupVersionKind }

// GroupVersionKind returns apps/v1, Kind=StatefulSet.
func (*StatefulSet) GroupVersionKind() GroupVersionKind { return statefulSetKind.GroupVersionKind }

// GroupVersionKind returns apps/v1, Kind=DaemonSet.
func (*DaemonSet) GroupVersionKind() GroupVersionKind { return daemonSetKind.GroupVersionKind }

// GroupVersionKind returns apps/v1, Kind=ControllerRevision.
func (*ControllerRevision) GroupVersionKind() GroupVersionKind {
	return controllerRevisionKind.GroupVersionKind
}

// GroupVersionKind returns batch/v1, Kind=Job.
func (*Job) GroupVersionKind() GroupVersionKind { return jobKind.GroupVersionKind }

// GroupVersionKind returns batch/v1, Kind=CronJob.
func (*CronJob) GroupVersionKind() GroupVersionKind { return cronJobKind.GroupVersionKind }

// GroupVersionKind returns v1, Kind=Namespace.
func (*Namespace) GroupVersionKind() GroupVersionKind { return namespaceKind.GroupVersionKind }

// GroupVersionKind returns v1, Kind=ResourceQuota.
func (*ResourceQuota) GroupVersionKind() GroupVersionKind { return resourceQuotaKind.GroupVersionKind }

// GroupVersionKind returns v1, Kind=ServiceAccount.
func (*ServiceAccount) GroupVersionKind() GroupVersionKind {
	return serviceAccountKind.GroupVersionKind
}

// GroupVersionKind returns v1, Kind=ConfigMap.
func (*ConfigMap) GroupVersionKind() GroupVersionKind { return configMapKind.GroupVersionKind }

// GroupVersionKind returns v1, Kind=Secret.
func (*Secret) GroupVersionKind() GroupVersionKind { return secretKind.GroupVersionKind }

// GroupVersionKind returns v1, Kind=PersistentVolume.
func (*PersistentVolume) GroupVersionKind() GroupVersionKind {
	return persistentVolumeKind.GroupVersionKind
}

// GroupVersionKind returns v1, Kind=PersistentVolumeClaim.
func (*PersistentVolumeClaim) GroupVersionKind() GroupVersionKind {
	return persistentVolumeClaimKind.GroupVersionKind
}

// GroupVersionKind returns storage.k8s.io/v1, Kind=StorageClass.
func (*StorageClass) GroupVersionKind() GroupVersionKind { return storageClassKind.GroupVersionKind }

// GroupVersionKind returns autoscaling/v2, Kind=HorizontalPodAutoscaler.
func (*HorizontalPodAutoscaler) GroupVersionKind() GroupVersionKind {
	return horizontalPodAutoscalerKind.GroupVersionKind
}

// GroupVersionKind returns coordination.k8s.io/v1, Kind=Lease.
func (*Lease) GroupVersionKind() GroupVersionKind { return leaseKind.GroupVersionKind }

// GroupVersionKind returns v1, Kind=Event.
func (*Event) GroupVersionKind() GroupVersionKind { return eventKind.GroupVersionKind }

// GroupVersionKind returns apiextensions.k8s.io/v1, Kind=CustomResourceDefinition.
func (*CustomResourceDefinition) GroupVersionKind() GroupVersionKind {
	return customResourceDefinitionKind.GroupVersionKind
}

// GroupVersionKind returns admissionregistration.k8s.io/v1,
// Kind=ValidatingWebhookConfiguration.
func (*ValidatingWebhookConfiguration) GroupVersionKind() GroupVersionKind {
	return validatingWebhookConfigurationKind.GroupVersionKind
}

// GroupVersionKind returns admissionregistration.k8s.io/v1,
// Kind=MutatingWebhookConfiguration.
func (*MutatingWebhookConfiguration) GroupVersionKind() GroupVersionKind {
	return mutatingWebhookConfigurationKind.GroupVersionKind
}

// GroupVersionKind returns policy/v1, Kind=PodDisruptionBudget.
func (*PodDisruptionBudget) GroupVersionKind() GroupVersionKind {
	return podDisruptionBudgetKind.GroupVersionKind
}

// GroupVersionKind returns networking.k8s.io/v1, Kind=Ingress.
func (*Ingress) GroupVersionKind() GroupVersionKind { return ingressKind.GroupVersionKind }

// GroupVersionKind returns networking.k8s.io/v1, Kind=IngressClass.
func (*IngressClass) GroupVersionKind() GroupVersionKind { return ingressClassKind.GroupVersionKind }

// GroupVersionKind returns networking.k8s.io/v1, Kind=NetworkPolicy.
func (*NetworkPolicy) GroupVersionKind() GroupVersionKind { return networkPolicyKind.GroupVersionKind }

// GroupVersionKind returns scheduling.k8s.io/v1, Kind=PriorityClass.
func (*PriorityClass) GroupVersionKind() GroupVersionKind { return priorityClassKind.GroupVersionKind }

// GroupVersionKind returns v1, Kind=LimitRange.
func (*LimitRange) GroupVersionKind() GroupVersionKind { return limitRangeKind.GroupVersionKind }

// GroupVersionKind returns discovery.k8s.io/v1, Kind=EndpointSlice.
func (*EndpointSlice) GroupVersionKind() GroupVersionKind { return endpointSliceKind.GroupVersionKind }

// GroupVersionKind returns storage.k8s.io/v1, Kind=CSIDriver.
func (*CSIDriver) GroupVersionKind() GroupVersionKind { return csiDriverKind.GroupVersionKind }

// GroupVersionKind returns storage.k8s.io/v1, Kind=CSINode.
func (*CSINode) GroupVersionKind() GroupVersionKind { return csiNodeKind.GroupVersionKind }

// GroupVersionKind returns storage.k8s.io/v1, Kind=VolumeAttachment.
func (*VolumeAttachment) GroupVersionKind() GroupVersionKind {
	return volumeAttachmentKind.GroupVersionKind
}

// GroupVersionKind returns rbac.authorization.k8s.io/v1, Kind=Role.
func (*Role) GroupVersionKind() GroupVersionKind { return roleKind.GroupVersionKind }

// GroupVersionKind returns rbac.authorization.k8s.io/v1, Kind=ClusterRole.
func (*ClusterRole) GroupVersionKind() GroupVersionKind { return clusterRoleKind.GroupVersionKind }

// GroupVersionKind returns rbac.authorization.k8s.io/v1, Kind=RoleBinding.
func (*RoleBinding) GroupVersionKind() GroupVersionKind { return roleBindingKind.GroupVersionKind }

// GroupVersionKind returns rbac.authorization.k8s.io/v1, Kind=ClusterRoleBinding.
func (*ClusterRoleBinding) GroupVersionKind() GroupVersionKind {
	return clusterRoleBindingKind.GroupVersionKind
}

// registry is a fixed table of kinds and its indexes, read-only once
// built.
type registry struct {
	kinds       []*KindInfo
	byKind      map[string]*KindInfo
	byGroupKind map[[2]string]*KindInfo // group, kind
	byType      map[reflect.Type]*KindInfo
	byResource  map[[2]string]*KindInfo // group, resource
}

func newRegistry(kinds ...*KindInfo) *registry {
	r := &registry{kinds: kinds, byKind: map[string]*KindInfo{}, byType: map[reflect.Type]*KindInfo{},
		byResource: map[[2]string]*KindInfo{}, byGroupKind: map[[2]string]*KindInfo{}}
	for _, k := range kinds {
		r.byKind[k.Kind] = k
		r.byGroupKind[[2]string{k.Group, k.Kind}] = k
		r.byType[k.typ] = k
		r.byResource[[2]string{k.Group, k.Resource}] = k
	}
	return r
}

// lookupKind returns the kind registered under kind, and whether apiVersion
// is its current or one of its accepted older versions.
func lookupKind(apiVersion, kind string) (info *KindInfo, versionOK bool) {
	info = builtin.byKind[kind]
	if info == nil || (info.APIVersion() != apiVersion && !slices.Contains(info.OldVersions, apiVersion)) {
		if u := lookupGroupKind(groupOf(apiVersion), kind); u != nil {
			return u, apiVersion == u.APIVersion()
		}
	}
	if info == nil {
		return nil, false
	}
	return info, apiVersion == info.APIVersion() || slices.Contains(info.OldVersions, apiVersion)
}

// copyInfo returns a copy of k that shares none of its slices.
func copyInfo(k *KindInfo) KindInfo {
	c := *k
	c.OldVersions = slices.Clone(k.OldVersions)
	c.ShortNames = slices.Clone(k.ShortNames)
	c.Categories = slices.Clone(k.Categories)
	c.Columns = slices.Clone(k.Columns)
	return c
}

// lookupGroupKind returns the kind named group and kind, built-in or
// registered with Register, or nil.
func lookupGroupKind(group, kind string) *KindInfo {
	if k := builtin.byKind[kind]; k != nil && k.Group == group {
		return k
	}
	return registeredKinds().byGroupKind[[2]string{group, kind}]
}

// Registered returns the registration of every kind: the built-in ones,
// in the order of Kinds, then those of Register, in the order they were
// registered. The KindInfos are copies: changing one changes nothing
// else.
func Registered() []KindInfo {
	user := registeredKinds().kinds
	out := make([]KindInfo, 0, len(builtin.kinds)+len(user))
	for _, k := range builtin.kinds {
		out = append(out, copyInfo(k))
	}
	for _, k := range user {
		out = append(out, copyInfo(k))
	}
	return out
}

// IsBuiltin reports whether gvk is one of the built-in kinds of this
// package (Kinds), not one added with Register.
func IsBuiltin(gvk GroupVersionKind) bool {
	k := builtin.byKind[gvk.Kind]
	return k != nil && k.GroupVersionKind == gvk
}

// Kinds returns the current GroupVersionKind of every built-in kind this
// package defines, in a fixed order.
func Kinds() []GroupVersionKind {
	out := make([]GroupVersionKind, len(builtin.kinds))
	for i, k := range builtin.kinds {
		out[i] = k.GroupVersionKind
	}
	return out
}

// InfoOf returns the registration of the kind gvk names (group, version
// and kind must all match its current schema), or false.
func InfoOf(gvk GroupVersionKind) (KindInfo, bool) {
	k := lookupGroupKind(gvk.Group, gvk.Kind)
	if k == nil || k.GroupVersionKind != gvk {
		return KindInfo{}, false
	}
	return copyInfo(k), true
}

// InfoFor returns the registration of the kind whose Go type is T
// (InfoFor[*Pod]()), or false.
func InfoFor[T Object]() (KindInfo, bool) {
	k := builtin.byType[reflect.TypeFor[T]()]
	if k == nil {
		k = registeredKinds().byType[reflect.TypeFor[T]()]
	}
	if k == nil {
		return KindInfo{}, false
	}
	return copyInfo(k), true
}

// InfoOfResource returns the registration of the kind served as the
// resource of group ("" for the core group), or false.
func InfoOfResource(group, resource string) (KindInfo, bool) {
	k := builtin.byResource[[2]string{group, resource}]
	if k == nil {
		k = registeredKinds().byResource[[2]string{group, resource}]
	}
	if k == nil {
		return KindInfo{}, false
	}
	return copyInfo(k), true
}

// New returns a new zero object of the named kind (TypeMeta filled in),
// or false if no kind has the name. A built-in kind wins over a kind
// added with Register, and among those the first registered wins; InfoOf
// names a kind with its group.
func New(kind string) (Object, bool) {
	info := byKindName(kind)
	if info == nil {
		return nil, false
	}
	return info.New(), true
}

// IsNamespaced reports whether objects of the named kind (as New finds
// it) live in a namespace; it is false for unknown kinds.
func IsNamespaced(kind string) bool {
	info := byKindName(kind)
	return info != nil && info.Namespaced
}

// byKindName returns the built-in kind named kind, else the first kind
// of that name added with Register, or nil.
func byKindName(kind string) *KindInfo {
	if info := builtin.byKind[kind]; info != nil {
		return info
	}
	for _, k := range registeredKinds().kinds {
		if k.Kind == kind {
			return k
		}
	}
	return nil
}

// typeMetaHolder is implemented by every kind through its embedded TypeMeta.
type typeMetaHolder interface {
	typeMeta() *TypeMeta
}

func (t *TypeMeta) typeMeta() *TypeMeta { return t }

func setTypeMeta(obj Object, gvk GroupVersionKind) {
	if h, ok := obj.(typeMetaHolder); ok {
		*h.typeMeta() = gvk.TypeMeta()
	}
}

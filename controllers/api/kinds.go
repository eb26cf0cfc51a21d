package api

import "slices"

// kindInfo describes one kind: its current schema, the older apiVersions
// whose documents decode into it unchanged, whether it is namespaced, and a
// constructor of its zero value.
type kindInfo struct {
	gvk        GroupVersionKind
	old        []string // older apiVersions accepted on decode
	namespaced bool
	new        func() Object
}

func gv(group, version, kind string) GroupVersionKind {
	return GroupVersionKind{Group: group, Version: version, Kind: kind}
}

var appsOld = []string{"apps/v1beta1", "apps/v1beta2", "extensions/v1beta1"}

// kinds is the registry of every kind, in the order Kinds lists them.
var kinds = []kindInfo{
	{gv("", "v1", "Pod"), nil, true, func() Object { return new(Pod) }},
	{gv("", "v1", "Node"), nil, false, func() Object { return new(Node) }},
	{gv("", "v1", "Service"), nil, true, func() Object { return new(Service) }},
	{gv("", "v1", "Endpoints"), nil, true, func() Object { return new(Endpoints) }},
	{gv("apps", "v1", "ReplicaSet"), []string{"apps/v1beta2", "extensions/v1beta1"}, true, func() Object { return new(ReplicaSet) }},
	{gv("", "v1", "ReplicationController"), nil, true, func() Object { return new(ReplicationController) }},
	{gv("apps", "v1", "Deployment"), appsOld, true, func() Object { return new(Deployment) }},
	{gv("apps", "v1", "StatefulSet"), []string{"apps/v1beta1", "apps/v1beta2"}, true, func() Object { return new(StatefulSet) }},
	{gv("apps", "v1", "DaemonSet"), []string{"apps/v1beta2", "extensions/v1beta1"}, true, func() Object { return new(DaemonSet) }},
	{gv("apps", "v1", "ControllerRevision"), []string{"apps/v1beta1", "apps/v1beta2"}, true, func() Object { return new(ControllerRevision) }},
	{gv("batch", "v1", "Job"), nil, true, func() Object { return new(Job) }},
	{gv("batch", "v1", "CronJob"), []string{"batch/v1beta1", "batch/v2alpha1"}, true, func() Object { return new(CronJob) }},
	{gv("", "v1", "Namespace"), nil, false, func() Object { return new(Namespace) }},
	{gv("", "v1", "ResourceQuota"), nil, true, func() Object { return new(ResourceQuota) }},
	{gv("", "v1", "ServiceAccount"), nil, true, func() Object { return new(ServiceAccount) }},
	{gv("", "v1", "ConfigMap"), nil, true, func() Object { return new(ConfigMap) }},
	{gv("", "v1", "Secret"), nil, true, func() Object { return new(Secret) }},
	{gv("", "v1", "PersistentVolume"), nil, false, func() Object { return new(PersistentVolume) }},
	{gv("", "v1", "PersistentVolumeClaim"), nil, true, func() Object { return new(PersistentVolumeClaim) }},
	{gv("storage.k8s.io", "v1", "StorageClass"), []string{"storage.k8s.io/v1beta1"}, false, func() Object { return new(StorageClass) }},
	{gv("autoscaling", "v2", "HorizontalPodAutoscaler"), []string{"autoscaling/v2beta2"}, true, func() Object { return new(HorizontalPodAutoscaler) }},
	{gv("coordination.k8s.io", "v1", "Lease"), []string{"coordination.k8s.io/v1beta1"}, true, func() Object { return new(Lease) }},
	{gv("", "v1", "Event"), nil, true, func() Object { return new(Event) }},
}

var kindByName = func() map[string]*kindInfo {
	m := make(map[string]*kindInfo, len(kinds))
	for i := range kinds {
		m[kinds[i].gvk.Kind] = &kinds[i]
	}
	return m
}()

// lookupKind returns the kind registered under kind, and whether apiVersion
// is its current or one of its accepted older versions.
func lookupKind(apiVersion, kind string) (info *kindInfo, versionOK bool) {
	info = kindByName[kind]
	if info == nil {
		return nil, false
	}
	return info, apiVersion == info.gvk.APIVersion() || slices.Contains(info.old, apiVersion)
}

// Kinds returns the current GroupVersionKind of every kind this package
// defines, in a fixed order.
func Kinds() []GroupVersionKind {
	out := make([]GroupVersionKind, len(kinds))
	for i, k := range kinds {
		out[i] = k.gvk
	}
	return out
}

// New returns a new zero object of the named kind (TypeMeta filled in), or
// false if this package does not define the kind.
func New(kind string) (Object, bool) {
	info := kindByName[kind]
	if info == nil {
		return nil, false
	}
	obj := info.new()
	setTypeMeta(obj, info.gvk)
	return obj, true
}

// IsNamespaced reports whether objects of the kind live in a namespace; it
// is false for unknown kinds.
func IsNamespaced(kind string) bool {
	info := kindByName[kind]
	return info != nil && info.namespaced
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

// GroupVersionKind methods: the current schema of each kind.

// GroupVersionKind returns v1, Kind=Pod.
func (*Pod) GroupVersionKind() GroupVersionKind { return kinds[0].gvk }

// GroupVersionKind returns v1, Kind=Node.
func (*Node) GroupVersionKind() GroupVersionKind { return kinds[1].gvk }

// GroupVersionKind returns v1, Kind=Service.
func (*Service) GroupVersionKind() GroupVersionKind { return kinds[2].gvk }

// GroupVersionKind returns v1, Kind=Endpoints.
func (*Endpoints) GroupVersionKind() GroupVersionKind { return kinds[3].gvk }

// GroupVersionKind returns apps/v1, Kind=ReplicaSet.
func (*ReplicaSet) GroupVersionKind() GroupVersionKind { return kinds[4].gvk }

// GroupVersionKind returns v1, Kind=ReplicationController.
func (*ReplicationController) GroupVersionKind() GroupVersionKind { return kinds[5].gvk }

// GroupVersionKind returns apps/v1, Kind=Deployment.
func (*Deployment) GroupVersionKind() GroupVersionKind { return kinds[6].gvk }

// GroupVersionKind returns apps/v1, Kind=StatefulSet.
func (*StatefulSet) GroupVersionKind() GroupVersionKind { return kinds[7].gvk }

// GroupVersionKind returns apps/v1, Kind=DaemonSet.
func (*DaemonSet) GroupVersionKind() GroupVersionKind { return kinds[8].gvk }

// GroupVersionKind returns apps/v1, Kind=ControllerRevision.
func (*ControllerRevision) GroupVersionKind() GroupVersionKind { return kinds[9].gvk }

// GroupVersionKind returns batch/v1, Kind=Job.
func (*Job) GroupVersionKind() GroupVersionKind { return kinds[10].gvk }

// GroupVersionKind returns batch/v1, Kind=CronJob.
func (*CronJob) GroupVersionKind() GroupVersionKind { return kinds[11].gvk }

// GroupVersionKind returns v1, Kind=Namespace.
func (*Namespace) GroupVersionKind() GroupVersionKind { return kinds[12].gvk }

// GroupVersionKind returns v1, Kind=ResourceQuota.
func (*ResourceQuota) GroupVersionKind() GroupVersionKind { return kinds[13].gvk }

// GroupVersionKind returns v1, Kind=ServiceAccount.
func (*ServiceAccount) GroupVersionKind() GroupVersionKind { return kinds[14].gvk }

// GroupVersionKind returns v1, Kind=ConfigMap.
func (*ConfigMap) GroupVersionKind() GroupVersionKind { return kinds[15].gvk }

// GroupVersionKind returns v1, Kind=Secret.
func (*Secret) GroupVersionKind() GroupVersionKind { return kinds[16].gvk }

// GroupVersionKind returns v1, Kind=PersistentVolume.
func (*PersistentVolume) GroupVersionKind() GroupVersionKind { return kinds[17].gvk }

// GroupVersionKind returns v1, Kind=PersistentVolumeClaim.
func (*PersistentVolumeClaim) GroupVersionKind() GroupVersionKind { return kinds[18].gvk }

// GroupVersionKind returns storage.k8s.io/v1, Kind=StorageClass.
func (*StorageClass) GroupVersionKind() GroupVersionKind { return kinds[19].gvk }

// GroupVersionKind returns autoscaling/v2, Kind=HorizontalPodAutoscaler.
func (*HorizontalPodAutoscaler) GroupVersionKind() GroupVersionKind { return kinds[20].gvk }

// GroupVersionKind returns coordination.k8s.io/v1, Kind=Lease.
func (*Lease) GroupVersionKind() GroupVersionKind { return kinds[21].gvk }

// GroupVersionKind returns v1, Kind=Event.
func (*Event) GroupVersionKind() GroupVersionKind { return kinds[22].gvk }

package api

// Well-known labels, annotations and taints: the names Kubernetes'
// components agree on (k8s.io/api's well_known_labels.go,
// well_known_taints.go, and the apps and batch constants), defined once
// for every ctrlkit component.

// Node labels the kubelet sets and the scheduler and node lifecycle
// controller read.
const (
	// LabelHostname is the node's hostname.
	LabelHostname = "kubernetes.io/hostname"
	// LabelOS is the node's operating system.
	LabelOS = "kubernetes.io/os"
	// LabelArch is the node's architecture.
	LabelArch = "kubernetes.io/arch"
	// LabelTopologyZone is the node's failure zone.
	LabelTopologyZone = "topology.kubernetes.io/zone"
	// LabelTopologyRegion is the node's region.
	LabelTopologyRegion = "topology.kubernetes.io/region"
	// LabelNodeExcludeDisruption keeps a node out of the node lifecycle
	// controller's zone disruption counts.
	LabelNodeExcludeDisruption = "node.kubernetes.io/exclude-disruption"
	// LabelMetadataName is the label every namespace carries with its own
	// name.
	LabelMetadataName = "kubernetes.io/metadata.name"
)

// Labels and annotations of workloads and their pods.
const (
	// LabelPodTemplateHash tells apart the ReplicaSets of one Deployment
	// and their pods (apps/v1 DefaultDeploymentUniqueLabelKey).
	LabelPodTemplateHash = "pod-template-hash"
	// LabelControllerRevisionHash names the ControllerRevision a
	// StatefulSet's or DaemonSet's pod was made from.
	LabelControllerRevisionHash = "controller-revision-hash"
	// LabelStatefulSetPodName carries a StatefulSet pod's name.
	LabelStatefulSetPodName = "statefulset.kubernetes.io/pod-name"
	// LabelPodIndex carries a StatefulSet pod's ordinal.
	LabelPodIndex = "apps.kubernetes.io/pod-index"
	// LabelControllerUID carries a Job's uid on its pods; the generated
	// selector selects it.
	LabelControllerUID = "batch.kubernetes.io/controller-uid"
	// LabelJobName carries a Job's name on its pods.
	LabelJobName = "batch.kubernetes.io/job-name"
	// LabelJobCompletionIndex carries an Indexed Job pod's completion
	// index (also an annotation of the same name).
	LabelJobCompletionIndex = "batch.kubernetes.io/job-completion-index"
	// LabelServiceHeadless marks the Endpoints of a headless service.
	LabelServiceHeadless = "service.kubernetes.io/headless"

	// AnnotationDeploymentRevision is the revision of a Deployment and of
	// its ReplicaSets.
	AnnotationDeploymentRevision = "deployment.kubernetes.io/revision"
	// AnnotationDesiredReplicas is a Deployment's replicas, on its
	// ReplicaSets.
	AnnotationDesiredReplicas = "deployment.kubernetes.io/desired-replicas"
	// AnnotationMaxReplicas is a Deployment's replicas plus its maxSurge,
	// on its ReplicaSets.
	AnnotationMaxReplicas = "deployment.kubernetes.io/max-replicas"
	// AnnotationLastAppliedConfig is what `kubectl apply` last applied.
	AnnotationLastAppliedConfig = "kubectl.kubernetes.io/last-applied-configuration"
)

// Annotations of static and mirror pods.
const (
	// AnnotationConfigMirror marks a mirror pod, with its static pod's
	// hash.
	AnnotationConfigMirror = "kubernetes.io/config.mirror"
	// AnnotationConfigHash is a static pod's hash.
	AnnotationConfigHash = "kubernetes.io/config.hash"
	// AnnotationConfigSource is where a static pod came from ("file").
	AnnotationConfigSource = "kubernetes.io/config.source"
	// AnnotationConfigSeen is when the kubelet first saw a static pod.
	AnnotationConfigSeen = "kubernetes.io/config.seen"
)

// Taints the node lifecycle controller and the kubelet put on nodes.
const (
	// TaintNodeNotReady: the node is not ready. Pods tolerate it for 300
	// seconds by default.
	TaintNodeNotReady = "node.kubernetes.io/not-ready"
	// TaintNodeUnreachable: the node's kubelet stopped reporting. Pods
	// tolerate it for 300 seconds by default.
	TaintNodeUnreachable = "node.kubernetes.io/unreachable"
	// TaintNodeUnschedulable: the node is cordoned.
	TaintNodeUnschedulable = "node.kubernetes.io/unschedulable"
	// TaintNodeMemoryPressure: the node is low on memory.
	TaintNodeMemoryPressure = "node.kubernetes.io/memory-pressure"
	// TaintNodeDiskPressure: the node is low on disk.
	TaintNodeDiskPressure = "node.kubernetes.io/disk-pressure"
	// TaintNodePIDPressure: the node is low on process ids.
	TaintNodePIDPressure = "node.kubernetes.io/pid-pressure"
	// TaintNodeNetworkUnavailable: the node's network is not configured.
	TaintNodeNetworkUnavailable = "node.kubernetes.io/network-unavailable"
)

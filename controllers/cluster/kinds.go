package cluster

import (
	"reflect"
	"strconv"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// kindInstance opens the store of one Go type; kindInstances
// (zz_generated_kinds.go, written by go generate in controllers/api)
// holds one per registered kind. New opens the stores in the order of
// api.Registered, with the facts of each kind's registration (resource,
// scope, subresources), and fails when a registered kind has no
// instance.
type kindInstance struct {
	typ  reflect.Type
	open func(*Cluster) error
}

func instantiate[T api.Object]() kindInstance {
	return kindInstance{reflect.TypeFor[T](), func(c *Cluster) error { return register(c, strategyOf[T]()) }}
}

// strategyOf returns T's strategy: the one strategies holds for T, else
// newKind's generic metadata handling.
func strategyOf[T api.Object]() *kind[T] {
	if s, ok := strategies[reflect.TypeFor[T]()]; ok {
		return s.(func() *kind[T])()
	}
	return newKind[T]()
}

// strategies are the strategies of the kinds with more than generic
// metadata handling (defaulting, validation, field selectors, graceful
// deletion), by Go type; the other kinds need nothing here. A test checks
// that each is a registered kind's.
var strategies = strategyTable(
	strategy(podKind), strategy(nodeKind), strategy(serviceKind), strategy(replicaSetKind),
	strategy(replicationControllerKind), strategy(deploymentKind), strategy(statefulSetKind),
	strategy(daemonSetKind), strategy(jobKind), strategy(cronJobKind), strategy(namespaceKind),
	strategy(configMapKind), strategy(secretKind), strategy(persistentVolumeKind),
	strategy(persistentVolumeClaimKind), strategy(eventKind), strategy(validatingWebhookConfigurationKind), strategy(mutatingWebhookConfigurationKind),
	strategy(crdDefinitionKind),
	strategy(podDisruptionBudgetKind), strategy(ingressKind), strategy(ingressClassKind), strategy(networkPolicyKind),
	strategy(priorityClassKind), strategy(limitRangeKind), strategy(endpointSliceKind), strategy(csiDriverKind),
	strategy(csiNodeKind), strategy(volumeAttachmentKind),
	strategy(roleKind), strategy(clusterRoleKind), strategy(roleBindingKind), strategy(clusterRoleBindingKind),
	strategy(horizontalPodAutoscalerKind),
)

// typedStrategy is one kind's strategy constructor, a func() *kind[T].
type typedStrategy struct {
	typ reflect.Type
	new any
}

func strategy[T api.Object](f func() *kind[T]) typedStrategy {
	return typedStrategy{reflect.TypeFor[T](), f}
}

func strategyTable(ss ...typedStrategy) map[reflect.Type]any {
	m := make(map[reflect.Type]any, len(ss))
	for _, s := range ss {
		m[s.typ] = s.new
	}
	return m
}

// The strategies of the kinds that have more than generic metadata
// handling. Kinds without one get newKind's: uid, generation, metadata
// validation, status and deletion handling only.

func podKind() *kind[*api.Pod] {
	k := newKind[*api.Pod]()
	k.defaults = defaultPod
	k.prepareCreate = func(p *api.Pod) {
		p.Status = api.PodStatus{Phase: api.PodPending}
		defaultTolerations(&p.Spec)
	}
	k.validate = validatePod
	k.validateCreate = validatePodCreate
	k.validateUpdate = validatePodUpdate
	k.fieldNames = []string{"spec.nodeName", "spec.schedulerName", "spec.restartPolicy", "spec.serviceAccountName", "status.phase", "status.podIP"}
	k.fields = func(p *api.Pod) map[string]string {
		return map[string]string{
			"spec.nodeName":           p.Spec.NodeName,
			"spec.schedulerName":      p.Spec.SchedulerName,
			"spec.restartPolicy":      string(p.Spec.RestartPolicy),
			"spec.serviceAccountName": p.Spec.ServiceAccountName,
			"status.phase":            string(p.Status.Phase),
			"status.podIP":            p.Status.PodIP,
		}
	}
	k.field = func(p *api.Pod, name string) string {
		switch name {
		case "spec.nodeName":
			return p.Spec.NodeName
		case "spec.schedulerName":
			return p.Spec.SchedulerName
		case "spec.restartPolicy":
			return string(p.Spec.RestartPolicy)
		case "spec.serviceAccountName":
			return p.Spec.ServiceAccountName
		case "status.phase":
			return string(p.Status.Phase)
		case "status.podIP":
			return p.Status.PodIP
		}
		return ""
	}
	k.trigger = &trigger[*api.Pod]{field: "spec.nodeName", value: func(p *api.Pod) string { return p.Spec.NodeName }}
	k.gracePeriod = podGracePeriod
	return k
}

// podGracePeriod is the pod strategy's CheckGracefulDelete: the requested
// grace period, else spec.terminationGracePeriodSeconds, else 30; but a
// pod that was never scheduled, or has terminated, goes at once, having no
// kubelet to stop it.
func podGracePeriod(p *api.Pod, want *int64) (int64, bool) {
	grace := DefaultTerminationGracePeriodSeconds
	switch {
	case want != nil:
		grace = *want
	case p.Spec.TerminationGracePeriodSeconds != nil:
		grace = *p.Spec.TerminationGracePeriodSeconds
	}
	if p.Spec.NodeName == "" || p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed {
		return 0, false
	}
	return grace, grace > 0
}

func nodeKind() *kind[*api.Node] {
	k := newKind[*api.Node]()
	k.keepStatusOnCreate = true
	k.fieldNames = []string{"spec.unschedulable"}
	k.fields = func(n *api.Node) map[string]string {
		return map[string]string{"spec.unschedulable": strconv.FormatBool(n.Spec.Unschedulable)}
	}
	return k
}

func serviceKind() *kind[*api.Service] {
	k := newKind[*api.Service]()
	k.defaults = defaultService
	k.validate = validateService
	k.validateUpdate = validateServiceUpdate
	return k
}

func replicaSetKind() *kind[*api.ReplicaSet] {
	k := newKind[*api.ReplicaSet]()
	k.defaults = defaultReplicaSet
	k.validate = validateReplicaSet
	k.validateUpdate = validateReplicaSetUpdate
	return k
}

func replicationControllerKind() *kind[*api.ReplicationController] {
	k := newKind[*api.ReplicationController]()
	k.defaults = defaultReplicationController
	k.validate = validateReplicationController
	return k
}

func deploymentKind() *kind[*api.Deployment] {
	k := newKind[*api.Deployment]()
	k.defaults = defaultDeployment
	k.validate = validateDeployment
	k.validateUpdate = validateDeploymentUpdate
	return k
}

func statefulSetKind() *kind[*api.StatefulSet] {
	k := newKind[*api.StatefulSet]()
	k.defaults = defaultStatefulSet
	k.validate = validateStatefulSet
	k.validateUpdate = validateStatefulSetUpdate
	return k
}

func daemonSetKind() *kind[*api.DaemonSet] {
	k := newKind[*api.DaemonSet]()
	k.defaults = defaultDaemonSet
	k.validate = validateDaemonSet
	k.validateUpdate = validateDaemonSetUpdate
	return k
}

// The labels a job's generated selector uses (batch/v1).
const (
	legacyLabelControllerUID = "controller-uid"
	legacyLabelJobName       = "job-name"
)

func jobKind() *kind[*api.Job] {
	k := newKind[*api.Job]()
	k.defaults = defaultJob
	k.prepareCreate = generateJobSelector
	k.validate = validateJob
	k.validateUpdate = validateJobUpdate
	return k
}

// generateJobSelector gives a job without spec.manualSelector the
// selector kube-apiserver generates: its uid, as a label on the template
// (with the job's name) and as the selector.
func generateJobSelector(j *api.Job) {
	if j.Spec.ManualSelector != nil && *j.Spec.ManualSelector {
		return
	}
	t := &j.Spec.Template
	if t.Labels == nil {
		t.Labels = map[string]string{}
	}
	uid := string(j.UID)
	t.Labels[api.LabelControllerUID] = uid
	t.Labels[legacyLabelControllerUID] = uid
	t.Labels[api.LabelJobName] = j.Name
	t.Labels[legacyLabelJobName] = j.Name
	j.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{api.LabelControllerUID: uid}}
}

func cronJobKind() *kind[*api.CronJob] {
	k := newKind[*api.CronJob]()
	k.defaults = defaultCronJob
	k.validate = validateCronJob
	return k
}

// FinalizerKubernetes is the spec finalizer of every namespace, removed by
// the namespace controller once the namespace is empty.
const FinalizerKubernetes = "kubernetes"

func namespaceKind() *kind[*api.Namespace] {
	k := newKind[*api.Namespace]()
	k.defaults = defaultNamespace
	k.prepareCreate = func(n *api.Namespace) {
		n.Status = api.NamespaceStatus{Phase: api.NamespaceActive}
		n.Spec.Finalizers = []api.FinalizerName{FinalizerKubernetes}
	}
	k.validateUpdate = validateNamespaceUpdate
	k.specFinalizers = func(n *api.Namespace) int { return len(n.Spec.Finalizers) }
	k.onDelete = func(n *api.Namespace) { n.Status.Phase = api.NamespaceTerminating }
	k.fieldNames = []string{"status.phase"}
	k.fields = func(n *api.Namespace) map[string]string {
		return map[string]string{"status.phase": string(n.Status.Phase)}
	}
	return k
}

func persistentVolumeKind() *kind[*api.PersistentVolume] {
	k := newKind[*api.PersistentVolume]()
	k.prepareCreate = func(pv *api.PersistentVolume) { pv.Status.Phase = "Pending" }
	return k
}

func persistentVolumeClaimKind() *kind[*api.PersistentVolumeClaim] {
	k := newKind[*api.PersistentVolumeClaim]()
	k.prepareCreate = func(pvc *api.PersistentVolumeClaim) { pvc.Status.Phase = "Pending" }
	return k
}

func eventKind() *kind[*api.Event] {
	k := newKind[*api.Event]()
	k.fieldNames = []string{"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
		"involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
		"involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"}
	k.fields = func(e *api.Event) map[string]string {
		o := e.InvolvedObject
		return map[string]string{
			"involvedObject.kind":            o.Kind,
			"involvedObject.namespace":       o.Namespace,
			"involvedObject.name":            o.Name,
			"involvedObject.uid":             string(o.UID),
			"involvedObject.apiVersion":      o.APIVersion,
			"involvedObject.resourceVersion": o.ResourceVersion,
			"involvedObject.fieldPath":       o.FieldPath,
			"reason":                         e.Reason,
			"reportingComponent":             e.ReportingController,
			"source":                         e.Source.Component,
			"type":                           e.Type,
		}
	}
	return k
}

func configMapKind() *kind[*api.ConfigMap] {
	k := newKind[*api.ConfigMap]()
	k.validate = validateConfigMap
	return k
}

func secretKind() *kind[*api.Secret] {
	k := newKind[*api.Secret]()
	k.validate = validateSecret
	k.fieldNames = []string{"type"}
	k.fields = func(s *api.Secret) map[string]string { return map[string]string{"type": string(s.Type)} }
	return k
}

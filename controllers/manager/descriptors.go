package manager

import (
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cronjob"
	"github.com/ctrlkit/ctrlkit/controllers/daemonset"
	"github.com/ctrlkit/ctrlkit/controllers/deployment"
	"github.com/ctrlkit/ctrlkit/controllers/disruption"
	"github.com/ctrlkit/ctrlkit/controllers/endpoints"
	"github.com/ctrlkit/ctrlkit/controllers/endpointslice"
	"github.com/ctrlkit/ctrlkit/controllers/endpointslicemirroring"
	"github.com/ctrlkit/ctrlkit/controllers/ephemeral"
	"github.com/ctrlkit/ctrlkit/controllers/garbagecollector"
	"github.com/ctrlkit/ctrlkit/controllers/hpa"
	"github.com/ctrlkit/ctrlkit/controllers/job"
	"github.com/ctrlkit/ctrlkit/controllers/namespace"
	"github.com/ctrlkit/ctrlkit/controllers/nodelifecycle"
	"github.com/ctrlkit/ctrlkit/controllers/persistentvolume"
	"github.com/ctrlkit/ctrlkit/controllers/podgc"
	"github.com/ctrlkit/ctrlkit/controllers/pvcprotection"
	"github.com/ctrlkit/ctrlkit/controllers/pvprotection"
	"github.com/ctrlkit/ctrlkit/controllers/replicaset"
	"github.com/ctrlkit/ctrlkit/controllers/resourcequota"
	"github.com/ctrlkit/ctrlkit/controllers/rootcacertpublisher"
	"github.com/ctrlkit/ctrlkit/controllers/serviceaccount"
	"github.com/ctrlkit/ctrlkit/controllers/statefulset"
	"github.com/ctrlkit/ctrlkit/controllers/tainteviction"
	"github.com/ctrlkit/ctrlkit/controllers/ttlafterfinished"
)

// The names of the controllers Descriptors knows, as
// kube-controller-manager names them since 1.28 (its older names are
// accepted as aliases).
const (
	ReplicaSetController              = "replicaset-controller"
	ReplicationControllerController   = "replicationcontroller-controller"
	DeploymentController              = "deployment-controller"
	GarbageCollectorController        = "garbage-collector-controller"
	PodGarbageCollectorController     = "pod-garbage-collector-controller"
	NodeLifecycleController           = "node-lifecycle-controller"
	TaintEvictionController           = "taint-eviction-controller"
	EndpointsController               = "endpoints-controller"
	EndpointSliceController           = "endpointslice-controller"
	EndpointSliceMirroringController  = "endpointslice-mirroring-controller"
	DaemonSetController               = "daemonset-controller"
	StatefulSetController             = "statefulset-controller"
	PersistentVolumeBinderController  = "persistentvolume-binder-controller"
	JobController                     = "job-controller"
	CronJobController                 = "cronjob-controller"
	ResourceQuotaController           = "resourcequota-controller"
	NamespaceController               = "namespace-controller"
	ServiceAccountController          = "serviceaccount-controller"
	HorizontalPodAutoscalerController = "horizontal-pod-autoscaler-controller"
	RootCACertificatePublisher        = "root-ca-certificate-publisher-controller"
	TTLAfterFinishedController        = "ttl-after-finished-controller"
	PVCProtectionController           = "persistentvolumeclaim-protection-controller"
	PVProtectionController            = "persistentvolume-protection-controller"
	EphemeralVolumeController         = "ephemeral-volume-controller"
	DisruptionController              = "disruption-controller"
)

// Descriptors returns the controllers ctrlkit ships, in the order the
// manager starts them, with kube-controller-manager's default worker
// counts (its --concurrent-*-syncs flags).
func Descriptors() []Descriptor {
	return []Descriptor{
		{
			Name: ReplicaSetController, Aliases: []string{"replicaset"}, Workers: 5,
			New: func(x Context) (Runner, error) {
				return replicaset.New(x.Client, x.Factory, replicaset.Options{Workers: x.Workers, Logger: x.Logger, ReconcileMetrics: x.ReconcileMetrics, QueueMetrics: x.QueueMetrics, Recorder: x.Recorder})
			},
		},
		{
			Name: ReplicationControllerController, Aliases: []string{"replicationcontroller"}, Workers: 5,
			// kcm's replication manager records as replication-controller.
			EventComponent: "replication-controller",
			New: func(x Context) (Runner, error) {
				return replicaset.NewReplicationManager(x.Client, x.Factory, replicaset.Options{Workers: x.Workers, Logger: x.Logger, ReconcileMetrics: x.ReconcileMetrics, QueueMetrics: x.QueueMetrics, Recorder: x.Recorder})
			},
		},
		{
			Name: DeploymentController, Aliases: []string{"deployment"}, Workers: 5,
			New: func(x Context) (Runner, error) {
				return deployment.New(x.Client, x.Factory, deployment.Options{Workers: x.Workers, Logger: x.Logger, ReconcileMetrics: x.ReconcileMetrics, QueueMetrics: x.QueueMetrics, Recorder: x.Recorder})
			},
		},
		{
			Name: GarbageCollectorController, Aliases: []string{"garbagecollector"}, Workers: 20,
			New: func(x Context) (Runner, error) {
				return garbagecollector.New(x.Client, x.Factory, garbagecollector.Options{Workers: x.Workers, Logger: x.Logger, QueueMetrics: x.QueueMetrics, Recorder: x.Recorder})
			},
		},
		{
			// The pod GC runs one loop; it has no worker count.
			Name: PodGarbageCollectorController, Aliases: []string{"podgc"},
			New: func(x Context) (Runner, error) {
				return podgc.New(x.Client, x.Factory, podgc.Options{Logger: x.Logger})
			},
		},
		{
			// Node health runs one monitor loop (kcm: --node-monitor-period).
			Name: NodeLifecycleController, Aliases: []string{"nodelifecycle"},
			// kcm's node lifecycle controller records as node-controller.
			EventComponent: "node-controller",
			New: func(x Context) (Runner, error) {
				return nodelifecycle.New(x.Client, x.Factory, nodelifecycle.Options{Logger: x.Logger, Recorder: x.Recorder})
			},
		},
		{
			Name: TaintEvictionController,
			New: func(x Context) (Runner, error) {
				return tainteviction.New(x.Client, x.Factory, tainteviction.Options{Logger: x.Logger, Recorder: x.Recorder})
			},
		},
		{
			// kcm runs the disruption controller with one worker.
			Name: DisruptionController, Aliases: []string{"disruption"}, Workers: 1,
			// kcm's disruption controller records as controllermanager.
			EventComponent: "controllermanager",
			New: func(x Context) (Runner, error) {
				return disruption.New(x.Client, x.Factory, disruption.Options{Workers: x.Workers, Logger: x.Logger, ReconcileMetrics: x.ReconcileMetrics, QueueMetrics: x.QueueMetrics, Recorder: x.Recorder})
			},
		},
		{
			Name: EndpointsController, Aliases: []string{"endpoint"}, Workers: 5,
			// kcm's endpoints controller records as endpoint-controller.
			EventComponent: "endpoint-controller",
			New: func(x Context) (Runner, error) {
				return endpoints.New(x.Client, x.Factory, endpoints.Options{Workers: x.Workers, Logger: x.Logger, ReconcileMetrics: x.ReconcileMetrics, QueueMetrics: x.QueueMetrics, Recorder: x.Recorder})
			},
		},
		{
			// kcm's EndpointSlice controller records as endpoint-slice-controller.
			Name: EndpointSliceController, Aliases: []string{"endpointslice"}, Workers: endpointslice.DefaultWorkers,
			EventComponent: "endpoint-slice-controller",
			New: func(x Context) (Runner, error) {
				return endpointslice.New(x.Client, x.Factory, endpointslice.Options{Workers: x.Workers, Logger: x.Logger, ReconcileMetrics: x.ReconcileMetrics, QueueMetrics: x.QueueMetrics, Recorder: x.Recorder})
			},
		},
		{
			// kcm's mirroring controller records as endpoint-slice-mirroring-controller.
			Name: EndpointSliceMirroringController, Aliases: []string{"endpointslicemirroring"}, Workers: endpointslicemirroring.DefaultWorkers,
			EventComponent: "endpoint-slice-mirroring-controller",
			New: func(x Context) (Runner, error) {
				return endpointslicemirroring.New(x.Client, x.Factory, endpointslicemirroring.Options{Workers: x.Workers, Logger: x.Logger, ReconcileMetrics: x.ReconcileMetrics, QueueMetrics: x.QueueMetrics, Recorder: x.Recorder})
			},
		},
		{
			Name: DaemonSetController, Aliases: []string{"daemonset"}, Workers: 2,
			New: func(x Context) (Runner, error) {
				return daemonset.New(x.Client, x.Factory, daemonset.Options{Workers: x.Workers, Logger: x.Logger, ReconcileMetrics: x.ReconcileMetrics, QueueMetrics: x.QueueMetrics, Recorder: x.Recorder})
			},
		},
		{
			Name: StatefulSetController, Aliases: []string{"statefulset"}, Workers: 5,
			New: func(x Context) (Runner, error) {
				return statefulset.New(x.Client, x.Factory, statefulset.Options{Workers: x.Workers, Logger: x.Logger, ReconcileMetrics: x.ReconcileMetrics, QueueMetrics: x.QueueMetrics, Recorder: x.Recorder})
			},
		},
		{
			Name: PersistentVolumeBinderController, Aliases: []string{"persistentvolume-binder"}, Workers: 2,
			// kcm's PV controller records as persistentvolume-controller.
			EventComponent: "persistentvolume-controller",
			New: func(x Context) (Runner, error) {
				return persistentvolume.New(x.Client, x.Factory, persistentvolume.Options{Workers: x.Workers, Logger: x.Logger, ReconcileMetrics: x.ReconcileMetrics, QueueMetrics: x.QueueMetrics, Recorder: x.Recorder})
			},
		},
		{
			Name: EphemeralVolumeController, Aliases: []string{"ephemeral-volume"}, Workers: ephemeral.DefaultWorkers,
			EventComponent: ephemeral.Component,
			New: func(x Context) (Runner, error) {
				return ephemeral.New(x.Client, x.Factory, ephemeral.Options{Workers: x.Workers, Logger: x.Logger, ReconcileMetrics: x.ReconcileMetrics, QueueMetrics: x.QueueMetrics, Recorder: x.Recorder})
			},
		},
		{
			Name: JobController, Aliases: []string{"job"}, Workers: 5,
			New: func(x Context) (Runner, error) {
				return job.New(x.Client, x.Factory, job.Options{Workers: x.Workers, Logger: x.Logger, ReconcileMetrics: x.ReconcileMetrics, QueueMetrics: x.QueueMetrics, Recorder: x.Recorder})
			},
		},
		{
			Name: CronJobController, Aliases: []string{"cronjob"}, Workers: 5,
			New: func(x Context) (Runner, error) {
				return cronjob.New(x.Client, x.Factory, cronjob.Options{Workers: x.Workers, Logger: x.Logger, ReconcileMetrics: x.ReconcileMetrics, QueueMetrics: x.QueueMetrics, Recorder: x.Recorder})
			},
		},
		{
			Name: ResourceQuotaController, Aliases: []string{"resourcequota"}, Workers: 5,
			New: func(x Context) (Runner, error) {
				return resourcequota.New(x.Client, x.Factory, resourcequota.Options{Workers: x.Workers, Logger: x.Logger, ReconcileMetrics: x.ReconcileMetrics, QueueMetrics: x.QueueMetrics})
			},
		},
		{
			Name: NamespaceController, Aliases: []string{"namespace"}, Workers: 10,
			New: func(x Context) (Runner, error) {
				return namespace.New(x.Client, x.Factory, namespace.Options{Workers: x.Workers, Logger: x.Logger, ReconcileMetrics: x.ReconcileMetrics, QueueMetrics: x.QueueMetrics})
			},
		},
		{
			Name: ServiceAccountController, Aliases: []string{"serviceaccount"}, Workers: 1,
			New: func(x Context) (Runner, error) {
				return serviceaccount.New(x.Client, x.Factory, serviceaccount.Options{Workers: x.Workers, Logger: x.Logger, ReconcileMetrics: x.ReconcileMetrics, QueueMetrics: x.QueueMetrics})
			},
		},
		{
			Name: PVCProtectionController, Aliases: []string{"pvc-protection"}, Workers: pvcprotection.DefaultWorkers,
			New: func(x Context) (Runner, error) {
				return pvcprotection.New(x.Client, x.Factory, pvcprotection.Options{Workers: x.Workers, Logger: x.Logger, ReconcileMetrics: x.ReconcileMetrics, QueueMetrics: x.QueueMetrics})
			},
		},
		{
			Name: PVProtectionController, Aliases: []string{"pv-protection"}, Workers: pvprotection.DefaultWorkers,
			New: func(x Context) (Runner, error) {
				return pvprotection.New(x.Client, x.Factory, pvprotection.Options{Workers: x.Workers, Logger: x.Logger, ReconcileMetrics: x.ReconcileMetrics, QueueMetrics: x.QueueMetrics})
			},
		},
		{
			Name: TTLAfterFinishedController, Aliases: []string{"ttl-after-finished"}, Workers: ttlafterfinished.DefaultWorkers,
			New: func(x Context) (Runner, error) {
				return ttlafterfinished.New(x.Client, x.Factory, ttlafterfinished.Options{Workers: x.Workers, Logger: x.Logger, ReconcileMetrics: x.ReconcileMetrics, QueueMetrics: x.QueueMetrics})
			},
		},
		{
			Name: RootCACertificatePublisher, Aliases: []string{"root-ca-cert-publisher"}, Workers: 1,
			New: func(x Context) (Runner, error) {
				return rootcacertpublisher.New(x.Client, x.Factory, rootcacertpublisher.Options{RootCA: x.RootCA, Workers: x.Workers, Logger: x.Logger, ReconcileMetrics: x.ReconcileMetrics, QueueMetrics: x.QueueMetrics})
			},
		},
		{
			Name: HorizontalPodAutoscalerController, Aliases: []string{"horizontalpodautoscaling"}, Workers: 5,
			// kcm's HPA controller records as horizontal-pod-autoscaler.
			EventComponent: "horizontal-pod-autoscaler",
			New: func(x Context) (Runner, error) {
				m := x.PodMetrics
				if m == nil {
					pods, err := client.For[*api.Pod](x.Client)
					if err != nil {
						return nil, err
					}
					m = hpa.NewLoad(pods).WithObjects(x.Client)
				}
				return hpa.New(x.Client, x.Factory, hpa.Options{Metrics: m, Workers: x.Workers, Logger: x.Logger, ReconcileMetrics: x.ReconcileMetrics, QueueMetrics: x.QueueMetrics, Recorder: x.Recorder})
			},
		},
	}
}

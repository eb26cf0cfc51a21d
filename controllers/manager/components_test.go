package manager_test

import (
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/manager"
)

// Each controller records events under the component name its
// kube-controller-manager counterpart gives its recorder (the
// EventSource{Component: …} of each controller's constructor in
// kubernetes v1.37.2 pkg/controller/*), so `kubectl get events` and
// `describe` show the same FROM column as on a real cluster.
func TestEventComponentsAreKubeControllerManagers(t *testing.T) {
	want := map[string]string{
		manager.ReplicaSetController:              "replicaset-controller",
		manager.ReplicationControllerController:   "replication-controller",
		manager.DeploymentController:              "deployment-controller",
		manager.GarbageCollectorController:        "garbage-collector-controller",
		manager.NodeLifecycleController:           "node-controller",
		manager.TaintEvictionController:           "taint-eviction-controller",
		manager.DisruptionController:              "controllermanager",
		manager.EndpointsController:               "endpoint-controller",
		manager.EndpointSliceController:           "endpoint-slice-controller",
		manager.EndpointSliceMirroringController:  "endpoint-slice-mirroring-controller",
		manager.DaemonSetController:               "daemonset-controller",
		manager.StatefulSetController:             "statefulset-controller",
		manager.PersistentVolumeBinderController:  "persistentvolume-controller",
		manager.JobController:                     "job-controller",
		manager.CronJobController:                 "cronjob-controller",
		manager.HorizontalPodAutoscalerController: "horizontal-pod-autoscaler",
		manager.TTLAfterFinishedController:        "ttl-after-finished-controller",
		manager.EphemeralVolumeController:         "ephemeral_volume",
	}
	seen := map[string]bool{}
	for _, d := range manager.Descriptors() {
		w, ok := want[d.Name]
		if !ok {
			continue
		}
		seen[d.Name] = true
		got := d.EventComponent
		if got == "" {
			got = d.Name
		}
		if got != w {
			t.Errorf("%s records as %q, kube-controller-manager as %q", d.Name, got, w)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("no descriptor %s", name)
		}
	}
}

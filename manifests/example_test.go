package manifests_test

import (
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/manifests"
)

// The demo set, in the order the command applies it.
func ExampleLoad() {
	objs, err := manifests.Load()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range objs {
		fmt.Println(o.GroupVersionKind().Kind, api.Key(o))
	}
	// Output:
	// Namespace demo
	// ResourceQuota demo/compute
	// Node edge-1
	// Service default/cache
	// Service default/hello-web
	// DaemonSet kube-system/node-agent
	// Pod demo/toolbox
	// Deployment default/hello-web
	// StatefulSet default/cache
	// Job default/checksum
	// CronJob default/heartbeat
}

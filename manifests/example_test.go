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
	// ResourceQuota default/pods-medium
	// Node 10.240.79.157
	// Service default/nginx
	// Service default/hello-web
	// DaemonSet kube-system/fluentd-elasticsearch
	// Pod demo/demo-pod
	// Deployment default/hello-web
	// StatefulSet default/web
	// Job default/pi
	// CronJob default/hello
}

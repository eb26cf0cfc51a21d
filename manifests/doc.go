// Package manifests ships the demo set the ctrlkit command applies by
// default: examples from Kubernetes' documentation (kubernetes.io),
// exactly as written there (a headless Service and the web
// StatefulSet, the fluentd DaemonSet, the pi Job, the hello CronJob in
// batch/v1beta1, a ResourceQuota written as a YAML sequence, a Node in
// JSON, a bare Pod), plus two of ctrlkit's own: the namespace the bare
// Pod needs and a Deployment behind a Service.
//
// Load decodes them strictly and orders them for applying; LoadFS does
// the same for a directory of the user's.
package manifests

// Package manifests ships the demo set the ctrlkit command applies by
// default, written for ctrlkit: a Deployment behind a Service, a
// StatefulSet behind a headless Service, a DaemonSet in kube-system that
// tolerates control-plane nodes, a Job and a CronJob (batch/v1), a bare
// Pod in its own namespace under a ResourceQuota, and a Node registered
// by hand in JSON (no kubelet runs it, so it stays NotReady and the
// daemon pod bound to it stays Pending).
//
// Load decodes them strictly and orders them for applying; LoadFS does
// the same for a directory of the user's.
package manifests

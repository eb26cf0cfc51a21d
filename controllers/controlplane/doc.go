// Package controlplane runs Kubernetes' control plane, rebuilt on
// ctrlkit, in one process: the cluster store, simulated nodes (one
// kubelet each), the scheduler and the controllers that have landed —
// ReplicaSet, ReplicationController, Deployment, the garbage collector
// and the pod garbage collector — over one shared informer factory.
//
//	cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 3})
//	_, err = cp.Apply(ctx, objs...)   // decoded manifests (api.Decode)
//	...
//	cp.Stop()                        // every goroutine has exited
//
// Everything runs on the time package, so a test runs a whole control
// plane in a testing/synctest bubble, where hours of cluster time take
// milliseconds; synctest.Wait is then the exact "settled" point.
//
// This is the first part of the control-plane issue: the controller
// manager (controller selection, leader election, /metrics, /healthz),
// Settle outside a bubble, invariant hooks, the other controllers
// (StatefulSet, DaemonSet, Job, CronJob, endpoints, node lifecycle,
// quota, namespace, service account, HPA), kube-proxy and the ctrlkit
// command are still to come.
package controlplane

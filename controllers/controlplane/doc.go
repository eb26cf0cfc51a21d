// Package controlplane runs Kubernetes' control plane, rebuilt on
// ctrlkit, in one process: the cluster store, simulated nodes (one
// kubelet each), the scheduler, and the controller manager (package
// manager) with every controller it knows, over one shared informer
// factory. It is what the ctrlkit command runs, as a library for tests.
//
// Every component records its events into the store as Event objects, as
// on a real cluster: the controllers under their kube-controller-manager
// names (the node lifecycle controller as node-controller), the scheduler
// as default-scheduler, and the kubelets as kubelet with their node as
// source host (one broadcaster shared by every node).
//
//	cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 3})
//	err = cp.Apply(ctx, objs...)     // decoded manifests (api.Decode)
//	err = cp.Settle(ctx, 0)          // quiescent: see Settle
//	...
//	err = cp.Stop()                  // every goroutine has exited
//
// # Virtual time
//
// Everything runs on the time package, so a test runs a whole control
// plane in a testing/synctest bubble, where hours of cluster time take
// milliseconds.
//
// # Settling, without polling
//
// Settle returns when the system is quiescent: every informer synced and
// caught up with its store's newest resourceVersion, the controllers
// leading (in this replica or, when the elector can tell, another: a
// replica whose leadership moved to a standby settles too), no deletion
// in flight (grace period or finalizer), and no change to any object
// (other than heartbeats: Leases, node status posts, Events) for a quiet
// period. A List of the store that fails is retried, not returned. It waits on informer events and a
// single timer; kube-controller-manager's integration tests and KWOK
// poll every 100 ms instead. A timer due later than the quiet period (a
// CronJob's next minute) is not waited for.
//
// # Invariants at every write
//
// Options.Invariants are checked as the store's last admission step, so
// a broken invariant is reported at the write that breaks it, with the
// write's kind and key, and not at the next poll. DeploymentSurge and
// NodeNotOvercommitted are provided; Stop returns every violation.
//
// # Admission
//
// Start installs the admission plugins of the controllers it runs: quota
// (resourcequota, charging usage at admission), service accounts
// (serviceaccount, mutating: the default account; a pod is refused until
// its namespace's account exists, and Apply retries such a pod for up to
// 30 s) and cron schedules (cronjob). With Options.Webhooks it also calls
// the admission webhooks of the cluster's webhook configurations
// (package webhook), after the mutating plugins and before quota, as
// kube-apiserver orders its MutatingAdmissionWebhook and
// ValidatingAdmissionWebhook plugins; `ctrlkit up` turns them on.
//
// It always installs kube-apiserver's LimitRanger and Priority plugins
// (package admission), in kube's order (LimitRanger, ServiceAccount,
// Priority, webhooks, ResourceQuota), and creates the system priority
// classes (system-node-critical, system-cluster-critical): a pod gets its
// namespace's LimitRange defaults (annotation kubernetes.io/limit-ranger)
// and its priority (0 when it names no class and no class is
// globalDefault); a pod naming a class that does not exist is refused
// (403 Forbidden at the API server), as on a real cluster.
//
// # Left out
//
// kube-proxy runs as one rules table for the whole cluster (Proxy), not
// one per node, and without its userspace forwarding (proxy.Options
// Userspace); the controllers' metrics are not wired to an exporter.
package controlplane

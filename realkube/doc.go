// Package realkube starts a real Kubernetes API server, kube-apiserver
// v1.37.2 from k8s.io/kubernetes, inside a test process, so that
// ctrlkit's clients and controllers can be tested against the ground
// truth instead of ctrlkit's own API server.
//
// Start runs a single-member embedded etcd (go.etcd.io/etcd/server/v3,
// on loopback ports the kernel picks, data in a temporary directory,
// fsync off) and, over it, k8s.io/kubernetes'
// cmd/kube-apiserver/app/testing.StartTestServer: the code of the
// kube-apiserver binary, with its default admission plugins
// (NamespaceLifecycle, ServiceAccount, LimitRanger, ...), validation,
// defaulting, storage and watch cache. No controller runs unless the test
// starts one: Server.StartControllerManager runs kube-controller-manager
// (garbage collection, namespace deletion, the workload controllers, ...)
// and Server.StartScheduler kube-scheduler, both v1.37.2 and in this
// process, until the end of the test; without them there is no garbage
// collection and no pod scheduled unless the test does that work itself
// (or runs ctrlkit's manager and scheduler, as below). Start returns when /healthz answers and
// the namespace "default" exists; a Server gives the *rest.Config of a
// cluster administrator (Config) and writes it as a kubeconfig file
// (WriteKubeconfig, Kubeconfig) for commands such as ctrlkit's. Stop,
// or the end of the test, stops the server and etcd and removes their
// files. kube-apiserver keeps feature gates and logging process-wide,
// so servers are started one at a time (not from parallel tests).
//
// The module is separate from ctrlkit's others because k8s.io/kubernetes
// is large: its go.mod pins every k8s.io staging module to v0.37.2 with
// replace directives (k8s.io/kubernetes replaces them with directories
// of its own repository), and the first build compiles the apiserver.
//
// The package's tests run the client contract's conformance suite
// (controllers/client/clienttest) against kube.Client on a real server,
// and run `ctrlkit manager`, `ctrlkit scheduler` and `ctrlkit nodes`
// (kube/managercmd) as a real server's controller manager, scheduler and
// kubelets: a Deployment scaled, rolled out and rolled back, a
// StatefulSet, a DaemonSet, a Job and a CronJob reach the same states
// there as on ctrlkit's in-process control plane. BenchmarkControllers
// measures the reference controllers' throughput on a real server beside
// ctrlkit's; BenchmarkSideBySide a whole real control plane (kube-apiserver,
// kube-controller-manager, kube-scheduler) beside ctrlkit's, in time and
// heap (bench/README.md has the figures).
package realkube

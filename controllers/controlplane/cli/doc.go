// Package cli is the ctrlkit command: `ctrlkit up` starts the control
// plane of package controlplane — the cluster store, simulated nodes,
// the scheduler, kube-proxy's rules table, cluster DNS and every
// controller of package manager, with quota, service-account and cron
// admission — applies manifests, and shows the cluster.
//
//	go run ./cmd/ctrlkit up --once            # settle, print, exit 0
//	go run ./cmd/ctrlkit up -f app.yaml       # live view, typed commands
//
// Without -f it applies the demo set of package manifests. A manifest
// that does not decode is reported with its file, document and field,
// and the rest is applied.
//
// Before applying, it installs kind's default StorageClass
// (DefaultStorageClass): "standard", annotated
// storageclass.kubernetes.io/is-default-class "true", provisioner
// rancher.io/local-path (simulated by the PersistentVolume controller),
// volumeBindingMode WaitForFirstConsumer, reclaimPolicy Delete — unless
// the cluster (a kept etcd store) or the manifests already have a
// default class or a class named standard.
//
// # The view
//
// Tables as kubectl get prints them — nodes (status, pods, requests
// against allocatable, zone), pods, Deployments, ReplicaSets,
// StatefulSets, DaemonSets, Jobs, CronJobs, Services with their
// endpoints — the latest events, and each controller's queue depth,
// reconciles, retries and reconciles per second over the last refresh
// (manager.Stats). On a terminal it is redrawn every
// --refresh; otherwise the command logs events as they happen. Typed
// lines act on the cluster: `scale deployment/default/hello-web 5`,
// `delete pod default/cache-0`, `kill node-2` and `revive node-2` (its
// kubelet stops and starts: watch the node lifecycle controller taint the
// node and evict), `apply FILE`, `explain default/POD` (the scheduler's
// verdicts).
//
// # --once
//
// Runs until the cluster is settled, prints the view and exits 0, or 1
// if that does not happen within --timeout, with what was still not
// ready. Settled means ControlPlane.Settle reports the cluster quiet for
// --quiet (default 5 s) and nothing is unready: every pod that has not
// ended is Ready (a readiness probe waiting out its initialDelaySeconds
// changes nothing, so quiet alone is not enough), except pods bound or
// pinned to a node that is not Ready (no kubelet reports there); every
// Deployment has its replicas updated and available, every StatefulSet
// its replicas ready. The quiet period is real time: the command
// cannot run in virtual time, because Go offers testing/synctest bubbles
// only to tests (synctest.Test needs a *testing.T); its tests run the
// same Main in a bubble instead, where the demo takes milliseconds.
//
// # Exit codes
//
// As kubectl apply: a -f path that does not exist fails the command (1)
// before anything starts; a document that does not decode, or an object
// the API refuses, is reported on stderr with the reason, the rest is
// applied, and the command exits 1 (--once: after printing the view;
// live: when it stops). An object that already exists is reported and
// left as it is, and does not fail the command (a second run on the
// etcd build's kept store). 2 is bad usage. `up --help` prints every
// flag.
//
// # --listen
//
// Serves, on one loopback address, the Kubernetes API of the cluster
// (package apiserver: kubectl and client-go work against it) and the
// manager's /healthz, /readyz (which says whether this replica leads)
// and /metrics (Options.Metrics; in the default build a standard-library
// metrics.Registry with kube-apiserver's apiserver_request_total and
// apiserver_request_duration_seconds, leader_election_master_status,
// scheduler_pending_pods, scheduler_schedule_attempts_total, and the
// workqueue_* and controller_runtime_*
// series of the controllers), and the resource metrics API
// (metrics.k8s.io, kubectl top) from the simulated usage the HPA reads,
// through package apiserver/serving:
//
//   - HTTPS, with a CA and a serving certificate (ECDSA P-256, for
//     localhost, 127.0.0.1, ::1 and the --listen host) made at each
//     start, and a bearer token (32 random bytes) that every request
//     needs but /healthz, /livez, /readyz and /version: 401 with a
//     Status otherwise.
//   - The Host header must name the listener (localhost, a loopback
//     address, the --listen host; its port or none): 421 otherwise,
//     which stops DNS rebinding.
//   - A kubeconfig (cluster, user and context "ctrlkit";
//     certificate-authority-data, token; mode 0600) is written to
//     --kubeconfig, default DefaultKubeconfig
//     (~/.config/ctrlkit/kubeconfig), and its path printed;
//     --merge-kubeconfig also merges those entries into the user's
//     kubeconfig ($KUBECONFIG's first file, else ~/.kube/config) and
//     makes "ctrlkit" current, keeping everything else. Each start makes
//     new credentials: the previous kubeconfig stops working.
//   - /debug/pprof/ only with --pprof, behind the token.
//   - --insecure-http-no-auth serves plain HTTP without authentication
//     (the Host check stays), for throw-away use; the kubeconfig then
//     has an http:// server and no token.
//
// Another address than loopback needs --listen-non-loopback too.
//
// # Replicas
//
// --leader-elect runs the controllers only while this process leads,
// through Options.Elector; the etcd module's build sets it to an etcd
// election on the shared store. A further replica is started with
// --nodes=0: it runs the controller manager alone
// (controlplane.Options.ManagerOnly), standing by with warm caches.
//
// # Left out
//
// --etcd needs a build that links the etcd backend (Options.Backend):
// the etcd module's cmd/ctrlkit (`cd etcd && go run ./cmd/ctrlkit up
// --etcd-embedded=DIR`), which also sets Options.Elector and Prometheus
// metrics (Options.Metrics, ReconcileMetrics, QueueMetrics); this
// package links neither. There are no interactive keys (a terminal in
// raw mode would need golang.org/x/term): commands are typed lines.
package cli

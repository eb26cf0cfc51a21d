// Package managercmd is `ctrlkit manager`: ctrlkit's reference
// controllers (package controllers/manager) run against any Kubernetes
// API server, as kube-controller-manager, through kube.Client.
//
//	ctrlkit manager --kubeconfig FILE --controllers=replicaset,deployment
//
// SchedulerMain and NodesMain are `ctrlkit scheduler` and `ctrlkit
// nodes --count N`: ctrlkit's scheduler and simulated kubelets against
// the same kind of server (--kubeconfig, --master, --kube-api-qps,
// --kube-api-burst), so that a bare kube-apiserver without nodes runs
// workloads.
//
// # Flags
//
// They follow kube-controller-manager's:
//
//   - --kubeconfig, --master: how to reach the API server
//     (clientcmd.BuildConfigFromFlags; with both empty, the in-cluster
//     configuration of rest.InClusterConfig).
//   - --controllers: manager.Select's syntax ("*", "foo", "-foo"; default
//     "*").
//   - --kube-api-qps (20), --kube-api-burst (30): the client's rate
//     limit.
//   - --concurrent-<x>-syncs: the worker count of the controllers that
//     have one (deployment, replicaset, rc, statefulset, daemonset, job,
//     cron-job, endpoint, gc, namespace, resource-quota,
//     horizontal-pod-autoscaler); unset, each controller's default.
//   - --leader-elect (true), --leader-elect-lease-duration (15s),
//     --leader-elect-renew-deadline (10s), --leader-elect-retry-period
//     (2s), --leader-elect-resource-name (kube-controller-manager),
//     --leader-elect-resource-namespace (kube-system): leader election
//     on a coordination.k8s.io Lease (package
//     controllers/leaderelection), through a client of its own (its own
//     --kube-api-qps budget, as kcm's leader-election client), so that
//     the controllers' queued requests never delay a renewal; the
//     identity, printed at start, is the host name and a random suffix.
//   - --bind-address (127.0.0.1), --secure-port (10257; 0 serves
//     nothing), --tls-cert-file and --tls-private-key-file (default: a
//     self-signed certificate generated at start),
//     --authorization-always-allow-paths (/healthz,/readyz,/livez).
//     kube-controller-manager binds 0.0.0.0; this command binds the
//     loopback address unless told otherwise, so that its profiles and
//     metrics are not exposed by accident.
//
// Bad flags exit 2 with the reason on stderr.
//
// # Serving
//
// HTTPS, bounded (read-header, read, write and idle timeouts, 64 KiB of
// headers): manager.Handler's /healthz, /readyz, /metrics (Prometheus:
// the controllers' series through the prometheus module's Provider, and
// component-base's registry, as kube-controller-manager serves it —
// client-go's rest_client_requests_total{code,host,method},
// rest_client_request_duration_seconds and the other request series, per
// process, and the process and Go runtime series) and /debug/pprof, and
// /livez. The always-allowed paths are anonymous; every other request
// needs a bearer token that the API server accepts and authorizes, as
// kube-controller-manager's delegated authentication and authorization
// do (see DelegatedAuth): 401 without a token or with one the server
// rejects, 403 when the user may not get the path, 503 when the API
// server cannot be asked; the body says which. Answers are cached for
// 10 s, as kcm's (AuthCacheTTL, at most AuthCacheSize of each).
//
// # Versions
//
// The manager's new leader waits until its informers have caught up with
// the server before its controllers act, which compares resourceVersions:
// Main reads them as etcd revisions (kube.ClientOptions.OrderedVersions).
//
// # Exit
//
// When ctx ends (SIGTERM or SIGINT in cmd/ctrlkit), the controllers
// stop, the Lease is released (as client-go's ReleaseOnCancel) so that a
// standby takes over at once, and Main returns 0. A lost Lease returns 1,
// as kube-controller-manager exits to be restarted.
package managercmd

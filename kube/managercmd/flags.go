package managercmd

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/leaderelection"
	"github.com/ctrlkit/ctrlkit/controllers/manager"
)

// config is the parsed command line.
type config struct {
	kubeconfig, master string
	controllers        string
	qps                float64
	burst              int
	workers            map[string]int

	leaderElect                               bool
	leaseDuration, renewDeadline, retryPeriod time.Duration
	resourceName, resourceNamespace           string

	bindAddress     string
	securePort      int
	tlsCert, tlsKey string
	allowPaths      string
}

// syncFlags maps kube-controller-manager's --concurrent-<x>-syncs flags
// to the controllers whose worker count they set.
var syncFlags = []struct{ flag, controller string }{
	{"concurrent-deployment-syncs", manager.DeploymentController},
	{"concurrent-replicaset-syncs", manager.ReplicaSetController},
	{"concurrent-rc-syncs", manager.ReplicationControllerController},
	{"concurrent-statefulset-syncs", manager.StatefulSetController},
	{"concurrent-daemonset-syncs", manager.DaemonSetController},
	{"concurrent-job-syncs", manager.JobController},
	{"concurrent-cron-job-syncs", manager.CronJobController},
	{"concurrent-endpoint-syncs", manager.EndpointsController},
	{"concurrent-gc-syncs", manager.GarbageCollectorController},
	{"concurrent-namespace-syncs", manager.NamespaceController},
	{"concurrent-resource-quota-syncs", manager.ResourceQuotaController},
	{"concurrent-horizontal-pod-autoscaler-syncs", manager.HorizontalPodAutoscalerController},
}

// parse parses args into a config; the error is a usage error.
func parse(args []string, out io.Writer) (config, error) {
	c := config{workers: map[string]int{}}
	fs := flag.NewFlagSet("ctrlkit manager", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&c.kubeconfig, "kubeconfig", "", "path to a kubeconfig file; empty: the in-cluster configuration (service account token)")
	fs.StringVar(&c.master, "master", "", "the API server's address, overriding the kubeconfig's")
	fs.StringVar(&c.controllers, "controllers", "*", `controllers to run: "*" is every controller on by default, "foo" enables foo, "-foo" disables it; known: `+strings.Join(manager.Names(manager.Descriptors()), ", "))
	fs.Float64Var(&c.qps, "kube-api-qps", 20, "queries per second to the API server")
	fs.IntVar(&c.burst, "kube-api-burst", 30, "burst of queries to the API server")
	defaults := map[string]int{}
	for _, d := range manager.Descriptors() {
		defaults[d.Name] = d.Workers
	}
	set := map[string]*int{}
	for _, s := range syncFlags {
		set[s.flag] = fs.Int(s.flag, defaults[s.controller], "workers of the "+s.controller+" controller")
	}
	fs.BoolVar(&c.leaderElect, "leader-elect", true, "elect a leader (a coordination.k8s.io Lease) before running the controllers")
	fs.DurationVar(&c.leaseDuration, "leader-elect-lease-duration", leaderelection.DefaultLeaseDuration, "how long a candidate waits after the leader's last renewal before taking over")
	fs.DurationVar(&c.renewDeadline, "leader-elect-renew-deadline", leaderelection.DefaultRenewDeadline, "how long the leader tries to renew before it stops leading")
	fs.DurationVar(&c.retryPeriod, "leader-elect-retry-period", leaderelection.DefaultRetryPeriod, "how often candidates try to acquire and the leader renews")
	fs.StringVar(&c.resourceName, "leader-elect-resource-name", "kube-controller-manager", "name of the Lease")
	fs.StringVar(&c.resourceNamespace, "leader-elect-resource-namespace", "kube-system", "namespace of the Lease")
	fs.StringVar(&c.bindAddress, "bind-address", "127.0.0.1", "address to serve /healthz, /readyz, /livez, /metrics and /debug/pprof on (kube-controller-manager's default is 0.0.0.0)")
	fs.IntVar(&c.securePort, "secure-port", 10257, "HTTPS port; 0 serves nothing")
	fs.StringVar(&c.tlsCert, "tls-cert-file", "", "serving certificate (PEM); default: a self-signed one generated at start")
	fs.StringVar(&c.tlsKey, "tls-private-key-file", "", "private key of --tls-cert-file (PEM)")
	fs.StringVar(&c.allowPaths, "authorization-always-allow-paths", "/healthz,/readyz,/livez", "paths served without authentication")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	explicit := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
	for _, s := range syncFlags {
		n := *set[s.flag]
		if n < 1 {
			return c, fmt.Errorf("--%s must be at least 1 (got %d)", s.flag, n)
		}
		if explicit[s.flag] {
			c.workers[s.controller] = n
		}
	}
	switch {
	case c.qps <= 0:
		return c, fmt.Errorf("--kube-api-qps must be positive (got %v)", c.qps)
	case c.burst < 1:
		return c, fmt.Errorf("--kube-api-burst must be at least 1 (got %d)", c.burst)
	case c.securePort < 0 || c.securePort > 65535:
		return c, fmt.Errorf("--secure-port must be in 0..65535 (got %d)", c.securePort)
	case (c.tlsCert == "") != (c.tlsKey == ""):
		return c, fmt.Errorf("--tls-cert-file and --tls-private-key-file go together")
	}
	if _, err := manager.Select(manager.Descriptors(), strings.Split(c.controllers, ",")); err != nil {
		return c, fmt.Errorf("--controllers: %w", err)
	}
	return c, nil
}

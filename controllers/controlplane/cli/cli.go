package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver/serving"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/controllers/manager"
	"github.com/ctrlkit/ctrlkit/controllers/rbac"
	"github.com/ctrlkit/ctrlkit/controllers/webhook"
	"github.com/ctrlkit/ctrlkit/leader"
	"github.com/ctrlkit/ctrlkit/manifests"
	"github.com/ctrlkit/ctrlkit/metrics"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// Options extend the command from a program that embeds it (a build
// with the etcd backend, or with Prometheus metrics).
type Options struct {
	// Backend, when set, turns --etcd (and any other flag it reads from
	// the spec) into a cluster backend; close is called at shutdown.
	Backend func(spec string) (b cluster.Backend, close func(), err error)
	// Metrics is served at /metrics with --listen.
	Metrics http.Handler
	// ReconcileMetrics and QueueMetrics meter the controllers (see
	// manager.Options); the prometheus module's build sets them with
	// Metrics. Default: none (the view still shows queue depths).
	ReconcileMetrics reconcile.MetricsProvider
	QueueMetrics     workqueue.MetricsProvider
	// Elector, when set, enables --leader-elect: it is called once, after
	// Backend has opened the store, and its Elector decides when this
	// process's controllers act (the etcd build's campaigns in etcd).
	Elector func() (leader.Elector, error)
	// ValidationRules, when set, checks the x-kubernetes-validations (CEL)
	// rules of CustomResourceDefinitions (cluster.Options.ValidationRules;
	// the crdcel module's build sets crdcel.Rules). Without it the rules
	// are not evaluated and the API server warns so on a definition's
	// write.
	ValidationRules cluster.ValidationRules
	// MatchConditions, when set, evaluates admission webhooks'
	// matchConditions (webhook.Options.MatchConditions; the crdcel
	// module's build sets crdcel.MatchConditions). Without it a webhook
	// is called as if its conditions held.
	MatchConditions webhook.MatchConditionsFunc
	// FieldManager, when set, keeps managedFields and serves server-side
	// apply on --listen (apiserver.Options.FieldManager; the crdcel
	// module's build sets the ssa module's). Without it apply is 415.
	FieldManager apiserver.FieldManager
	// registry is the default build's /metrics (defaultMetrics), nil
	// when the build set Metrics.
	registry *metrics.Registry
	// Stdin is where interactive commands are read (default os.Stdin);
	// Terminal reports whether stdout is a terminal (default: checks
	// os.Stdout).
	Stdin    io.Reader
	Terminal func() bool
}

const usage = `ctrlkit runs Kubernetes' control plane, rebuilt on ctrlkit, in one process.

Usage:
  ctrlkit up [flags]     start the cluster store, simulated nodes, the scheduler,
                         kube-proxy and every controller, apply manifests, show
                         the cluster live (or with --once: until it settles)
  ctrlkit help           this text

With --once it exits 1 when a -f path does not exist (before starting),
when a document does not decode or an object fails to apply (the rest is
applied), or when the cluster does not settle within --timeout: settled
means nothing changed for --quiet and every pod is Ready (readiness
probes included) and every Deployment and StatefulSet has its replicas.

--listen serves HTTPS with a CA, certificate and bearer token made at
start and writes a kubeconfig for them (--kubeconfig; mode 0600):
  ctrlkit up --listen 127.0.0.1:6443 &
  kubectl --kubeconfig ~/.config/ctrlkit/kubeconfig get nodes
--insecure-http-no-auth serves plain HTTP without authentication instead:
for throw-away use only.

Flags of up:
`

// Main runs the command with args (without the program name) and returns
// its exit code: 0 on success; 1 when a -f path does not exist, a
// manifest did not decode or an object failed to apply, the cluster did
// not settle in time (--once), or a component failed; 2 on bad usage.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer, opts Options) int {
	help := func() {
		fs := upFlags(io.Discard, &upConfig{})
		fmt.Fprint(stdout, usage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		help()
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] != "up" {
		fmt.Fprintf(stderr, "ctrlkit: unknown command %q (try: ctrlkit help)\n", args[0])
		return 2
	}
	var cfg upConfig
	fs := upFlags(stderr, &cfg)
	fs.Usage = func() {} // the whole text below, on stdout
	if err := fs.Parse(args[1:]); errors.Is(err, flag.ErrHelp) {
		help()
		return 0
	} else if err != nil {
		fmt.Fprintln(stderr, "ctrlkit up: see ctrlkit up --help")
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ctrlkit up: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if cfg.leaderElect && opts.Elector == nil {
		fmt.Fprintln(stderr, "ctrlkit up: --leader-elect needs a shared store: cd etcd && go run ./cmd/ctrlkit up --etcd=... --leader-elect")
		return 2
	}
	if cfg.listen != "" {
		if err := apiserver.CheckAddress(cfg.listen, cfg.listenAny); err != nil {
			fmt.Fprintf(stderr, "ctrlkit up: --listen: %v (pass --listen-non-loopback to allow it)\n", err)
			return 2
		}
	} else {
		var needListen []string
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "kubeconfig", "merge-kubeconfig", "insecure-http-no-auth", "pprof", "listen-non-loopback":
				needListen = append(needListen, "--"+f.Name)
			}
		})
		if len(needListen) > 0 {
			fmt.Fprintf(stderr, "ctrlkit up: %s need --listen\n", strings.Join(needListen, ", "))
			return 2
		}
	}
	if cfg.etcd != "" && opts.Backend == nil {
		fmt.Fprintln(stderr, "ctrlkit up: --etcd needs the build with the etcd backend: cd etcd && go run ./cmd/ctrlkit up --etcd=...")
		return 2
	}
	return up(ctx, cfg, stdout, stderr, opts)
}

type upConfig struct {
	nodes, zones int
	files        stringList
	controllers  string
	once         bool
	timeout      time.Duration
	quiet        time.Duration
	refresh      time.Duration
	listen       string
	etcd         string
	events       int
	logLevel     string
	leaderElect  bool
	listenAny    bool
	oldVersions  bool

	kubeconfig      string
	mergeKubeconfig bool
	insecure        bool
	pprof           bool
	// authorizationMode is --authorization-mode.
	authorizationMode string
}

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func upFlags(out io.Writer, c *upConfig) *flag.FlagSet {
	fs := flag.NewFlagSet("up", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.IntVar(&c.nodes, "nodes", 3, "simulated nodes to start (node-1 …)")
	fs.IntVar(&c.zones, "zones", 0, "spread the nodes over this many zones (label topology.kubernetes.io/zone)")
	fs.Var(&c.files, "f", "manifest file or directory to apply (repeatable); default: the demo set of package manifests")
	fs.BoolVar(&c.oldVersions, "accept-removed-versions", false, "with -f: read a built-in kind at an apiVersion Kubernetes no longer serves (batch/v1beta1 CronJob, apps/v1beta1 or extensions/v1beta1 workloads, …) as its current version, instead of refusing it as kubectl against a v1.37 server does (\"no matches for kind\")")
	fs.StringVar(&c.controllers, "controllers", "*", "controllers to run, as kube-controller-manager's flag: *, foo, -foo")
	fs.BoolVar(&c.once, "once", false, "run until the cluster settles, print its state and exit (non-zero if it does not settle within --timeout)")
	fs.DurationVar(&c.timeout, "timeout", 3*time.Minute, "with --once: how long to wait for the cluster to settle")
	fs.DurationVar(&c.quiet, "quiet", 5*time.Second, "with --once: the cluster is settled when nothing changed for this long")
	fs.DurationVar(&c.refresh, "refresh", 2*time.Second, "how often the live view is redrawn")
	fs.StringVar(&c.listen, "listen", "", "serve the Kubernetes API (for kubectl and client-go) and /healthz, /livez, /readyz, /version, /metrics on this loopback address (e.g. 127.0.0.1:6443; port 0 picks one) over HTTPS with a CA, certificate and bearer token made at start, and write a kubeconfig for it (see --kubeconfig); only the health checks and /version answer without the token")
	fs.BoolVar(&c.listenAny, "listen-non-loopback", false, "allow --listen on an address other than loopback (with --insecure-http-no-auth: anyone who reaches it can read and write everything)")
	fs.StringVar(&c.kubeconfig, "kubeconfig", "", "with --listen: write the kubeconfig (server, certificate-authority-data, token; context \"ctrlkit\"; mode 0600) to this file, replacing it; default: ctrlkit/kubeconfig under the user's config directory (~/.config/ctrlkit/kubeconfig on Linux)")
	fs.BoolVar(&c.mergeKubeconfig, "merge-kubeconfig", false, "with --listen: also merge the cluster, user and context \"ctrlkit\" into the user's kubeconfig ($KUBECONFIG's first file, else ~/.kube/config), keeping its other entries, and make it the current context (as kind does)")
	fs.BoolVar(&c.insecure, "insecure-http-no-auth", false, "with --listen: serve plain HTTP WITHOUT TLS OR AUTHENTICATION, for throw-away use only: any program on this machine can read and write everything, secrets included (the Host header is still checked against DNS rebinding)")
	fs.StringVar(&c.authorizationMode, "authorization-mode", "AlwaysAllow", "with --listen: AlwaysAllow serves every authenticated request; RBAC serves only what the cluster's Roles and ClusterRoles bound to the requester allow (kube-apiserver's 403 Forbidden otherwise), to test an operator's RBAC. `kubectl auth can-i` and `auth whoami` answer by RBAC in both modes")
	fs.BoolVar(&c.pprof, "pprof", false, "with --listen: serve Go's profiler at /debug/pprof/ (behind the token, as the rest)")
	fs.StringVar(&c.etcd, "etcd", "", "keep the cluster in etcd at these endpoints (needs the etcd build)")
	fs.IntVar(&c.events, "events", 10, "how many recent events the view shows")
	fs.BoolVar(&c.leaderElect, "leader-elect", false, "run the controllers only while this process leads (needs a store shared with the other replicas: the etcd build); start further replicas with --nodes=0")
	fs.StringVar(&c.logLevel, "log", "", "log the components at this level (debug, info, warn, error) to stderr; default: no logs")
	return fs
}

func up(ctx context.Context, cfg upConfig, stdout, stderr io.Writer, opts Options) int {
	if cfg.nodes < 0 || (cfg.nodes == 0 && !cfg.leaderElect) || cfg.zones < 0 || cfg.timeout <= 0 || cfg.quiet <= 0 || cfg.refresh <= 0 || cfg.events < 0 {
		fmt.Fprintln(stderr, "ctrlkit up: --nodes must be at least 1 (0 only with --leader-elect), --zones and --events not negative, durations positive")
		return 2
	}
	// As kubectl apply: a path that does not exist stops everything
	// before anything is applied; a document that does not decode is
	// reported (file, document, field), the rest applied, and the
	// command fails at the end.
	if missing := missingPaths(cfg.files); len(missing) > 0 {
		fmt.Fprintf(stderr, "ctrlkit up: -f: %s\n", strings.Join(missing, "; "))
		return 1
	}
	var failed []string // what makes the command fail once it ends
	objs, err := load(cfg.files, cfg.decodeOptions())
	if err != nil {
		fmt.Fprintf(stderr, "ctrlkit up: manifests:\n%s\n", indent(err.Error()))
		failed = append(failed, "manifests did not decode")
	}
	logger := slog.New(slog.DiscardHandler)
	if cfg.logLevel != "" {
		var lvl slog.Level
		if err := lvl.UnmarshalText([]byte(cfg.logLevel)); err != nil {
			fmt.Fprintf(stderr, "ctrlkit up: --log: %v\n", err)
			return 2
		}
		logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lvl}))
	}
	// ctrlkit up is a cluster as a kube-apiserver is one: a kind of
	// yours exists there once its CustomResourceDefinition is applied,
	// whatever Go types the program (or a test linking this package)
	// registered.
	copts := cluster.Options{BuiltinKindsOnly: true, ValidationRules: opts.ValidationRules}
	if cfg.etcd != "" {
		b, closeFn, err := opts.Backend(cfg.etcd)
		if err != nil {
			fmt.Fprintf(stderr, "ctrlkit up: --etcd: %v\n", err)
			return 1
		}
		defer closeFn()
		copts.Backend = b
	}
	mopts := managerOptions(cfg)
	opts.registry = defaultMetrics(&opts)
	mopts.ReconcileMetrics, mopts.QueueMetrics = opts.ReconcileMetrics, opts.QueueMetrics
	if cfg.leaderElect {
		if mopts.Elector, err = opts.Elector(); err != nil {
			fmt.Fprintf(stderr, "ctrlkit up: --leader-elect: %v\n", err)
			return 1
		}
	}
	// The serving CA is made before the controllers start: the root CA
	// publisher puts it in every namespace (kube-root-ca.crt), as kcm
	// publishes its API server's CA.
	var creds *serving.Credentials
	if cfg.listen != "" && !cfg.insecure {
		host, _, _ := net.SplitHostPort(cfg.listen)
		if creds, err = serving.NewCredentials(host); err != nil {
			fmt.Fprintf(stderr, "ctrlkit up: --listen: %v\n", err)
			return 1
		}
		mopts.RootCA = creds.CAPEM
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cp, err := controlplane.Start(ctx, controlplane.Options{
		Nodes: cfg.nodes, Zones: cfg.zones, Cluster: copts, Logger: logger, ManagerOnly: cfg.nodes == 0,
		Manager:    mopts,
		Webhooks:   &webhook.Options{MatchConditions: opts.MatchConditions}, // admission webhooks, on as in kube-apiserver
		Invariants: []controlplane.Invariant{controlplane.DeploymentSurge(), controlplane.NodeNotOvercommitted()},
	})
	if err != nil {
		fmt.Fprintf(stderr, "ctrlkit up: %v\n", err)
		return 2
	}
	code := 0
	defer func() {
		if err := cp.Stop(); err != nil {
			fmt.Fprintf(stderr, "ctrlkit up: %v\n", err)
			code = 1
		}
	}()
	if cfg.listen != "" {
		// kube-apiserver's default roles and bindings, and the
		// clusterrole-aggregation controller that fills admin, edit and
		// view.
		if err := rbac.Bootstrap(ctx, cp.Cluster); err != nil {
			fmt.Fprintf(stderr, "ctrlkit up: %v\n", err)
			return 1
		}
		go func() { _ = rbac.RunAggregation(ctx, cp.Cluster) }()
		s, err := serveAPI(cp, cfg, opts, creds, logger, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "ctrlkit up: --listen: %v\n", err)
			return 1
		}
		defer s.srv.Close()
	}
	// kind's default StorageClass "standard" (local-path, provisioned
	// by the PersistentVolume controller's simulation), unless there is
	// a default class already.
	if _, err := installDefaultStorageClass(ctx, cp.Cluster, objs); err != nil {
		if ctx.Err() != nil {
			// Stopped while starting (an interrupt, a test's stop): an
			// orderly stop, not a failure.
			return code
		}
		fmt.Fprintf(stderr, "ctrlkit up: %v\n", err)
		return 1
	}
	if err := cp.Apply(ctx, objs...); err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "ctrlkit up: apply:\n%s\n", indent(err.Error()))
		if n := countErrors(err, source.ErrAlreadyExists); n > 0 {
			failed = append(failed, fmt.Sprintf("%d of %d objects failed to apply", n, len(objs)))
		}
	}
	if cfg.once {
		start := time.Now()
		sctx, scancel := context.WithTimeout(ctx, cfg.timeout)
		waiting, err := settleReady(sctx, cp, cfg.quiet)
		scancel()
		snap, serr := Take(context.WithoutCancel(ctx), cp.Cluster)
		snap.Controllers = controllerStats(cp.Manager.Stats(), nil, 0)
		for i := range snap.Controllers {
			if d := time.Since(start); d > 0 {
				snap.Controllers[i].Rate = float64(snap.Controllers[i].Processed) / d.Seconds()
			}
		}
		if serr == nil {
			Render(stdout, snap, cfg.events)
		}
		if err != nil {
			fmt.Fprintf(stdout, "not settled after %v (%d changes): %v\n", cfg.timeout, cp.Writes(), err)
			for i, w := range waiting {
				if i == maxWaiting {
					fmt.Fprintf(stdout, "  … and %d more\n", len(waiting)-i)
					break
				}
				fmt.Fprintf(stdout, "  %s\n", w)
			}
			failed = append(failed, "the cluster did not settle")
		} else {
			fmt.Fprintf(stdout, "settled after %v: %d changes, nothing changed for %v and every pod is ready\n", time.Since(start).Round(time.Millisecond), cp.Writes(), cfg.quiet)
		}
		if len(failed) > 0 {
			fmt.Fprintf(stdout, "failed: %s\n", strings.Join(failed, "; "))
			return 1
		}
		return code
	}
	if c := live(ctx, cp, cfg, stdout, stderr, opts); c != 0 {
		return c
	}
	if len(failed) > 0 {
		fmt.Fprintf(stderr, "failed: %s\n", strings.Join(failed, "; "))
		return 1
	}
	return code
}

// maxWaiting bounds the list of what was not ready that --once prints.
const maxWaiting = 20

// readyPoll is how often --once looks again at a quiet cluster whose
// pods are not all ready yet (a readiness probe's initial delay changes
// nothing until it ends).
const readyPoll = time.Second

// settleReady waits until the control plane is quiet (Settle) and
// nothing is unready; on failure it returns what was still unready at
// the last look.
func settleReady(ctx context.Context, cp *controlplane.ControlPlane, quiet time.Duration) ([]string, error) {
	var waiting []string
	for {
		if err := cp.Settle(ctx, quiet); err != nil {
			return waiting, err
		}
		snap, err := Take(ctx, cp.Cluster)
		if err != nil {
			return waiting, err
		}
		if waiting = unready(snap); len(waiting) == 0 {
			return nil, nil
		}
		t := time.NewTimer(readyPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return waiting, ctx.Err()
		case <-t.C:
		}
	}
}

// missingPaths lists, as kubectl apply words it, the -f paths that do not
// exist or cannot be read.
func missingPaths(files []string) []string {
	var out []string
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				out = append(out, fmt.Sprintf("the path %q does not exist", f))
			} else {
				out = append(out, err.Error())
			}
		}
	}
	return out
}

// countErrors counts the errors joined in err (errors.Join, nested) that
// are none of tolerated.
func countErrors(err error, tolerated ...error) int {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		n := 0
		for _, e := range j.Unwrap() {
			n += countErrors(e, tolerated...)
		}
		return n
	}
	for _, t := range tolerated {
		if errors.Is(err, t) {
			return 0
		}
	}
	return 1
}

func managerOptions(cfg upConfig) (m manager.Options) {
	m.Controllers = strings.Split(cfg.controllers, ",")
	return m
}

func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }

// decodeOptions are the options the manifests of -f and of the apply
// command decode with.
func (c upConfig) decodeOptions() api.DecodeOptions {
	return api.DecodeOptions{Unstructured: true, RefuseRemoved: !c.oldVersions}
}

// load decodes the manifests of files (files and directories; the demo
// set when empty) with opts, defaulted to namespace default and ordered
// for applying, with an error per document that did not decode.
func load(files []string, opts api.DecodeOptions) ([]api.Object, error) {
	if len(files) == 0 {
		return manifests.Load()
	}
	var objs []api.Object
	var errs []error
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var o []api.Object
		if st.IsDir() {
			o, err = manifests.DecodeFS(os.DirFS(f), opts)
			err = prefix(f, err)
		} else {
			o, err = api.DecodeFile(f, opts)
			manifests.DefaultNamespace(o, "default")
		}
		objs = append(objs, o...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	manifests.Order(objs)
	return objs, errors.Join(errs...)
}

func prefix(dir string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", filepath.Clean(dir), err)
}

// live redraws the view every cfg.refresh until ctx ends, and runs the
// commands typed on stdin.
func live(ctx context.Context, cp *controlplane.ControlPlane, cfg upConfig, stdout, stderr io.Writer, opts Options) int {
	terminal := opts.Terminal
	if terminal == nil {
		terminal = isTerminal
	}
	tty := terminal()
	in := opts.Stdin
	if in == nil {
		in = os.Stdin
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	t := time.NewTicker(cfg.refresh)
	defer t.Stop()
	var lastEvent time.Time
	prev, prevAt := cp.Manager.Stats(), time.Now()
	draw := func(note string) {
		snap, err := Take(ctx, cp.Cluster)
		if err != nil {
			return
		}
		now := cp.Manager.Stats()
		snap.Controllers = controllerStats(now, prev, snap.Now.Sub(prevAt))
		prev, prevAt = now, snap.Now
		if tty {
			fmt.Fprint(stdout, "\x1b[H\x1b[2J")
			Render(stdout, snap, cfg.events)
			fmt.Fprintln(stdout, "commands: scale <kind>/<namespace>/<name> <n> · delete pod <namespace>/<name> · kill <node> · revive <node> · apply <file> · explain <namespace>/<pod> · Ctrl-C to stop")
			if note != "" {
				fmt.Fprintln(stdout, note)
			}
			return
		}
		// Not a terminal: a log of what happened.
		lastEvent = logEvents(stdout, snap, lastEvent)
		if note != "" {
			fmt.Fprintln(stdout, note)
		}
	}
	draw("")
	for {
		select {
		case <-ctx.Done():
			fmt.Fprintln(stderr, "stopping: every component is shut down before exit")
			return 0
		case <-cp.Failed():
			// As kube-controller-manager exits when it loses its lease:
			// running on without the manager would leave the cluster
			// with no controllers and nobody to notice.
			fmt.Fprintf(stderr, "ctrlkit up: %v\nstopping: a component stopped by itself; start ctrlkit up again (a supervisor restarts it)\n", cp.Err())
			return 1
		case <-t.C:
			draw("")
		case l := <-lines:
			draw(runCommand(ctx, cp, l, cfg.decodeOptions()))
		}
	}
}

func isTerminal() bool {
	st, err := os.Stdout.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// logEvents prints the events newer than since, one line each, and
// returns the newest time printed.
func logEvents(w io.Writer, s Snapshot, since time.Time) time.Time {
	newest := since
	for _, r := range eventRowsSince(s, since) {
		fmt.Fprintln(w, r.line)
		if r.at.After(newest) {
			newest = r.at
		}
	}
	return newest
}

// runCommand runs one interactive command and returns what to tell the
// user.
func runCommand(ctx context.Context, cp *controlplane.ControlPlane, line string, decode api.DecodeOptions) string {
	f := strings.Fields(line)
	if len(f) == 0 {
		return ""
	}
	c := cp.Cluster
	switch {
	case f[0] == "scale" && len(f) == 3:
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 0 {
			return "scale: the replica count must be a number ≥ 0"
		}
		return scale(ctx, c, f[1], int32(n))
	case f[0] == "delete" && len(f) == 3 && f[1] == "pod":
		if _, err := c.Pods().DeleteWith(ctx, f[2], cluster.DeleteOptions{}); err != nil {
			return "delete: " + err.Error()
		}
		return "deleted pod " + f[2]
	case (f[0] == "kill" || f[0] == "revive") && len(f) == 2:
		for _, k := range cp.Kubelets {
			if k.NodeName() == f[1] {
				if f[0] == "kill" {
					k.Stop()
					return f[1] + " stopped: no more status or leases; watch the node lifecycle controller"
				}
				k.Start()
				return f[1] + " started again"
			}
		}
		return "no node " + f[1]
	case f[0] == "apply" && len(f) == 2:
		objs, err := load([]string{f[1]}, decode)
		if err != nil {
			return "apply: " + err.Error()
		}
		if err := cp.Apply(ctx, objs...); err != nil {
			return "apply: " + err.Error()
		}
		return fmt.Sprintf("applied %d objects", len(objs))
	case f[0] == "explain" && len(f) == 2:
		if cp.Scheduler == nil {
			return "explain: the scheduler runs in the other replica"
		}
		e, ok := cp.Scheduler.Explain(f[1])
		if !ok {
			return "explain: no recent scheduling attempt of " + f[1]
		}
		return e.String()
	}
	return "unknown command: " + line
}

func scale(ctx context.Context, c *cluster.Cluster, ref string, n int32) string {
	parts := strings.SplitN(ref, "/", 3)
	if len(parts) != 3 {
		return "scale: want <kind>/<namespace>/<name>, e.g. deployment/default/hello-web"
	}
	key := parts[1] + "/" + parts[2]
	var err error
	switch strings.ToLower(parts[0]) {
	case "deployment", "deploy":
		var d *api.Deployment
		if d, _, err = c.Deployments().Get(ctx, key); err == nil {
			d.Spec.Replicas = &n
			_, err = c.Deployments().Update(ctx, d, "")
		}
	case "replicaset", "rs":
		var r *api.ReplicaSet
		if r, _, err = c.ReplicaSets().Get(ctx, key); err == nil {
			r.Spec.Replicas = &n
			_, err = c.ReplicaSets().Update(ctx, r, "")
		}
	case "statefulset", "sts":
		var s *api.StatefulSet
		if s, _, err = c.StatefulSets().Get(ctx, key); err == nil {
			s.Spec.Replicas = &n
			_, err = c.StatefulSets().Update(ctx, s, "")
		}
	default:
		return "scale: kinds are deployment, replicaset, statefulset"
	}
	if err != nil {
		return "scale: " + err.Error()
	}
	return fmt.Sprintf("scaled %s to %d", ref, n)
}

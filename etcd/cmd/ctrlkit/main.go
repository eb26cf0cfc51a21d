// Command ctrlkit is the ctrlkit command (cmd/ctrlkit) built with the
// etcd backend: the cluster is kept in etcd, under Kubernetes' key
// layout (package clusterstore), instead of in memory.
//
//	cd etcd && go run ./cmd/ctrlkit up --once --etcd=http://127.0.0.1:2379
//	cd etcd && go run ./cmd/ctrlkit up --etcd-embedded=./ctrlkit-data
//
// (etcd is a module of its own, so the command runs from its directory,
// or from the repository root as `go -C etcd run ./cmd/ctrlkit ...`).
//
// Every flag of `ctrlkit up` (see package controllers/controlplane/cli)
// works here, and two select the store:
//
//   - --etcd=ENDPOINTS keeps the cluster in an etcd cluster that runs
//     elsewhere: comma-separated client URLs
//     (http://10.0.0.1:2379,http://10.0.0.2:2379). The command checks that
//     the cluster answers a read within 10 s before it starts. Do not point
//     it at a real Kubernetes cluster's etcd: it writes JSON where
//     kube-apiserver keeps protobuf, under the same /registry/ keys.
//
//   - --etcd-embedded=DIR starts an etcd server inside the process, with
//     its data in DIR (created if needed) and its client and peer ports on
//     free ports of 127.0.0.1, printed to stderr at start-up so that
//     etcdctl can look (etcdctl --endpoints=URL get --prefix /registry/pods/).
//     It keeps the cluster across runs: start the command again on the same
//     DIR and the objects are there (re-applying the same manifests then
//     reports AlreadyExists for each, and goes on). The server is durable
//     (fsync on every write) and compacts its history every 5 minutes, as
//     kube-apiserver asks its etcd to; at shutdown (Ctrl-C, or the end of
//     --once) the control plane stops first, then the client, then the
//     server, so DIR is left as a clean etcd data directory.
//
// Package cli knows only --etcd, which it hands to Options.Backend. This
// command therefore rewrites --etcd-embedded=DIR (or --etcd-embedded DIR)
// into --etcd=embedded:DIR before cli parses the arguments, and its
// Backend starts the embedded server when it sees that form; so the
// server starts only once the other flags have parsed, and it is stopped
// by the close function cli calls after the control plane has stopped.
// --etcd=embedded:DIR may be written directly too.
//
// # The store
//
// The backend is clusterstore's, opened with a watch bookmark interval
// of one second instead of a minute: --once waits until every informer has caught up
// with the store's revision, which in etcd is that of the whole keyspace,
// and an informer of a resource nobody writes catches up only through a
// bookmark. The same global revision makes --once slower than in memory
// (about 10 s rather than 4 on a small manifest): the nodes' heartbeats
// move it, and Settle counts a moved revision as a change.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane/cli"
	"github.com/ctrlkit/ctrlkit/etcd"
	"github.com/ctrlkit/ctrlkit/etcd/clusterstore"
	"github.com/ctrlkit/ctrlkit/leader"
	"github.com/ctrlkit/ctrlkit/prometheus"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// embeddedPrefix marks an --etcd spec that names the data directory of
// an embedded server instead of endpoints.
const embeddedPrefix = "embedded:"

const extraUsage = `  -etcd-embedded string
    	start an etcd server in this process with its data in this directory
    	(kept across runs) and keep the cluster in it; not with --etcd
`

// electionKey is the election the replicas started with --leader-elect
// campaign in: one controller manager leads at a time, as
// kube-controller-manager's replicas hold the kube-system Lease of that
// name.
const electionKey = "/ctrlkit/leader/kube-controller-manager"

// Timeouts of the etcd side; each bounds a wait that would otherwise
// hang on an etcd that does not answer.
const (
	// probeTimeout bounds the read that checks the etcd cluster answers.
	probeTimeout = 10 * time.Second
	// readyTimeout bounds the embedded server's start (it elects itself
	// in about a second, replaying its log takes longer on large data).
	readyTimeout = 30 * time.Second
	// stopTimeout bounds the embedded server's shutdown; past it the
	// process exits anyway, which etcd survives as it survives a crash.
	stopTimeout = 30 * time.Second
)

// run is the command: args without the program name, the exit code as
// cli.Main returns it (2 on bad usage).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	args, err := rewriteArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "ctrlkit up: %v\n", err)
		return 2
	}
	reg := prom.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics, err := prometheus.New(reg, prometheus.Options{})
	if err != nil {
		fmt.Fprintf(stderr, "ctrlkit up: metrics: %v\n", err)
		return 1
	}
	var client *clientv3.Client // set by Backend, read by Elector
	code := cli.Main(ctx, args, stdout, stderr, cli.Options{
		Backend: func(spec string) (cluster.Backend, func(), error) {
			b, c, closeFn, err := backend(spec, stderr)
			client = c
			return b, closeFn, err
		},
		Elector: func() (leader.Elector, error) {
			if client == nil {
				return nil, errors.New("needs --etcd or --etcd-embedded: the replicas campaign in etcd")
			}
			return etcd.NewElector(client, etcd.ElectorOptions{Election: electionKey})
		},
		Metrics:          promhttp.HandlerFor(reg, promhttp.HandlerOpts{}),
		ReconcileMetrics: metrics,
		QueueMetrics:     metrics,
	})
	if helpAsked(args) {
		fmt.Fprint(stdout, extraUsage)
	}
	return code
}

// helpAsked reports whether cli.Main printed the help text for args:
// `ctrlkit help`, no arguments, or `up` with -h, --help or -help (before
// any "--").
func helpAsked(args []string) bool {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		return true
	}
	if args[0] != "up" {
		return false
	}
	for _, a := range args[1:] {
		switch a {
		case "--":
			return false
		case "-h", "--h", "-help", "--help":
			return true
		}
	}
	return false
}

// rewriteArgs turns --etcd-embedded=DIR (or -etcd-embedded=DIR, or
// either followed by DIR as the next argument) of `up` into
// --etcd=embedded:DIR, and rejects it alongside --etcd. Arguments after
// "--" are left alone (cli rejects them as unexpected).
func rewriteArgs(args []string) ([]string, error) {
	if len(args) == 0 || args[0] != "up" {
		return args, nil
	}
	out := []string{args[0]}
	dir, haveDir, haveEtcd := "", false, false
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if !strings.HasPrefix(a, "-") {
			name = ""
		}
		switch name {
		case "etcd-embedded":
			if !hasValue {
				if i+1 == len(args) {
					return nil, errors.New("flag needs an argument: -etcd-embedded")
				}
				i++
				value = args[i]
			}
			if value == "" {
				return nil, errors.New("--etcd-embedded: the data directory is empty")
			}
			if haveDir && value != dir {
				return nil, fmt.Errorf("--etcd-embedded given twice (%s, %s)", dir, value)
			}
			dir, haveDir = value, true
			continue
		case "etcd":
			haveEtcd = true
		}
		out = append(out, a)
	}
	if !haveDir {
		return args, nil
	}
	if haveEtcd {
		return nil, errors.New("--etcd and --etcd-embedded select the store: give one")
	}
	// Right after "up", before anything cli could take as positional.
	return append([]string{out[0], "--etcd=" + embeddedPrefix + dir}, out[1:]...), nil
}

// backend is cli's Options.Backend: spec is --etcd's value, endpoints or
// embedded:DIR. close stops the client, then the embedded server if
// there is one; cli calls it after the control plane has stopped.
func backend(spec string, stderr io.Writer) (cluster.Backend, *clientv3.Client, func(), error) {
	var endpoints []string
	stopServer := func() {}
	if dir, ok := strings.CutPrefix(spec, embeddedPrefix); ok {
		e, clientURL, err := startEmbedded(dir)
		if err != nil {
			return nil, nil, nil, err
		}
		fmt.Fprintf(stderr, "embedded etcd: data in %s, clients at %s\n", dir, clientURL)
		endpoints = []string{clientURL}
		stopServer = func() {
			if !stopEmbedded(e, stopTimeout) {
				fmt.Fprintf(stderr, "embedded etcd: not stopped after %v; exiting anyway (etcd recovers from its log)\n", stopTimeout)
			}
		}
	} else {
		for ep := range strings.SplitSeq(spec, ",") {
			if ep = strings.TrimSpace(ep); ep != "" {
				endpoints = append(endpoints, ep)
			}
		}
		if len(endpoints) == 0 {
			return nil, nil, nil, errors.New("no endpoints")
		}
	}
	client, err := clientv3.New(clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		stopServer()
		return nil, nil, nil, fmt.Errorf("etcd client of %s: %w", strings.Join(endpoints, ","), err)
	}
	// A linearizable read needs a quorum: it fails here, within
	// probeTimeout, rather than the control plane hanging on its first
	// write.
	pctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	_, err = client.Get(pctx, clusterstore.DefaultPrefix, clientv3.WithCountOnly())
	cancel()
	if err != nil {
		client.Close()
		stopServer()
		return nil, nil, nil, fmt.Errorf("etcd at %s does not answer: %w", strings.Join(endpoints, ","), err)
	}
	// Sources' log lines are dropped: cli does not hand its --log logger
	// to Backend (their errors reach the control plane).
	b := clusterstore.New(client, clusterstore.Options{BookmarkInterval: bookmarkInterval, Logger: slog.New(slog.DiscardHandler)})
	return b, client, func() {
		client.Close()
		stopServer()
	}, nil
}

// startAttempts bounds how often startEmbedded picks new ports when one
// it chose was taken before etcd bound it.
const startAttempts = 5

// startEmbedded starts a single-member etcd server with its data in dir
// and waits until it is ready. It returns the server and its client URL.
func startEmbedded(dir string) (*embed.Etcd, string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", fmt.Errorf("embedded etcd: %w", err)
	}
	var err error
	for range startAttempts {
		var e *embed.Etcd
		var clientURL string
		e, clientURL, err = startEmbeddedOnce(dir)
		if err == nil {
			return e, clientURL, nil
		}
		if !errors.Is(err, syscall.EADDRINUSE) && !strings.Contains(err.Error(), "address already in use") {
			break
		}
	}
	return nil, "", fmt.Errorf("embedded etcd in %s: %w", dir, err)
}

func startEmbeddedOnce(dir string) (*embed.Etcd, string, error) {
	ports, err := freePorts("127.0.0.1", 2)
	if err != nil {
		return nil, "", err
	}
	peer := url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0]))}
	client := url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[1]))}
	cfg := embed.NewConfig()
	cfg.Name = "ctrlkit"
	cfg.Dir = dir
	cfg.ListenPeerUrls = []url.URL{peer}
	cfg.AdvertisePeerUrls = []url.URL{peer}
	cfg.ListenClientUrls = []url.URL{client}
	cfg.AdvertiseClientUrls = []url.URL{client}
	// On a restart the member's identity comes from its log in dir, and
	// the initial cluster (with this run's peer port) is ignored: a single
	// member never dials its own peer URL, so a new port each run is fine.
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.InitialClusterToken = "ctrlkit-embedded"
	// kube-apiserver compacts its etcd every 5 minutes; the informers
	// relist when a watch falls further behind.
	cfg.AutoCompactionMode = "periodic"
	cfg.AutoCompactionRetention = "5m"
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, "", err
	}
	t := time.NewTimer(readyTimeout)
	defer t.Stop()
	select {
	case <-e.Server.ReadyNotify():
		return e, client.String(), nil
	case err := <-e.Err():
		e.Close()
		return nil, "", err
	case <-t.C:
		e.Close()
		return nil, "", fmt.Errorf("not ready after %v", readyTimeout)
	}
}

// stopEmbedded stops e, waiting at most timeout; it reports whether e
// stopped.
func stopEmbedded(e *embed.Etcd, timeout time.Duration) bool {
	done := make(chan struct{})
	go func() {
		e.Close()
		close(done)
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// freePorts reserves n ports on host by listening on port 0 and closing
// the listeners; startEmbedded tries again if one is taken before etcd
// binds it.
func freePorts(host string, n int) ([]int, error) {
	var ports []int
	for range n {
		ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return nil, fmt.Errorf("reserve a port on %s: %w", host, err)
		}
		defer ln.Close()
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// bookmarkInterval is how long a watch of one resource may be idle
// before its source asks etcd where the revision is. Settle waits until
// every informer has caught up with the store's revision, which in etcd
// is the revision of the whole keyspace: an informer whose resource was
// not written catches up only through such a bookmark, and the default
// (etcd.DefaultBookmarkInterval, a minute) made every --once run last a
// minute.
const bookmarkInterval = time.Second

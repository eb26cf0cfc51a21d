package managercmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/component-base/metrics/legacyregistry"
	// client-go's request metrics (rest_client_requests_total,
	// rest_client_request_duration_seconds, …) in component-base's
	// registry, as kube-controller-manager registers them.
	_ "k8s.io/component-base/metrics/prometheus/restclient"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/leaderelection"
	"github.com/ctrlkit/ctrlkit/controllers/manager"
	"github.com/ctrlkit/ctrlkit/kube"
	"github.com/ctrlkit/ctrlkit/prometheus"
)

// Main runs `ctrlkit manager` with args (the flags, without the
// subcommand) until ctx ends, and returns the exit code: 0 after ctx
// ended (the Lease resigned), 1 when the manager could not start or lost
// its leadership (kube-controller-manager exits then, to be restarted),
// 2 for bad flags (with the message and the usage on stderr).
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "ctrlkit manager: %v\n", err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	rc, err := clientcmd.BuildConfigFromFlags(cfg.master, cfg.kubeconfig)
	if err != nil {
		fmt.Fprintf(stderr, "ctrlkit manager: kubeconfig: %v\n", err)
		return 1
	}
	kc, err := kube.NewClient(rc, kube.ClientOptions{QPS: float32(cfg.qps), Burst: cfg.burst, UserAgent: "ctrlkit-manager", OrderedVersions: true})
	if err != nil {
		fmt.Fprintf(stderr, "ctrlkit manager: %v\n", err)
		return 1
	}
	reg := prom.NewRegistry()
	provider, err := prometheus.New(reg, prometheus.Options{})
	if err != nil {
		fmt.Fprintf(stderr, "ctrlkit manager: metrics: %v\n", err)
		return 1
	}
	mopts := manager.Options{
		Controllers: strings.Split(cfg.controllers, ","), Workers: cfg.workers, Logger: logger,
		ReconcileMetrics: provider, QueueMetrics: provider,
	}
	if cfg.leaderElect {
		// The Lease through a client of its own, with its own rate
		// limit, as kube-controller-manager's leader-election client:
		// the controllers' requests queued on theirs never delay a
		// renewal past the renew deadline.
		lc, err := kube.NewClient(rc, kube.ClientOptions{QPS: float32(cfg.qps), Burst: cfg.burst, UserAgent: "ctrlkit-manager/leader-election", OrderedVersions: true})
		if err != nil {
			fmt.Fprintf(stderr, "ctrlkit manager: %v\n", err)
			return 1
		}
		leases, err := client.For[*api.Lease](lc)
		if err != nil {
			fmt.Fprintf(stderr, "ctrlkit manager: %v\n", err)
			return 1
		}
		e, err := leaderelection.New(leases, leaderelection.Options{
			Namespace: cfg.resourceNamespace, Name: cfg.resourceName,
			LeaseDuration: cfg.leaseDuration, RenewDeadline: cfg.renewDeadline, RetryPeriod: cfg.retryPeriod,
			Logger: logger,
		})
		if err != nil {
			fmt.Fprintf(stderr, "ctrlkit manager: --leader-elect-*: %v\n", err)
			return 2
		}
		mopts.Elector = e
		fmt.Fprintf(stderr, "ctrlkit manager: leader election: lease %s/%s, identity %s\n", cfg.resourceNamespace, cfg.resourceName, e.Identity())
	}
	m, err := manager.New(kc, mopts)
	if err != nil {
		fmt.Fprintf(stderr, "ctrlkit manager: %v\n", err)
		return 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	served := make(chan error, 1)
	if cfg.securePort != 0 {
		jc := rest.CopyConfig(rc)
		jc.ContentType, jc.AcceptContentTypes = "application/json", "application/json"
		cs, err := kubernetes.NewForConfig(jc)
		if err != nil {
			fmt.Fprintf(stderr, "ctrlkit manager: %v\n", err)
			return 1
		}
		// The controllers' series, and component-base's registry: the
		// rest client's series and the process and Go runtime ones, as
		// kube-controller-manager serves them (client-go's request
		// metrics are per process).
		metricsHandler := promhttp.HandlerFor(prom.Gatherers{reg, legacyregistry.DefaultGatherer}, promhttp.HandlerOpts{})
		h := Handler(m.Handler(metricsHandler), NewDelegatedAuth(cs), strings.Split(cfg.allowPaths, ","))
		l, srv, err := listen(cfg, h)
		if err != nil {
			fmt.Fprintf(stderr, "ctrlkit manager: serve: %v\n", err)
			return 1
		}
		fmt.Fprintf(stderr, "ctrlkit manager: serving on https://%s\n", l.Addr())
		go func() { served <- srv.Serve(l) }()
		defer func() {
			sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer scancel()
			_ = srv.Shutdown(sctx)
			<-served
		}()
	}
	fmt.Fprintf(stderr, "ctrlkit manager: controllers: %s\n", strings.Join(m.Controllers(), ", "))
	err = m.Run(ctx)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, manager.ErrLeadershipLost):
		fmt.Fprintf(stderr, "ctrlkit manager: %v\n", err)
		return 1
	default:
		fmt.Fprintf(stderr, "ctrlkit manager: %v\n", err)
		return 1
	}
}

// listen binds --bind-address:--secure-port and returns the server that
// serves h over TLS on it, bounded as kube's secure serving is: header
// size, read and idle timeouts.
func listen(cfg config, h http.Handler) (net.Listener, *http.Server, error) {
	tc, err := tlsConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	l, err := net.Listen("tcp", net.JoinHostPort(cfg.bindAddress, strconv.Itoa(cfg.securePort)))
	if err != nil {
		return nil, nil, err
	}
	srv := &http.Server{
		Handler:           h,
		TLSConfig:         tc,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      2 * time.Minute, // /debug/pprof/profile runs 30 s by default
		IdleTimeout:       90 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	return tlsListener(l, tc), srv, nil
}

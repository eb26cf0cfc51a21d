package managercmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/kubelet"
	"github.com/ctrlkit/ctrlkit/controllers/scheduler"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/kube"
	"github.com/ctrlkit/ctrlkit/source"
)

// connect parses the common flags of `scheduler` and `nodes` and returns
// the client; code is non-zero when the caller should return it.
func connect(name string, fs *flag.FlagSet, args []string, stderr io.Writer, validate func() error) (client.Client, int) {
	kubeconfig := fs.String("kubeconfig", "", "path to a kubeconfig file; empty: the in-cluster configuration")
	master := fs.String("master", "", "the API server's address, overriding the kubeconfig's")
	qps := fs.Float64("kube-api-qps", 50, "queries per second to the API server")
	burst := fs.Int("kube-api-burst", 100, "burst of queries to the API server")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, -1
		}
		fmt.Fprintf(stderr, "ctrlkit %s: %v\n", name, err)
		return nil, 2
	}
	if fs.NArg() > 0 || *qps <= 0 || *burst < 1 {
		fmt.Fprintf(stderr, "ctrlkit %s: unexpected arguments %q, or --kube-api-qps/--kube-api-burst not positive\n", name, fs.Args())
		return nil, 2
	}
	if err := validate(); err != nil {
		fmt.Fprintf(stderr, "ctrlkit %s: %v\n", name, err)
		return nil, 2
	}
	rc, err := clientcmd.BuildConfigFromFlags(*master, *kubeconfig)
	if err != nil {
		fmt.Fprintf(stderr, "ctrlkit %s: kubeconfig: %v\n", name, err)
		return nil, 1
	}
	kc, err := kube.NewClient(rc, kube.ClientOptions{QPS: float32(*qps), Burst: *burst, UserAgent: "ctrlkit-" + name, OrderedVersions: true})
	if err != nil {
		fmt.Fprintf(stderr, "ctrlkit %s: %v\n", name, err)
		return nil, 1
	}
	return kc, 0
}

func exitCode(code int) int {
	if code < 0 {
		return 0
	}
	return code
}

// SchedulerMain runs `ctrlkit scheduler`: ctrlkit's scheduler (package
// controllers/scheduler) against the API server of --kubeconfig, binding
// pods through the pods/binding subresource, until ctx ends (exit 0).
// Bad flags exit 2.
func SchedulerMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ctrlkit scheduler", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c, code := connect("scheduler", fs, args, stderr, func() error { return nil })
	if c == nil {
		return exitCode(code)
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	pods, err1 := client.For[*api.Pod](c)
	nodes, err2 := client.For[*api.Node](c)
	claimsRes, err3 := client.For[*api.PersistentVolumeClaim](c)
	volumesRes, err4 := client.For[*api.PersistentVolume](c)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		fmt.Fprintf(stderr, "ctrlkit scheduler: %v\n", err)
		return 1
	}
	factory := informer.NewFactory(informer.FactoryOptions{Logger: logger})
	claims, err := informer.Shared(factory, claimsRes.Resource(), source.ListWatcher[*api.PersistentVolumeClaim](claimsRes),
		api.Key[*api.PersistentVolumeClaim], informer.Options[*api.PersistentVolumeClaim]{Logger: logger})
	if err != nil {
		fmt.Fprintf(stderr, "ctrlkit scheduler: %v\n", err)
		return 1
	}
	volumes, err := informer.Shared(factory, volumesRes.Resource(), source.ListWatcher[*api.PersistentVolume](volumesRes),
		api.Key[*api.PersistentVolume], informer.Options[*api.PersistentVolume]{Logger: logger})
	if err != nil {
		fmt.Fprintf(stderr, "ctrlkit scheduler: %v\n", err)
		return 1
	}
	w := scheduler.ClusterWriter{Cluster: c}
	s, err := scheduler.New(scheduler.Options{Pods: pods, Nodes: nodes, Binder: w, Status: w, Logger: logger,
		Claims: scheduler.ClaimsFrom(claims.Lister()), Volumes: scheduler.VolumesFrom(volumes.Lister()),
		Synced: []func() bool{claims.HasSynced, volumes.HasSynced}})
	if err != nil {
		fmt.Fprintf(stderr, "ctrlkit scheduler: %v\n", err)
		return 1
	}
	factory.Start(ctx)
	defer factory.Shutdown()
	fmt.Fprintln(stderr, "ctrlkit scheduler: running")
	if err := s.Run(ctx); err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "ctrlkit scheduler: %v\n", err)
		return 1
	}
	return 0
}

// NodesMain runs `ctrlkit nodes --count N`: N simulated kubelets
// (package controllers/kubelet), nodes node-1 … node-N (--prefix), that
// register their Nodes, keep their leases and run the pods bound to
// them, against the API server of --kubeconfig, until ctx ends (exit 0).
// Bad flags exit 2.
func NodesMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ctrlkit nodes", flag.ContinueOnError)
	fs.SetOutput(stderr)
	count := fs.Int("count", 3, "number of simulated nodes")
	prefix := fs.String("prefix", "node-", "node name prefix; nodes are <prefix>1 … <prefix>N")
	c, code := connect("nodes", fs, args, stderr, func() error {
		if *count < 1 || *count > 5000 {
			return fmt.Errorf("--count must be in 1..5000 (got %d)", *count)
		}
		return nil
	})
	if c == nil {
		return exitCode(code)
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	var ks []*kubelet.Kubelet
	for i := 1; i <= *count; i++ {
		cidr := fmt.Sprintf("10.244.%d.0/24", i)
		if i >= 256 {
			cidr = fmt.Sprintf("100.%d.%d.0/24", 64+i>>8, i&255)
		}
		k, err := kubelet.New(c, kubelet.Options{NodeName: fmt.Sprintf("%s%d", *prefix, i), Logger: logger, PodCIDR: cidr})
		if err != nil {
			fmt.Fprintf(stderr, "ctrlkit nodes: %v\n", err)
			return 1
		}
		ks = append(ks, k)
	}
	fmt.Fprintf(stderr, "ctrlkit nodes: running %d nodes\n", len(ks))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(ks))
	var wg sync.WaitGroup
	for i, k := range ks {
		wg.Go(func() {
			if err := k.Run(ctx); err != nil && ctx.Err() == nil {
				errs[i] = err
				cancel()
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintf(stderr, "ctrlkit nodes: %v\n", err)
		return 1
	}
	return 0
}

// Command ctrlkit is the kube module's build of ctrlkit: every
// subcommand of the core module's ctrlkit (see package
// controllers/controlplane/cli), plus
//
//	ctrlkit manager --kubeconfig FILE [--controllers=…] [flags]
//
// which runs ctrlkit's reference controllers against any Kubernetes API
// server, with leader election on a coordination.k8s.io Lease, as
// kube-controller-manager does (see package kube/managercmd for the
// flags), and, so that a bare kube-apiserver without nodes can run
// workloads,
//
//	ctrlkit scheduler --kubeconfig FILE          # ctrlkit's scheduler
//	ctrlkit nodes --kubeconfig FILE --count N    # N simulated kubelets
//
//	go run ./cmd/ctrlkit manager --kubeconfig ~/.kube/config --controllers=replicaset,deployment
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/ctrlkit/ctrlkit/controllers/controlplane/cli"
	"github.com/ctrlkit/ctrlkit/kube/managercmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	var code int
	args := os.Args[1:]
	sub := ""
	if len(args) > 0 {
		sub = args[0]
	}
	switch sub {
	case "manager":
		code = managercmd.Main(ctx, args[1:], os.Stdout, os.Stderr)
	case "scheduler":
		code = managercmd.SchedulerMain(ctx, args[1:], os.Stdout, os.Stderr)
	case "nodes":
		code = managercmd.NodesMain(ctx, args[1:], os.Stdout, os.Stderr)
	default:
		code = cli.Main(ctx, args, os.Stdout, os.Stderr, cli.Options{})
	}
	stop()
	os.Exit(code)
}

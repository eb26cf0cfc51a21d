// Command ctrlkit is the kube module's build of ctrlkit: every
// subcommand of the core module's ctrlkit (see package
// controllers/controlplane/cli), plus
//
//	ctrlkit manager --kubeconfig FILE [--controllers=…] [flags]
//
// which runs ctrlkit's reference controllers against any Kubernetes API
// server, with leader election on a coordination.k8s.io Lease, as
// kube-controller-manager does (see package kube/managercmd for the
// flags).
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
	if args := os.Args[1:]; len(args) > 0 && args[0] == "manager" {
		code = managercmd.Main(ctx, args[1:], os.Stdout, os.Stderr)
	} else {
		code = cli.Main(ctx, args, os.Stdout, os.Stderr, cli.Options{})
	}
	stop()
	os.Exit(code)
}

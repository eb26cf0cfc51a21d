// Command ctrlkit runs Kubernetes' control plane, rebuilt on ctrlkit, in
// one process: the cluster store in memory, simulated nodes, the
// scheduler, kube-proxy and every controller, on the manifests in
// package manifests (or yours, with -f).
//
//	go run ./cmd/ctrlkit up --once     # settle, print the cluster, exit
//	go run ./cmd/ctrlkit up            # a live view; type commands
//
// See package controllers/controlplane/cli for the flags.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/ctrlkit/ctrlkit/controllers/controlplane/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr, cli.Options{})
	stop()
	os.Exit(code)
}

// Command ctrlkit is the crdcel module's build of ctrlkit: every
// subcommand of the core module's ctrlkit (see package
// controllers/controlplane/cli), with the x-kubernetes-validations (CEL)
// rules of CustomResourceDefinitions checked as kube-apiserver checks
// them (crdcel.Rules): a definition whose rules do not compile is
// refused, and a custom resource breaking a rule is 422 Invalid with the
// rule's message; and admission webhooks' matchConditions evaluated
// (crdcel.MatchConditions); and server-side apply served, with
// managedFields kept on every write (the ssa module's FieldManager).
//
//	cd crdcel && go run ./cmd/ctrlkit up --listen 127.0.0.1:6443
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/ctrlkit/ctrlkit/controllers/controlplane/cli"
	"github.com/ctrlkit/ctrlkit/crdcel"
	"github.com/ctrlkit/ctrlkit/ssa"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, cli.Options{})
	stop()
	os.Exit(code)
}

// run runs the ctrlkit command with the CEL rules of definitions checked
// and server-side apply served.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, opts cli.Options) int {
	fm, err := ssa.New()
	if err != nil {
		fmt.Fprintln(stderr, "ctrlkit:", err)
		return 1
	}
	opts.FieldManager = fm
	opts.ValidationRules = crdcel.Rules
	opts.MatchConditions = crdcel.MatchConditions
	return cli.Main(ctx, args, stdout, stderr, opts)
}

package harness

import (
	"context"
	"log/slog"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/leaderelection"
	"github.com/ctrlkit/ctrlkit/leader"
)

// Replicated builds one incarnation of one replica of a controller that
// runs under leader election: over its client c, with its elector e.
// Its Run must act only while it leads — leader.Run(ctx, e, work) runs
// work only then, under a context that ends with the term — and may run
// its informers all along (a warm standby).
type Replicated func(c client.Client, e leader.Elector) (Runner, error)

// Elected returns the Controller of r: each incarnation's Run builds r
// over the incarnation's client and its replica's elector (see
// Scenario.Election), or, in a scenario without Election, a
// leader.Memory of its own, under which it leads at once. An error of r
// is the error of Run.
func Elected(r Replicated) Controller {
	return func(c client.Client) (Runner, error) {
		return electedRunner{r: r, c: c}, nil
	}
}

// electedRunner is a Runner of Elected.
type electedRunner struct {
	r Replicated
	c client.Client
}

// Run builds the controller with the context's elector and runs it.
func (er electedRunner) Run(ctx context.Context) error {
	e, ok := ctx.Value(electorKey{}).(leader.Elector)
	if !ok {
		e = leader.NewMemory()
	}
	run, err := er.r(er.c, e)
	if err != nil {
		return err
	}
	return run.Run(ctx)
}

// electorKey carries a replica's elector in its incarnations' contexts.
type electorKey struct{}

// watchedElector calls began at the start of each of its terms.
type watchedElector struct {
	leader.Elector
	began func()
}

// Campaign campaigns and reports a term won.
func (w watchedElector) Campaign(ctx context.Context) (leader.Term, error) {
	t, err := w.Elector.Campaign(ctx)
	if err == nil {
		w.began()
	}
	return t, err
}

// newElector returns the elector of one incarnation of replica rep: a
// leaderelection.Elector over the Lease el names, whose identity is the
// replica's name, reading and writing the Lease through c except while
// rep is partitioned, when its writes fail.
func newElector(c client.Client, el *Election, rep *replica, began func()) (leader.Elector, error) {
	leases, err := client.For[*api.Lease](client.Intercept(c, func(ctx context.Context, call client.Call, next func(context.Context) error) error {
		if isWrite(call.Verb) && rep.partitioned.Load() {
			return errPartitioned
		}
		return next(ctx)
	}))
	if err != nil {
		return nil, err
	}
	opts := leaderelection.Options{
		Namespace: el.Namespace, Name: el.Name, Identity: rep.name,
		LeaseDuration: el.LeaseDuration, RenewDeadline: el.RenewDeadline, RetryPeriod: el.RetryPeriod,
		Logger: slog.New(slog.DiscardHandler),
	}
	if opts.Namespace == "" {
		opts.Namespace = "kube-system"
	}
	if opts.Name == "" {
		opts.Name = "harness-controller"
	}
	e, err := leaderelection.New(leases, opts)
	if err != nil {
		return nil, err
	}
	return watchedElector{Elector: e, began: began}, nil
}

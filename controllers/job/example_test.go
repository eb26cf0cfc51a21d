package job_test

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/job"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// The Job controller over an in-memory cluster, used through the client
// contract as any client.Client would be, with the example playing the
// kubelet: the job's pod is created with the tracking finalizer and
// the generated controller-uid label; once the pod has Succeeded the job
// counts it, releases its finalizer and is Complete.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := slog.New(slog.DiscardHandler)
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		panic(err)
	}
	jobClient, err := client.For[*api.Job](c) // c is a client.Client
	if err != nil {
		panic(err)
	}
	podClient, err := client.For[*api.Pod](c)
	if err != nil {
		panic(err)
	}
	f := informer.NewFactory(informer.FactoryOptions{Logger: logger})
	jc, err := job.New(c, f, job.Options{Logger: logger})
	if err != nil {
		panic(err)
	}
	f.Start(ctx)
	done := make(chan error, 1)
	go func() { done <- jc.Run(ctx) }()

	pods, err := podClient.Watch(ctx, source.WatchOptions{})
	if err != nil {
		panic(err)
	}
	jobs, err := jobClient.Watch(ctx, source.WatchOptions{})
	if err != nil {
		panic(err)
	}
	pi := &api.Job{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "pi"}}
	pi.Spec.Template.Spec.RestartPolicy = api.RestartPolicyNever
	pi.Spec.Template.Spec.Containers = []api.Container{{Name: "pi", Image: "perl"}}
	if _, err := jobClient.Create(ctx, pi); err != nil {
		panic(err)
	}
	ev := <-pods
	p := ev.Object.DeepCopy()
	fmt.Println("pod finalizers:", p.Finalizers)
	fmt.Println("controller-uid label matches:", p.Labels["batch.kubernetes.io/controller-uid"] == string(pi.UID))
	p.Status.Phase = api.PodSucceeded // what the kubelet reports
	if _, err := podClient.UpdateStatus(ctx, p); err != nil {
		panic(err)
	}
	for ev := range jobs {
		if j := ev.Object; j.Status.CompletionTime != nil {
			for _, cond := range j.Status.Conditions {
				fmt.Println(cond.Type, cond.Status, cond.Reason)
			}
			fmt.Println("succeeded:", j.Status.Succeeded)
			break
		}
	}
	got, _, err := podClient.Get(ctx, api.Key(p))
	if err != nil {
		panic(err)
	}
	fmt.Println("pod finalizers after counting:", got.Finalizers)
	cancel()
	fmt.Println(<-done)
	f.Shutdown()
	// Output:
	// pod finalizers: [batch.kubernetes.io/job-tracking]
	// controller-uid label matches: true
	// SuccessCriteriaMet True CompletionsReached
	// Complete True CompletionsReached
	// succeeded: 1
	// pod finalizers after counting: []
	// context canceled
}

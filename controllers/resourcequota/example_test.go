package resourcequota_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/resourcequota"
	"github.com/ctrlkit/ctrlkit/informer"
)

// A quota of two pods: the controller fills in its usage, admission
// charges each create and refuses the third with Kubernetes' message.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := slog.New(slog.DiscardHandler)
	qa := resourcequota.NewAdmission()
	c, err := cluster.New(ctx, cluster.Options{Admission: []cluster.AdmissionFunc{qa.Admit}})
	if err != nil {
		panic(err)
	}
	if err := qa.SetClient(c); err != nil {
		panic(err)
	}
	f := informer.NewFactory(informer.FactoryOptions{Logger: logger})
	ctl, err := resourcequota.New(c, f, resourcequota.Options{Logger: logger})
	if err != nil {
		panic(err)
	}
	f.Start(ctx)
	done := make(chan error, 1)
	go func() { done <- ctl.Run(ctx) }()

	rq := &api.ResourceQuota{ObjectMeta: api.ObjectMeta{Name: "two", Namespace: "default"},
		Spec: api.ResourceQuotaSpec{Hard: api.ResourceList{"pods": api.MustParse("2")}}}
	if _, err := c.ResourceQuotas().Create(ctx, rq); err != nil {
		panic(err)
	}
	// Wait (in real time, bounded: an Example has no *testing.T for a
	// testing/synctest bubble) for the first count.
	for i := 0; i < 500; i++ {
		got, _, err := c.ResourceQuotas().Get(ctx, "default/two")
		if err == nil && got.Status.Used != nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for i := range 3 {
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("p%d", i), Namespace: "default"},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
		_, err := c.Pods().Create(ctx, p)
		var fe *resourcequota.ForbiddenError
		switch {
		case errors.As(err, &fe):
			fmt.Println(p.Name, "refused:", fe.Message)
		case err != nil:
			fmt.Println(p.Name, err)
		default:
			fmt.Println(p.Name, "created")
		}
	}
	cancel()
	<-done
	// Output:
	// p0 created
	// p1 created
	// p2 refused: exceeded quota: two, requested: pods=1, used: pods=2, limited: pods=2
}

package fakeclient_test

import (
	"context"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/client/fakeclient"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// scaleUp stands for a controller: it creates the pods web-0 … web-(n-1)
// that are missing, through whatever client it is given.
func scaleUp(ctx context.Context, c client.Client, n int) error {
	pods, err := client.For[*api.Pod](c)
	if err != nil {
		return err
	}
	for i := range n {
		name := fmt.Sprintf("web-%d", i)
		if _, _, err := pods.Get(ctx, "default/"+name); err == nil {
			continue
		}
		pod := &api.Pod{
			ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
			Spec:       api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx"}}},
		}
		if _, err := pods.Create(ctx, pod); err != nil {
			return err
		}
	}
	return nil
}

// A test hands the controller the fake over an in-process cluster, fails
// its second create, and checks what it wrote and that it recovers.
func Example() {
	ctx := context.Background()
	inner, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		panic(err)
	}
	fc := fakeclient.New(inner)
	fc.FailNth("create", "pods", 2, client.ErrServerTimeout)

	err = scaleUp(ctx, fc, 3)
	fmt.Println("first sync:", err)
	err = scaleUp(ctx, fc, 3)
	fmt.Println("second sync:", err)
	for _, a := range fc.Writes() {
		fmt.Println(a)
	}
	fmt.Println(len(fc.Actions()), "calls")
	// Output:
	// first sync: server timeout
	// second sync: <nil>
	// create pods default/web-0
	// create pods default/web-1 (server timeout)
	// create pods default/web-1
	// create pods default/web-2
	// 9 calls
}

package etcd_test

import (
	"context"
	"fmt"
	"os"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/ctrlkit/ctrlkit/etcd"
	"github.com/ctrlkit/ctrlkit/etcd/etcdtest"
	"github.com/ctrlkit/ctrlkit/source"
)

// Pod is an example object. It carries its resourceVersion, which the
// source stamps on every write and read.
type Pod struct {
	Namespace       string `json:"namespace"`
	Name            string `json:"name"`
	Node            string `json:"node,omitempty"`
	ResourceVersion string `json:"-"`
}

// SetResourceVersion implements source.VersionSetter.
func (p *Pod) SetResourceVersion(rv string) { p.ResourceVersion = rv }

// Point ctrlkit at an etcd cluster: a client with the cluster's endpoints,
// a key prefix, a key function and (optionally) a codec. An embedded etcd
// stands in for a real cluster here.
func Example() {
	dir, err := os.MkdirTemp("", "ctrlkit-etcd-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	cluster, err := etcdtest.Start(etcdtest.Options{Dir: dir})
	if err != nil {
		panic(err)
	}
	defer cluster.Close()

	cli, err := clientv3.New(clientv3.Config{Endpoints: cluster.Endpoints()})
	if err != nil {
		panic(err)
	}
	defer cli.Close()
	pods, err := etcd.New(cli, etcd.Options[*Pod]{
		Prefix:  "/registry/pods/",
		KeyFunc: func(p *Pod) string { return p.Namespace + "/" + p.Name },
		Codec:   etcd.JSONCodec[*Pod]{}, // the default
	})
	if err != nil {
		panic(err)
	}

	ctx := context.Background()
	web := &Pod{Namespace: "default", Name: "web"}
	if _, err := pods.Create(ctx, web); err != nil {
		panic(err)
	}
	list, err := pods.List(ctx, source.ListOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println("listed:", len(list.Items), "pod")

	// Watch from the list's version, as a reflector does.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events, err := pods.Watch(wctx, source.WatchOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		panic(err)
	}
	scheduled := &Pod{Namespace: "default", Name: "web", Node: "node-1"}
	if _, err := pods.Update(ctx, scheduled, web.ResourceVersion); err != nil {
		panic(err)
	}
	// The same precondition again is stale now.
	_, err = pods.Update(ctx, scheduled, web.ResourceVersion)
	fmt.Println("stale update:", err != nil)
	if _, err := pods.Delete(ctx, "default/web", ""); err != nil {
		panic(err)
	}
	for range 2 {
		ev := <-events
		fmt.Println(ev.Type, ev.Object.Name, "on", ev.Object.Node)
	}
	raw, err := cli.Get(ctx, "/registry/pods/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		panic(err)
	}
	fmt.Println("keys left:", raw.Count)
	// Output:
	// listed: 1 pod
	// stale update: true
	// Modified web on node-1
	// Deleted web on node-1
	// keys left: 0
}

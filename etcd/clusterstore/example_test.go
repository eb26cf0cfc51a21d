package clusterstore_test

import (
	"context"
	"fmt"
	"os"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/etcd/clusterstore"
	"github.com/ctrlkit/ctrlkit/etcd/etcdtest"
)

// A cluster over etcd keeps its objects where kube-apiserver keeps them.
// An embedded etcd stands in for a real one here.
func Example() {
	dir, err := os.MkdirTemp("", "ctrlkit-clusterstore-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	e, err := etcdtest.Start(etcdtest.Options{Dir: dir})
	if err != nil {
		panic(err)
	}
	defer e.Close()
	cli, err := clientv3.New(clientv3.Config{Endpoints: e.Endpoints()})
	if err != nil {
		panic(err)
	}
	defer cli.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := cluster.New(ctx, cluster.Options{Backend: clusterstore.New(cli, clusterstore.Options{})})
	if err != nil {
		panic(err)
	}
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web-0"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: "nginx"}}}}
	if _, err := c.Pods().Create(ctx, pod); err != nil {
		panic(err)
	}
	resp, err := cli.Get(ctx, "/registry/pods/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		panic(err)
	}
	for _, kv := range resp.Kvs {
		fmt.Println(string(kv.Key))
	}
	// Output: /registry/pods/default/web-0
}

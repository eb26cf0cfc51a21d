package etcdtest_test

import (
	"context"
	"fmt"
	"os"

	"github.com/ctrlkit/ctrlkit/etcd/etcdtest"
)

// Start a one-member etcd in a temporary directory, write and read a key.
func ExampleStart() {
	dir, err := os.MkdirTemp("", "etcdtest-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	c, err := etcdtest.Start(etcdtest.Options{Dir: dir})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	cli, err := c.Client()
	if err != nil {
		panic(err)
	}
	defer cli.Close()

	ctx := context.Background()
	if _, err := cli.Put(ctx, "/greeting", "hello"); err != nil {
		panic(err)
	}
	resp, err := cli.Get(ctx, "/greeting")
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s = %s\n", resp.Kvs[0].Key, resp.Kvs[0].Value)
	// Output:
	// /greeting = hello
}

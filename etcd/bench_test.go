package etcd_test

import (
	"fmt"
	"testing"

	"github.com/ctrlkit/ctrlkit/etcd"
	"github.com/ctrlkit/ctrlkit/etcd/etcdtest"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/source/sourcetest"
)

// BenchmarkList lists 1000 objects from an embedded etcd, in pages of
// 500 (the default page size) at one revision.
func BenchmarkList(b *testing.B) {
	c := etcdtest.New(b, etcdtest.Options{})
	cli := newClient(b, c)
	objs := make([]*sourcetest.Object, 1000)
	for i := range objs {
		objs[i] = &sourcetest.Object{Key: fmt.Sprintf("obj-%04d", i), Value: "some value"}
	}
	seed(b, cli, "/bench/", objs)
	src := objectSource(b, cli, "/bench/", func(o *etcd.Options[*sourcetest.Object]) { o.PageSize = 0 })
	b.ReportAllocs()
	for b.Loop() {
		l, err := src.List(b.Context(), source.ListOptions{})
		if err != nil || len(l.Items) != len(objs) {
			b.Fatal(len(l.Items), err)
		}
	}
}

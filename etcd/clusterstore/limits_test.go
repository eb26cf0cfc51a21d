package clusterstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/etcd/clusterstore"
)

// An object under the cluster's limit but over etcd's --max-request-bytes
// (1.5 MiB by default) is refused by etcd; the error wraps
// cluster.ErrTooLarge, as the cluster's own refusal does, so that an API
// server answers 413 rather than 500.
func TestEtcdRequestTooLarge(t *testing.T) {
	cli := newClient(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	c, err := cluster.New(ctx, cluster.Options{
		Backend:        clusterstore.New(cli, clusterstore.Options{Logger: quiet}),
		MaxObjectBytes: 1900 << 10, // over etcd's limit, under the client's 2 MiB
	})
	if err != nil {
		t.Fatal(err)
	}
	pod := &api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "big"},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx", Args: []string{strings.Repeat("x", 1600<<10)}}}},
	}
	_, err = c.Pods().Create(ctx, pod)
	if !errors.Is(err, cluster.ErrTooLarge) {
		t.Fatalf("create of a 1.6 MiB pod: %v, want ErrTooLarge", err)
	}
	small := &api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "small"},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}},
	}
	if _, err := c.Pods().Create(ctx, small); err != nil {
		t.Fatal(err)
	}
	small.Spec.Containers[0].Image = strings.Repeat("x", 1600<<10)
	if _, err := c.Pods().Update(ctx, small, ""); !errors.Is(err, cluster.ErrTooLarge) {
		t.Fatalf("update to a 1.6 MiB pod: %v, want ErrTooLarge", err)
	}
}

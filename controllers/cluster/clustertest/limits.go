package clustertest

import (
	"errors"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// testObjectSizeLimit checks that a create, an update or a status update
// whose object encodes to more than Options.MaxObjectBytes fails with
// ErrTooLarge and writes nothing, and that the default limit is etcd's
// 1.5 MiB.
func testObjectSizeLimit(t *testing.T, newCluster NewCluster) {
	const limit = 64 << 10
	c := newCluster(t, cluster.Options{MaxObjectBytes: limit})
	ctx := ctxOf(t)
	big := strings.Repeat("x", limit)

	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "big"}, Data: map[string]string{"k": big}}
	if _, err := c.ConfigMaps().Create(ctx, cm); !errors.Is(err, cluster.ErrTooLarge) {
		t.Fatalf("create over the limit: %v, want ErrTooLarge", err)
	}
	if _, _, err := c.ConfigMaps().Get(ctx, "default/big"); err == nil {
		t.Error("the refused create was stored")
	}

	cm = &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm"}, Data: map[string]string{"k": big[:limit/2]}}
	rv, err := c.ConfigMaps().Create(ctx, cm)
	must(t, err)
	cm.Data["k"] = big
	if _, err := c.ConfigMaps().Update(ctx, cm, ""); !errors.Is(err, cluster.ErrTooLarge) {
		t.Fatalf("update over the limit: %v, want ErrTooLarge", err)
	}
	got, gotRV, err := c.ConfigMaps().Get(ctx, "default/cm")
	must(t, err)
	if gotRV != rv || len(got.Data["k"]) != limit/2 {
		t.Errorf("the refused update was stored: version %s (was %s), %d bytes", gotRV, rv, len(got.Data["k"]))
	}

	p := Pod("default", "p", nil)
	_, err = c.Pods().Create(ctx, p)
	must(t, err)
	p.Status.Message = big
	if _, err := c.Pods().UpdateStatus(ctx, p); !errors.Is(err, cluster.ErrTooLarge) {
		t.Fatalf("status update over the limit: %v, want ErrTooLarge", err)
	}

	// The default limit: 1.5 MiB.
	c = newCluster(t, cluster.Options{})
	p = Pod("default", "args", nil)
	p.Spec.Containers[0].Args = []string{strings.Repeat("x", cluster.DefaultMaxObjectBytes)}
	if _, err := c.Pods().Create(ctx, p); !errors.Is(err, cluster.ErrTooLarge) {
		t.Fatalf("create over the default limit: %v, want ErrTooLarge", err)
	}
	p = Pod("default", "args", nil)
	p.Spec.Containers[0].Args = []string{strings.Repeat("x", cluster.DefaultMaxObjectBytes-4<<10)}
	_, err = c.Pods().Create(ctx, p)
	must(t, err)
}

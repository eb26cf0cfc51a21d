package cluster

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/fake"
)

// The in-memory backend counts past versions by their JSON encoding and
// keeps their sum within Options.HistoryBytes after every write.
func TestHistoryBytesWithinBound(t *testing.T) {
	const (
		bound = 4 << 20
		size  = 200 << 10
	)
	ctx := t.Context()
	c, err := New(ctx, Options{HistoryBytes: bound})
	if err != nil {
		t.Fatal(err)
	}
	stats := func() fake.HistoryStats { return storeOf[*api.ConfigMap](c).s.(memory[*api.ConfigMap]).HistoryStats() }
	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "big"}, Data: map[string]string{"k": "v"}}
	if _, err := c.ConfigMaps().Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	var encoded int64 // the size of the replaced versions' encodings
	for i := range 60 {
		prev, _, err := c.ConfigMaps().Get(ctx, "default/big")
		if err != nil {
			t.Fatal(err)
		}
		prev.ResourceVersion = "" // measured before the store stamps it
		data, err := json.Marshal(prev)
		if err != nil {
			t.Fatal(err)
		}
		encoded += int64(len(data))
		cm.Data["k"] = strconv.Itoa(i) + strings.Repeat("x", size)
		if _, err := c.ConfigMaps().Update(ctx, cm, ""); err != nil {
			t.Fatal(err)
		}
		st := stats()
		if st.Bytes > bound {
			t.Fatalf("after update %d the history holds %d bytes, over the bound %d", i, st.Bytes, bound)
		}
		if i == 0 && st.Bytes != encoded {
			t.Fatalf("the first replaced version counts %d bytes, its encoding has %d", st.Bytes, encoded)
		}
	}
	if st := stats(); st.Writes >= 60 || st.Bytes < bound-2*size {
		t.Errorf("history %+v: want fewer than 60 writes, filled to within two objects of %d bytes", st, bound)
	}
}

func TestEncodedSize(t *testing.T) {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Annotations: map[string]string{"a": "<&>"}}}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := encodedSize(p); got != len(data) {
		t.Errorf("encodedSize = %d, json.Marshal has %d bytes", got, len(data))
	}
}

// The cost the in-memory backend adds to each create and update:
// measuring the stored object.
func BenchmarkEncodedSize(b *testing.B) {
	c, err := New(b.Context(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	p := &api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "p", Labels: map[string]string{"app": "web"}},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1.27"}}},
	}
	if _, err := c.Pods().Create(b.Context(), p); err != nil {
		b.Fatal(err)
	}
	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm"}, Data: map[string]string{"k": strings.Repeat("x", 1<<20)}}
	for _, tc := range []struct {
		name string
		obj  api.Object
	}{{"pod", p}, {"configmap-1MiB", cm}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				encodedSize(tc.obj)
			}
		})
	}
}

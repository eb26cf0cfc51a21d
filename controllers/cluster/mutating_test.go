package cluster_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// The mutating phase runs before the validating one, its changes are
// stored, and its error aborts the write.
func TestMutatingAdmission(t *testing.T) {
	var order []string
	errNo := errors.New("no")
	opts := cluster.Options{
		Mutating: []cluster.MutatingFunc{func(_ context.Context, a cluster.Attributes) error {
			p, ok := a.Object.(*api.Pod)
			if !ok {
				return nil
			}
			order = append(order, "mutate "+string(a.Operation))
			if p.Name == "refused" {
				return errNo
			}
			if a.Operation == cluster.OperationCreate && p.Spec.ServiceAccountName == "" {
				p.Spec.ServiceAccountName = "default"
			}
			return nil
		}},
		Admission: []cluster.AdmissionFunc{func(_ context.Context, a cluster.Attributes) error {
			p, ok := a.Object.(*api.Pod)
			if !ok {
				return nil
			}
			order = append(order, "validate "+string(a.Operation))
			if a.Operation == cluster.OperationCreate && p.Spec.ServiceAccountName != "default" {
				t.Errorf("validating admission saw serviceAccountName %q", p.Spec.ServiceAccountName)
			}
			return nil
		}},
	}
	c := newMemory(t, opts)
	ctx := t.Context()
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
	if _, err := c.Pods().Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	if pod.Spec.ServiceAccountName != "default" {
		t.Errorf("returned pod: serviceAccountName %q, want default", pod.Spec.ServiceAccountName)
	}
	stored, _, err := c.Pods().Get(ctx, "default/p")
	if err != nil {
		t.Fatal(err)
	}
	if stored.Spec.ServiceAccountName != "default" {
		t.Errorf("stored pod: serviceAccountName %q, want default", stored.Spec.ServiceAccountName)
	}
	stored.Labels = map[string]string{"a": "b"}
	if _, err := c.Pods().Update(ctx, stored, ""); err != nil {
		t.Fatal(err)
	}
	want := []string{"mutate CREATE", "validate CREATE", "mutate UPDATE", "validate UPDATE"}
	if len(order) != len(want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("order %v, want %v", order, want)
		}
	}
	bad := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "refused", Namespace: "default"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
	if _, err := c.Pods().Create(ctx, bad); !errors.Is(err, errNo) {
		t.Fatalf("create refused by the mutating phase: err %v, want %v", err, errNo)
	}
	if _, _, err := c.Pods().Get(ctx, "default/refused"); err == nil {
		t.Error("a pod refused by the mutating phase was stored")
	}
	if _, err := cluster.New(ctx, cluster.Options{Mutating: []cluster.MutatingFunc{nil}}); err == nil {
		t.Error("New accepted a nil MutatingFunc")
	}
}

// A change of the mutating phase is noticed (the object before and after
// it compared) and validated again: a label it makes invalid fails the
// create; a phase that changes nothing lets it through.
func TestMutatingAdmissionChangeValidatedAgain(t *testing.T) {
	opts := cluster.Options{
		Mutating: []cluster.MutatingFunc{func(_ context.Context, a cluster.Attributes) error {
			if p, ok := a.Object.(*api.Pod); ok && p.Name == "spoiled" {
				p.Labels = map[string]string{"bad key!": "v"}
			}
			return nil
		}},
	}
	c := newMemory(t, opts)
	ctx := t.Context()
	mk := func(name string) *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
	}
	if _, err := c.Pods().Create(ctx, mk("spoiled")); !errors.Is(err, cluster.ErrInvalid) {
		t.Fatalf("create spoiled by the mutating phase: err %v, want ErrInvalid", err)
	}
	if _, err := c.Pods().Create(ctx, mk("fine")); err != nil {
		t.Fatal(err)
	}
}

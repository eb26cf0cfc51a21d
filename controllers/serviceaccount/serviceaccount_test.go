package serviceaccount_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/serviceaccount"
	"github.com/ctrlkit/ctrlkit/informer"
)

var quiet = slog.New(slog.DiscardHandler)

func TestMissing(t *testing.T) {
	now := api.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	active := &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "a"}, Status: api.NamespaceStatus{Phase: api.NamespaceActive}}
	deleting := &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "d", DeletionTimestamp: &now}, Status: api.NamespaceStatus{Phase: api.NamespaceTerminating}}
	names := []string{"default", "builder"}
	tests := []struct {
		name string
		ns   *api.Namespace
		have []string
		want []string
	}{
		{"new namespace", active, nil, []string{"default", "builder"}},
		{"one there", active, []string{"default"}, []string{"builder"}},
		{"all there", active, []string{"default", "builder"}, nil},
		{"terminating", deleting, nil, nil},
		{"gone", nil, nil, nil},
	}
	for _, tt := range tests {
		got := serviceaccount.Missing(tt.ns, names, func(n string) bool { return slices.Contains(tt.have, n) })
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func start(t *testing.T) (context.Context, *cluster.Cluster) {
	ctx, cancel := context.WithCancel(context.Background())
	sa := serviceaccount.NewAdmission()
	c, err := cluster.New(ctx, cluster.Options{Mutating: []cluster.MutatingFunc{sa.Admit}})
	if err != nil {
		t.Fatal(err)
	}
	if err := sa.SetClient(c); err != nil {
		t.Fatal(err)
	}
	f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	ctl, err := serviceaccount.New(c, f, serviceaccount.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	f.Start(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := ctl.Run(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v", err)
		}
	})
	t.Cleanup(func() { cancel(); f.Shutdown(); wg.Wait() })
	return ctx, c
}

func settle() {
	time.Sleep(time.Second)
	synctest.Wait()
}

// Every namespace gets a default account, recreated when deleted; pods
// get it at admission; a pod naming a missing account is refused.
func TestDefaultAccount(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, c := start(t)
		if _, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "shop"}}); err != nil {
			t.Fatal(err)
		}
		settle()
		for _, ns := range []string{"default", "kube-system", "shop"} {
			if _, _, err := c.ServiceAccounts().Get(ctx, ns+"/default"); err != nil {
				t.Errorf("namespace %s: %v", ns, err)
			}
		}
		if _, err := c.ServiceAccounts().DeleteWith(ctx, "shop/default", cluster.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		settle()
		if _, _, err := c.ServiceAccounts().Get(ctx, "shop/default"); err != nil {
			t.Errorf("not recreated: %v", err)
		}
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "shop"},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
		if _, err := c.Pods().Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		if p.Spec.ServiceAccountName != "default" {
			t.Errorf("serviceAccountName %q, want default", p.Spec.ServiceAccountName)
		}
		q := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "q", Namespace: "shop"},
			Spec: api.PodSpec{ServiceAccountName: "builder", Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
		_, err := c.Pods().Create(ctx, q)
		if !errors.Is(err, serviceaccount.ErrNotFound) || !strings.Contains(err.Error(), "service account shop/builder was not found, retry after the service account is created") {
			t.Errorf("pod naming a missing account: %v", err)
		}
		if _, err := c.ServiceAccounts().Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "builder", Namespace: "shop"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Pods().Create(ctx, q); err != nil {
			t.Errorf("once the account exists: %v", err)
		}
		// A terminating namespace gets no account back.
		if _, err := c.Namespaces().DeleteWith(ctx, "shop", cluster.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ServiceAccounts().DeleteWith(ctx, "shop/default", cluster.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		settle()
		if _, _, err := c.ServiceAccounts().Get(ctx, "shop/default"); err == nil {
			t.Error("recreated in a terminating namespace")
		}
	})
}

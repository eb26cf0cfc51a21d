package namespace_test

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
	"github.com/ctrlkit/ctrlkit/controllers/api/apitest"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/namespace"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// gadget is a namespaced kind registered after the namespace
// controller's New.
type gadget struct {
	api.TypeMeta   `json:",inline"`
	api.ObjectMeta `json:"metadata"`
	Spec           struct {
		Size int `json:"size,omitempty"`
	} `json:"spec"`
}

var gadgetGVK = api.GroupVersionKind{Group: "late.ctrlkit.dev", Version: "v1", Kind: "Gadget"}

func (*gadget) GroupVersionKind() api.GroupVersionKind { return gadgetGVK }
func (g *gadget) DeepCopyObject() api.Object           { return api.DeepCopyOf(g) }

// TestDeleteNamespaceWithOwnKinds checks that deleting a namespace
// deletes its objects of the kinds added with api.Register — apitest's
// Widget, registered before New, and gadget, registered after — honouring
// their finalizers: the namespace stays Terminating, its conditions
// naming what remains, until they are gone.
func TestDeleteNamespaceWithOwnKinds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		c, err := cluster.New(ctx, cluster.Options{})
		if err != nil {
			t.Fatal(err)
		}
		logger := slog.New(slog.DiscardHandler)
		f := informer.NewFactory(informer.FactoryOptions{Logger: logger})
		nc, err := namespace.New(c, f, namespace.Options{Logger: logger})
		if err != nil {
			t.Fatal(err)
		}
		f.Start(ctx)
		var wg sync.WaitGroup
		wg.Go(func() {
			if err := nc.Run(ctx); !errors.Is(err, context.Canceled) {
				t.Errorf("Run: %v", err)
			}
		})
		defer func() {
			cancel()
			wg.Wait()
			f.Shutdown()
		}()
		if _, err := api.Register[*gadget](api.KindInfo{GroupVersionKind: gadgetGVK, Resource: "gadgets", Namespaced: true}); err != nil {
			t.Fatal(err)
		}

		const hold = "example.com/hold"
		if _, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "shop"}}); err != nil {
			t.Fatal(err)
		}
		widgets, err := client.For[*apitest.Widget](c)
		if err != nil {
			t.Fatal(err)
		}
		gadgets, err := client.For[*gadget](c)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []*apitest.Widget{
			{ObjectMeta: api.ObjectMeta{Name: "held", Namespace: "shop", Finalizers: []string{hold}}, Spec: apitest.WidgetSpec{Color: "red"}},
			{ObjectMeta: api.ObjectMeta{Name: "free", Namespace: "shop"}, Spec: apitest.WidgetSpec{Color: "blue"}},
			{ObjectMeta: api.ObjectMeta{Name: "elsewhere", Namespace: "default"}, Spec: apitest.WidgetSpec{Color: "blue"}},
		} {
			if _, err := widgets.Create(ctx, w); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := gadgets.Create(ctx, &gadget{ObjectMeta: api.ObjectMeta{Name: "g", Namespace: "shop"}}); err != nil {
			t.Fatal(err)
		}
		settle := func() { time.Sleep(time.Minute); synctest.Wait() }
		settle()

		if _, err := c.Namespaces().DeleteWith(ctx, "shop", cluster.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		settle()
		inShop := func(r interface {
			List(context.Context, source.ListOptions) (source.List[api.Object], error)
		}) []string {
			l, err := r.List(ctx, source.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, o := range l.Items {
				if m := o.GetObjectMeta(); m.Namespace == "shop" {
					out = append(out, m.Name)
				}
			}
			slices.Sort(out)
			return out
		}
		anyWidgets, err := client.ForKind(c, apitest.WidgetGVK)
		if err != nil {
			t.Fatal(err)
		}
		anyGadgets, err := client.ForKind(c, gadgetGVK)
		if err != nil {
			t.Fatal(err)
		}
		if got := inShop(anyWidgets); !slices.Equal(got, []string{"held"}) {
			t.Errorf("widgets in shop while held = %q, want [held]", got)
		}
		if got := inShop(anyGadgets); len(got) != 0 {
			t.Errorf("gadgets in shop = %q, want none (the kind was registered after New)", got)
		}
		held, _, err := widgets.Get(ctx, "shop/held")
		if err != nil || held.DeletionTimestamp == nil {
			t.Fatalf("held widget = %+v (%v), want it being deleted", held, err)
		}
		ns, _, err := c.Namespaces().Get(ctx, "shop")
		if err != nil {
			t.Fatalf("the namespace went while a widget remains: %v", err)
		}
		if ns.Status.Phase != api.NamespaceTerminating {
			t.Errorf("phase %q, want Terminating", ns.Status.Phase)
		}
		if c := condition(ns, namespace.ConditionContentRemaining); !strings.Contains(c.Message, "widgets.example.ctrlkit.dev has 1 resource instances") {
			t.Errorf("NamespaceContentRemaining = %+v, want it to name the widget", c)
		}
		if c := condition(ns, namespace.ConditionFinalizersRemaining); !strings.Contains(c.Message, hold+" in 1 resource instances") {
			t.Errorf("NamespaceFinalizersRemaining = %+v, want it to name the finalizer", c)
		}

		held.Finalizers = nil
		if _, err := widgets.Update(ctx, held, ""); err != nil {
			t.Fatal(err)
		}
		settle()
		if _, _, err := c.Namespaces().Get(ctx, "shop"); !errors.Is(err, source.ErrNotFound) {
			t.Errorf("namespace after the finalizer went: %v, want gone", err)
		}
		if _, _, err := widgets.Get(ctx, "default/elsewhere"); err != nil {
			t.Errorf("a widget of another namespace: %v", err)
		}
	})
}

package resourcequota_test

import (
	"errors"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/api/apitest"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/resourcequota"
	"github.com/ctrlkit/ctrlkit/informer"
)

// doohickey is a namespaced kind registered after the controller's New.
type doohickey struct {
	api.TypeMeta   `json:",inline"`
	api.ObjectMeta `json:"metadata"`
	Spec           struct {
		N int `json:"n,omitempty"`
	} `json:"spec"`
}

var doohickeyGVK = api.GroupVersionKind{Group: "late.ctrlkit.dev", Version: "v1", Kind: "Doohickey"}

func (*doohickey) GroupVersionKind() api.GroupVersionKind { return doohickeyGVK }
func (d *doohickey) DeepCopyObject() api.Object           { return api.DeepCopyOf(d) }

// TestCountsOwnKinds checks kcm's generic object count evaluator on the
// kinds added with api.Register: count/widgets.example.ctrlkit.dev counts
// apitest's widgets (the controller's usage, replenished on delete) and
// admission refuses the widget over it; a kind registered after New is
// counted at the next resync.
func TestCountsOwnKinds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, false)
		const widgets, late = api.ResourceName("count/widgets.example.ctrlkit.dev"), api.ResourceName("count/doohickeys.late.ctrlkit.dev")
		if got := resourcequota.CountName("widgets.example.ctrlkit.dev"); got != widgets {
			t.Errorf("CountName = %q", got)
		}
		if g, ok := resourcequota.Counted()["widgets.example.ctrlkit.dev"]; !ok || g != "example.ctrlkit.dev" {
			t.Errorf("Counted()[widgets.example.ctrlkit.dev] = %q, %v", g, ok)
		}
		if _, ok := resourcequota.Counted()["gizmos.example.ctrlkit.dev"]; ok {
			t.Error("cluster-scoped gizmos are counted")
		}
		e.quota("q", api.ResourceList{widgets: api.MustParse("2"), late: api.MustParse("5")}, nil)
		settle()
		used := func(n api.ResourceName) string {
			t.Helper()
			rq, _, err := e.c.ResourceQuotas().Get(e.ctx, "ns/q")
			if err != nil {
				t.Fatal(err)
			}
			v, ok := rq.Status.Used[n]
			if !ok {
				return "<none>"
			}
			return v.String()
		}
		if got := used(widgets); got != "0" {
			t.Fatalf("used %s = %s, want 0", widgets, got)
		}
		wr, err := client.For[*apitest.Widget](e.c)
		if err != nil {
			t.Fatal(err)
		}
		create := func(name string) error {
			_, err := wr.Create(e.ctx, &apitest.Widget{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "ns"}, Spec: apitest.WidgetSpec{Color: "red"}})
			return err
		}
		for _, n := range []string{"a", "b"} {
			if err := create(n); err != nil {
				t.Fatal(err)
			}
			settle()
		}
		if got := used(widgets); got != "2" {
			t.Errorf("used %s = %s, want 2", widgets, got)
		}
		if err := create("c"); !errors.Is(err, resourcequota.ErrExceeded) {
			t.Errorf("third widget: %v, want ErrExceeded", err)
		}
		if _, err := wr.Delete(e.ctx, "ns/a", ""); err != nil {
			t.Fatal(err)
		}
		settle()
		if got := used(widgets); got != "1" {
			t.Errorf("used %s after a delete = %s, want 1", widgets, got)
		}

		if _, err := api.Register[*doohickey](api.KindInfo{GroupVersionKind: doohickeyGVK, Resource: "doohickeys", Namespaced: true}); err != nil {
			t.Fatal(err)
		}
		// Until the quota is recounted, its usage of the new kind is
		// unknown, and admission refuses its objects (kube-apiserver's
		// "status unknown for quota").
		time.Sleep(resourcequota.DefaultResyncPeriod)
		synctest.Wait()
		if got := used(late); got != "0" {
			t.Errorf("used %s after a resync = %s, want 0", late, got)
		}
		dr, err := client.For[*doohickey](e.c)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := dr.Create(e.ctx, &doohickey{ObjectMeta: api.ObjectMeta{Name: "d", Namespace: "ns"}}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(resourcequota.DefaultResyncPeriod)
		synctest.Wait()
		if got := used(late); got != "1" {
			t.Errorf("used %s after a resync = %s, want 1", late, got)
		}
	})
}

// notServing is a client whose server does not serve Widgets (their CRD
// not installed on a real cluster).
type notServing struct{ client.Client }

func (n notServing) ResourceFor(gvk api.GroupVersionKind) (client.Untyped, error) {
	if gvk == apitest.WidgetGVK {
		return nil, client.ErrUnknownKind
	}
	return n.Client.ResourceFor(gvk)
}

// A registered kind the server does not serve is not counted, and does
// not keep the controller from starting (kcm counts what discovery
// lists): `ctrlkit manager` on a real cluster without the CRD.
func TestOwnKindNotServedIsSkipped(t *testing.T) {
	c, err := cluster.New(t.Context(), cluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := informer.NewFactory(informer.FactoryOptions{})
	defer f.Shutdown()
	if _, err := resourcequota.New(notServing{c}, f, resourcequota.Options{Logger: slog.New(slog.DiscardHandler)}); err != nil {
		t.Fatalf("New with a registered kind the server does not serve: %v", err)
	}
}

package fakeclient_test

import (
	"errors"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/api/apitest"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/client/fakeclient"
)

// The fake records the calls on a kind added with api.Register, through
// client.For and client.ForKind alike, under the kind's resource name,
// and its reactors fail them as they fail a built-in kind's.
func TestRecordsOwnKinds(t *testing.T) {
	fc := fakeclient.New(newCluster(t))
	widgets := resource[*apitest.Widget](t, fc)
	anyWidgets, err := client.ForKind(fc, apitest.WidgetGVK)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	w := &apitest.Widget{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "w"}, Spec: apitest.WidgetSpec{Color: "red"}}
	if _, err := widgets.Create(ctx, w); err != nil {
		t.Fatal(err)
	}
	obj, _, err := anyWidgets.Get(ctx, "default/w")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := obj.(*apitest.Widget); !ok {
		t.Errorf("ForKind's Get returned a %T", obj)
	}
	acts := fc.Actions()
	if len(acts) != 2 || acts[0].Verb != "create" || acts[0].Resource != "widgets" || acts[1].Verb != "get" || acts[1].Resource != "widgets" || acts[1].Name != "w" {
		t.Fatalf("actions = %+v, want create and get of widgets", acts)
	}
	if got, ok := acts[0].Object.(*apitest.Widget); !ok || got.Spec.Color != "red" {
		t.Errorf("recorded object = %#v", acts[0].Object)
	}

	boom := errors.New("boom")
	fc.PrependReactor("delete", "widgets", func(fakeclient.Action) (bool, error) { return true, boom })
	if _, err := anyWidgets.Delete(ctx, "default/w", ""); !errors.Is(err, boom) {
		t.Errorf("delete through ForKind: %v, want the reactor's error", err)
	}
	if _, _, err := widgets.Get(ctx, "default/w"); err != nil {
		t.Errorf("the reactor's delete reached the cluster: %v", err)
	}
}

package clienttest

import (
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/source"
)

// list lists what opts selects.
func list[T api.Object](t *testing.T, e *env, r client.Resource[T], opts client.SelectOptions) source.List[T] {
	t.Helper()
	lw, err := r.Select(opts)
	must(t, err)
	l, err := lw.List(e.ctx, source.ListOptions{})
	must(t, err)
	return l
}

// Select by namespace lists and watches one namespace only.
func testSelectNamespace(t *testing.T, e *env) {
	ns1, ns2 := e.namespace(t), e.namespace(t)
	cms := resource[*api.ConfigMap](t, e)
	for _, key := range [][2]string{{ns1, "a"}, {ns1, "b"}, {ns2, "a"}} {
		_, err := cms.Create(e.ctx, ConfigMap(key[0], key[1], nil))
		must(t, err)
	}
	l := list(t, e, cms, client.SelectOptions{Namespace: ns1})
	if got := names(l.Items); got != "a,b" {
		t.Errorf("namespace %s lists %s", ns1, got)
	}
	for _, o := range l.Items {
		if o.Namespace != ns1 {
			t.Errorf("listed %s/%s", o.Namespace, o.Name)
		}
	}
	events := watch(t, e, cms, client.SelectOptions{Namespace: ns1}, l.ResourceVersion)
	_, err := cms.Create(e.ctx, ConfigMap(ns2, "c", nil)) // another namespace: not seen
	must(t, err)
	_, err = cms.Create(e.ctx, ConfigMap(ns1, "d", nil))
	must(t, err)
	ev := nextChange(t, e, events)
	expect(t, ev, source.Added, "d")
	if ev.Object.Namespace != ns1 {
		t.Errorf("event from namespace %s", ev.Object.Namespace)
	}
}

// A label selector selects by labels, with set-based terms.
func testSelectLabels(t *testing.T, e *env) {
	ns := e.namespace(t)
	cms := resource[*api.ConfigMap](t, e)
	for name, app := range map[string]string{"a": "web", "b": "db", "c": "cache"} {
		cm := ConfigMap(ns, name, nil)
		cm.Labels = map[string]string{"app": app}
		_, err := cms.Create(e.ctx, cm)
		must(t, err)
	}
	_, err := cms.Create(e.ctx, ConfigMap(ns, "d", nil))
	must(t, err)
	for sel, want := range map[string]string{
		"app=web":           "a",
		"app!=web":          "b,c,d",
		"app in (db,cache)": "b,c",
		"app":               "a,b,c",
		"!app":              "d",
		"":                  "a,b,c,d",
	} {
		if got := names(list(t, e, cms, client.SelectOptions{Namespace: ns, LabelSelector: sel}).Items); got != want {
			t.Errorf("%q selects %s, want %s", sel, got, want)
		}
	}
}

// Every kind can be selected by metadata.name.
func testSelectFieldName(t *testing.T, e *env) {
	ns := e.namespace(t)
	cms := resource[*api.ConfigMap](t, e)
	for _, name := range []string{"a", "b", "c"} {
		_, err := cms.Create(e.ctx, ConfigMap(ns, name, nil))
		must(t, err)
	}
	for sel, want := range map[string]string{
		"metadata.name=b":                     "b",
		"metadata.name==b":                    "b",
		"metadata.name!=b":                    "a,c",
		"metadata.name!=b,metadata.name!=c":   "a",
		"metadata.namespace=" + ns:            "a,b,c",
		"metadata.namespace=" + ns + "-other": "",
	} {
		if got := names(list(t, e, cms, client.SelectOptions{Namespace: ns, FieldSelector: sel}).Items); got != want {
			t.Errorf("%q selects %s, want %s", sel, got, want)
		}
	}
}

// Pods can be selected by spec.nodeName, as the kubelet watches its own.
func testSelectFieldNodeName(t *testing.T, e *env) {
	ns := e.namespace(t)
	pods := resource[*api.Pod](t, e)
	binder, err := client.BinderFor(e.c)
	must(t, err)
	for _, name := range []string{"a", "b", "c"} {
		_, err := pods.Create(e.ctx, Pod(ns, name, nil))
		must(t, err)
	}
	_, err = binder.Bind(e.ctx, ns, "a", "clienttest-n1")
	must(t, err)
	_, err = binder.Bind(e.ctx, ns, "b", "clienttest-n2")
	must(t, err)
	for sel, want := range map[string]string{
		"spec.nodeName=clienttest-n1":  "a",
		"spec.nodeName=":               "c",
		"spec.nodeName!=":              "a,b",
		"spec.nodeName!=clienttest-n1": "b,c",
	} {
		if got := names(list(t, e, pods, client.SelectOptions{Namespace: ns, FieldSelector: sel}).Items); got != want {
			t.Errorf("%q selects %s, want %s", sel, got, want)
		}
	}
	// Binding c moves it into the selection of its node.
	l := list(t, e, pods, client.SelectOptions{Namespace: ns, FieldSelector: "spec.nodeName=clienttest-n1"})
	events := watch(t, e, pods, client.SelectOptions{Namespace: ns, FieldSelector: "spec.nodeName=clienttest-n1"}, l.ResourceVersion)
	_, err = binder.Bind(e.ctx, ns, "c", "clienttest-n1")
	must(t, err)
	ev := nextChange(t, e, events)
	expect(t, ev, source.Added, "c")
	if ev.Object.Spec.NodeName != "clienttest-n1" {
		t.Errorf("event with nodeName %q", ev.Object.Spec.NodeName)
	}
}

// A watch through a selector sees an object that starts matching as
// Added and one that stops matching as Deleted, and nothing of an
// object that matches neither before nor after a write.
func testSelectLeaving(t *testing.T, e *env) {
	ns := e.namespace(t)
	cms := resource[*api.ConfigMap](t, e)
	for name, app := range map[string]string{"a": "web", "b": "db"} {
		cm := ConfigMap(ns, name, nil)
		cm.Labels = map[string]string{"app": app}
		_, err := cms.Create(e.ctx, cm)
		must(t, err)
	}
	opts := client.SelectOptions{Namespace: ns, LabelSelector: "app=web"}
	l := list(t, e, cms, opts)
	if got := names(l.Items); got != "a" {
		t.Fatalf("listed %s", got)
	}
	events := watch(t, e, cms, opts, l.ResourceVersion)
	relabel := func(name, app string) {
		t.Helper()
		cm, _, err := cms.Get(e.ctx, ns+"/"+name)
		must(t, err)
		cm.Labels["app"] = app
		_, err = cms.Update(e.ctx, cm, "")
		must(t, err)
	}
	relabel("b", "web") // starts matching
	expect(t, nextChange(t, e, events), source.Added, "b")
	relabel("a", "db") // stops matching
	ev := nextChange(t, e, events)
	expect(t, ev, source.Deleted, "a")
	relabel("a", "cache")                                                                // matched neither before nor after
	_, err := cms.Patch(e.ctx, ns+"/b", client.MergePatch, []byte(`{"data":{"k":"v"}}`)) // proves the above sent nothing
	must(t, err)
	ev = nextChange(t, e, events)
	expect(t, ev, source.Modified, "b")
	if ev.Object.Data["k"] != "v" {
		t.Errorf("modified event without the change: %v", ev.Object.Data)
	}
}

// A watch from a List's resourceVersion sees the writes after the list,
// and none of those before.
func testWatchFromList(t *testing.T, e *env) {
	ns := e.namespace(t)
	cms := resource[*api.ConfigMap](t, e)
	cm := ConfigMap(ns, "before", nil)
	_, err := cms.Create(e.ctx, cm)
	must(t, err)
	cm.Data = map[string]string{"k": "v"}
	_, err = cms.Update(e.ctx, cm, "")
	must(t, err)
	l := list(t, e, cms, client.SelectOptions{Namespace: ns})
	if got := names(l.Items); got != "before" || l.ResourceVersion == "" {
		t.Fatalf("listed %s at %q", got, l.ResourceVersion)
	}
	_, err = cms.Create(e.ctx, ConfigMap(ns, "after", nil))
	must(t, err)
	events := watch(t, e, cms, client.SelectOptions{Namespace: ns}, l.ResourceVersion)
	_, err = cms.Delete(e.ctx, ns+"/before", "")
	must(t, err)
	expect(t, nextChange(t, e, events), source.Added, "after")
	expect(t, nextChange(t, e, events), source.Deleted, "before")
}

// A malformed selector, or a field the kind cannot be selected by, is
// IsBadRequest (from Select, or from the List of what it returns).
func testSelectBadRequest(t *testing.T, e *env) {
	ns := e.namespace(t)
	cms := resource[*api.ConfigMap](t, e)
	pods := resource[*api.Pod](t, e)
	bad := func(what string, err error, lw func() error) {
		t.Helper()
		if err == nil {
			err = lw()
		}
		wantErr(t, what, err, "IsBadRequest")
	}
	for what, opts := range map[string]client.SelectOptions{
		"an unsupported field":       {Namespace: ns, FieldSelector: "spec.color=red"},
		"a pod field on config maps": {Namespace: ns, FieldSelector: "spec.nodeName=n1"},
		"a malformed field selector": {Namespace: ns, FieldSelector: "metadata.name"},
		"a malformed label selector": {Namespace: ns, LabelSelector: "app in (x"},
		"an invalid label value":     {Namespace: ns, LabelSelector: "app=-bad-"},
	} {
		lw, err := cms.Select(opts)
		bad(what, err, func() error {
			_, err := lw.List(e.ctx, source.ListOptions{})
			return err
		})
	}
	lw, err := pods.Select(client.SelectOptions{Namespace: ns, FieldSelector: "spec.color=red"})
	bad("an unsupported pod field", err, func() error {
		_, err := lw.List(e.ctx, source.ListOptions{})
		return err
	})
}

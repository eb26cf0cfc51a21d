package api_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/api/apitest"
)

var sprocketGVK = api.GroupVersionKind{Group: "register.test.ctrlkit.dev", Version: "v1", Kind: "Sprocket"}

type sprocket struct {
	api.TypeMeta   `json:",inline"`
	api.ObjectMeta `json:"metadata"`
	Spec           struct {
		Teeth int `json:"teeth"`
	} `json:"spec"`
}

func (*sprocket) GroupVersionKind() api.GroupVersionKind { return sprocketGVK }
func (s *sprocket) DeepCopyObject() api.Object           { return api.DeepCopyOf(s) }

// wrongGVK's GroupVersionKind does not match its registration.
type wrongGVK struct{ sprocket }

func (*wrongGVK) GroupVersionKind() api.GroupVersionKind { return api.GroupVersionKind{Kind: "Other"} }
func (w *wrongGVK) DeepCopyObject() api.Object           { return api.DeepCopyOf(w) }

// widgetTwin claims Widget's schema.
type widgetTwin struct{ sprocket }

func (*widgetTwin) GroupVersionKind() api.GroupVersionKind { return apitest.WidgetGVK }
func (w *widgetTwin) DeepCopyObject() api.Object           { return api.DeepCopyOf(w) }

// noMeta is not a kind: no ObjectMeta.
type noMeta struct {
	api.TypeMeta `json:",inline"`
	meta         api.ObjectMeta
}

func (n *noMeta) GetObjectMeta() *api.ObjectMeta       { return &n.meta }
func (n *noMeta) GetResourceVersion() string           { return n.meta.ResourceVersion }
func (n *noMeta) SetResourceVersion(rv string)         { n.meta.ResourceVersion = rv }
func (*noMeta) GroupVersionKind() api.GroupVersionKind { return sprocketGVK }
func (n *noMeta) DeepCopyObject() api.Object           { c := *n; return &c }

func sprocketInfo() api.KindInfo {
	return api.KindInfo{GroupVersionKind: sprocketGVK, Resource: "sprockets", Namespaced: true, ShortNames: []string{"spr"}}
}

func TestRegisterServesTheKind(t *testing.T) {
	info, err := api.Register[*sprocket](sprocketInfo())
	if err != nil {
		t.Fatal(err)
	}
	if info.GoType() != reflect.TypeFor[*sprocket]() || info.Resource != "sprockets" {
		t.Fatalf("Register returned %+v", info)
	}
	// Again with the same schema: the first registration, no error.
	if _, err := api.Register[*sprocket](sprocketInfo()); err != nil {
		t.Fatalf("registering the same kind again: %v", err)
	}
	if got, ok := api.InfoFor[*sprocket](); !ok || got.GroupVersionKind != sprocketGVK {
		t.Fatalf("InfoFor = %+v, %v", got, ok)
	}
	if got, ok := api.InfoOfResource(sprocketGVK.Group, "sprockets"); !ok || got.Kind != "Sprocket" {
		t.Fatalf("InfoOfResource = %+v, %v", got, ok)
	}
	if api.IsBuiltin(sprocketGVK) || !api.IsBuiltin(api.GroupVersionKind{Version: "v1", Kind: "Pod"}) {
		t.Fatal("IsBuiltin is wrong")
	}
	reg := api.Registered()
	if reg[len(api.Kinds())-1].Kind != api.Kinds()[len(api.Kinds())-1].Kind {
		t.Fatal("Registered does not list the built-in kinds first")
	}
	found := false
	for _, k := range reg {
		found = found || k.GroupVersionKind == sprocketGVK
	}
	if !found {
		t.Fatal("Registered does not list the registered kind")
	}
	objs, err := api.Decode([]byte(`
apiVersion: register.test.ctrlkit.dev/v1
kind: Sprocket
metadata: {name: s, namespace: default}
spec: {teeth: 12}
---
apiVersion: register.test.ctrlkit.dev/v1
kind: SprocketList
items:
- metadata: {name: t}
  spec: {teeth: 3}
`), api.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 || objs[0].(*sprocket).Spec.Teeth != 12 || objs[1].(*sprocket).Spec.Teeth != 3 {
		t.Fatalf("decoded %#v", objs)
	}
	_, err = api.Decode([]byte("apiVersion: register.test.ctrlkit.dev/v1\nkind: Sprocket\nmetadata: {name: s}\nspec: {teeth: 1, color: red}\n"), api.DecodeOptions{})
	if !errors.Is(err, api.ErrUnknownField) {
		t.Fatalf("an unknown field of a registered kind decoded: %v", err)
	}
	_, err = api.Decode([]byte("apiVersion: register.test.ctrlkit.dev/v2\nkind: Sprocket\nmetadata: {name: s}\n"), api.DecodeOptions{})
	if !errors.Is(err, api.ErrUnsupportedVersion) {
		t.Fatalf("another version of a registered kind: %v", err)
	}
}

func TestRegisterRefusesConflicts(t *testing.T) {
	if _, err := api.Register[*sprocket](sprocketInfo()); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		info api.KindInfo
		reg  func(api.KindInfo) error
	}{
		"the same type under another resource": {
			api.KindInfo{GroupVersionKind: sprocketGVK, Resource: "sprocketz"},
			func(i api.KindInfo) error { _, err := api.Register[*sprocket](i); return err }},
		"another type under a taken kind": {
			api.KindInfo{GroupVersionKind: apitest.WidgetGVK, Resource: "widgets2"},
			func(i api.KindInfo) error { _, err := api.Register[*widgetTwin](i); return err }},
		"another type under a taken resource": {
			api.KindInfo{GroupVersionKind: apitest.WidgetGVK, Resource: "widgets"},
			func(i api.KindInfo) error { _, err := api.Register[*widgetTwin](i); return err }},
	} {
		if err := tc.reg(tc.info); !errors.Is(err, api.ErrKindConflict) {
			t.Errorf("%s: err = %v, want ErrKindConflict", name, err)
		}
	}
}

func TestRegisterRefusesMalformed(t *testing.T) {
	bad := func(mut func(*api.KindInfo)) api.KindInfo {
		i := sprocketInfo()
		i.GroupVersionKind.Group = "malformed.test.ctrlkit.dev"
		mut(&i)
		return i
	}
	for name, info := range map[string]api.KindInfo{
		"a group without a dot":    bad(func(i *api.KindInfo) { i.Group = "widgets" }),
		"a built-in group":         bad(func(i *api.KindInfo) { i.Group = "storage.k8s.io" }),
		"the core group":           bad(func(i *api.KindInfo) { i.Group = "" }),
		"a bad version":            bad(func(i *api.KindInfo) { i.Version = "V1" }),
		"a kind ending in List":    bad(func(i *api.KindInfo) { i.Kind = "SprocketList" }),
		"an upper-case resource":   bad(func(i *api.KindInfo) { i.Resource = "Sprockets" }),
		"a bad short name":         bad(func(i *api.KindInfo) { i.ShortNames = []string{"s_p"} }),
		"scale without its fields": bad(func(i *api.KindInfo) { i.Scale = true }),
		"status without the field": bad(func(i *api.KindInfo) { i.Status = true }),
		"columns without cells":    bad(func(i *api.KindInfo) { i.Columns = []api.Column{{Name: "Name"}} }),
		"an old version elsewhere": bad(func(i *api.KindInfo) { i.OldVersions = []string{"apps/v1"} }),
	} {
		if _, err := api.Register[*sprocket](info); !errors.Is(err, api.ErrInvalidKind) {
			t.Errorf("%s: err = %v, want ErrInvalidKind", name, err)
		}
	}
	if _, err := api.Register[*wrongGVK](sprocketInfo()); !errors.Is(err, api.ErrInvalidKind) || !strings.Contains(err.Error(), "GroupVersionKind method") {
		t.Errorf("a type whose GroupVersionKind disagrees: %v", err)
	}
	if _, err := api.Register[*noMeta](sprocketInfo()); !errors.Is(err, api.ErrInvalidKind) || !strings.Contains(err.Error(), "ObjectMeta") {
		t.Errorf("a type without ObjectMeta: %v", err)
	}
}

func TestDeepCopyOf(t *testing.T) {
	three := int32(3)
	w := &apitest.Widget{ObjectMeta: api.ObjectMeta{Name: "a", Labels: map[string]string{"k": "v"}},
		Spec:   apitest.WidgetSpec{Replicas: &three, Color: "red", Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "a"}}},
		Status: apitest.WidgetStatus{Conditions: []api.Condition{{Type: "Ready"}}}}
	c := api.DeepCopyOf(w)
	if !reflect.DeepEqual(c, w) || c == w {
		t.Fatalf("copy %+v differs from %+v", c, w)
	}
	*c.Spec.Replicas = 4
	c.Labels["k"] = "x"
	c.Spec.Selector.MatchLabels["app"] = "b"
	c.Status.Conditions[0].Type = "Other"
	if *w.Spec.Replicas != 3 || w.Labels["k"] != "v" || w.Spec.Selector.MatchLabels["app"] != "a" || w.Status.Conditions[0].Type != "Ready" {
		t.Fatalf("changing the copy changed the original: %+v", w)
	}
}

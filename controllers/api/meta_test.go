package api

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/source"
)

// The kinds satisfy ctrlkit's versioning contracts through their pointers.
var (
	_ source.Versioned     = (*Pod)(nil)
	_ source.VersionSetter = (*Pod)(nil)
	_ Object               = (*Event)(nil)
)

func TestKeys(t *testing.T) {
	pod := &Pod{ObjectMeta: ObjectMeta{Namespace: "demo", Name: "p"}}
	node := &Node{ObjectMeta: ObjectMeta{Name: "n"}}
	if Key(pod) != "demo/p" || Key(node) != "n" || NamespacedKey("demo", "p") != "demo/p" || NamespacedKey("", "n") != "n" {
		t.Errorf("keys %q %q", Key(pod), Key(node))
	}
	for _, c := range []struct{ key, ns, name string }{{"demo/p", "demo", "p"}, {"n", "", "n"}} {
		ns, name, err := SplitKey(c.key)
		if err != nil || ns != c.ns || name != c.name {
			t.Errorf("SplitKey(%q) = %q, %q, %v", c.key, ns, name, err)
		}
	}
	if _, _, err := SplitKey("a/b/c"); err == nil {
		t.Error("SplitKey(a/b/c) succeeded")
	}
}

func TestResourceVersionAndOwners(t *testing.T) {
	var obj Object = &Deployment{}
	obj.SetResourceVersion("42")
	if obj.GetResourceVersion() != "42" || obj.GetObjectMeta().ResourceVersion != "42" {
		t.Error("resourceVersion not stored")
	}
	if err := source.StampResourceVersion(obj, "43"); err != nil || obj.GetResourceVersion() != "43" {
		t.Errorf("StampResourceVersion: %v", err)
	}
	d := &Deployment{ObjectMeta: ObjectMeta{Name: "d", UID: "u1"}}
	ref := NewControllerRef(d)
	if ref.APIVersion != "apps/v1" || ref.Kind != "Deployment" || ref.Name != "d" || ref.UID != "u1" || !*ref.Controller || !*ref.BlockOwnerDeletion {
		t.Errorf("controller ref %+v", ref)
	}
	rs := &ReplicaSet{ObjectMeta: ObjectMeta{OwnerReferences: []OwnerReference{{Kind: "Other", UID: "x"}, ref}}}
	if got := rs.ControllerRef(); got == nil || got.UID != "u1" || !IsControlledBy(rs, d) {
		t.Errorf("ControllerRef = %+v", got)
	}
	if IsControlledBy(rs, &Deployment{ObjectMeta: ObjectMeta{UID: "u2"}}) || (&ObjectMeta{}).ControllerRef() != nil {
		t.Error("IsControlledBy without a matching controller")
	}
}

func TestKindsRegistry(t *testing.T) {
	if len(Kinds()) != 40 {
		t.Errorf("%d kinds", len(Kinds()))
	}
	for _, gvk := range Kinds() {
		obj, ok := New(gvk.Kind)
		if !ok || obj.GroupVersionKind() != gvk {
			t.Errorf("New(%s) = %T %v", gvk.Kind, obj, ok)
			continue
		}
		if tm := obj.(typeMetaHolder).typeMeta(); tm.APIVersion != gvk.APIVersion() || tm.Kind != gvk.Kind || tm.GroupVersionKind() != gvk {
			t.Errorf("%s: TypeMeta %+v", gvk.Kind, *tm)
		}
	}
	if _, ok := New("Frob"); ok {
		t.Error("New(Frob)")
	}
	if !IsNamespaced("Pod") || IsNamespaced("Node") || IsNamespaced("StorageClass") || IsNamespaced("Frob") {
		t.Error("IsNamespaced")
	}
	g := GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	if g.String() != "apps/v1, Kind=Deployment" || (GroupVersionKind{Version: "v1", Kind: "Pod"}).APIVersion() != "v1" {
		t.Errorf("GroupVersionKind strings: %s", g)
	}
}

func TestTimeJSON(t *testing.T) {
	type w struct {
		T  Time       `json:"t,omitzero"`
		P  *Time      `json:"p,omitempty"`
		M  MicroTime  `json:"m,omitzero"`
		MP *MicroTime `json:"mp,omitempty"`
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 678901234, time.FixedZone("X", 3600))
	b, err := json.Marshal(w{T: NewTime(at), M: NewMicroTime(at)})
	if err != nil || string(b) != `{"t":"2026-01-02T02:04:05Z","m":"2026-01-02T02:04:05.678901Z"}` {
		t.Fatalf("%s %v", b, err)
	}
	if b, _ := json.Marshal(w{}); string(b) != `{}` {
		t.Errorf("zero times: %s", b)
	}
	var got w
	if err := json.Unmarshal([]byte(`{"t":"2026-01-02T03:04:05+01:00","p":null,"m":"2026-01-02T02:04:05.5Z"}`), &got); err != nil {
		t.Fatal(err)
	}
	if !got.T.Equal(at.Truncate(time.Second)) || got.T.Location() != time.UTC || got.P != nil || got.M.Nanosecond() != 5e8 {
		t.Errorf("%+v", got)
	}
	for _, bad := range []string{`{"t":"yesterday"}`, `{"t":5}`, `{"m":"2026-13-01T00:00:00Z"}`} {
		if err := json.Unmarshal([]byte(bad), &got); err == nil {
			t.Errorf("%s decoded", bad)
		}
	}
	if b, _ := (Time{}).MarshalJSON(); string(b) != "null" {
		t.Errorf("zero Time marshals as %s", b)
	}
}

func TestIntOrString(t *testing.T) {
	for _, c := range []struct {
		in   string
		want IntOrString
	}{{`8080`, FromInt32(8080)}, {`"http"`, FromString("http")}, {`"25%"`, FromString("25%")}} {
		var v IntOrString
		if err := json.Unmarshal([]byte(c.in), &v); err != nil || v != c.want {
			t.Errorf("%s: %+v, %v", c.in, v, err)
		}
		if b, _ := json.Marshal(v); string(b) != c.in {
			t.Errorf("%s re-encoded as %s", c.in, b)
		}
	}
	var v IntOrString
	if err := json.Unmarshal([]byte(`1.5`), &v); err == nil {
		t.Error("1.5 decoded")
	}
	if err := json.Unmarshal([]byte(`4294967296`), &v); err == nil {
		t.Error("int32 overflow decoded")
	}
	if FromInt32(3).String() != "3" || FromString("x").String() != "x" || FromString("12").IntValue() != 12 || FromInt32(5).IntValue() != 5 {
		t.Error("String/IntValue")
	}
}

// The first eight cases are from k8s.io/apimachinery/pkg/util/intstr/intstr_test.go
// TestGetIntFromIntOrPercent (GetScaledValueFromIntOrPercent); the rest are ours.
func TestIntOrStringScaledValue(t *testing.T) {
	for _, c := range []struct {
		in      IntOrString
		total   int
		roundUp bool
		want    int
		wantErr bool
	}{
		{FromInt32(123), 0, false, 123, false},
		{FromString("90%"), 100, true, 90, false},
		{FromString("90%"), 95, true, 86, false},
		{FromString("90%"), 95, false, 85, false},
		{FromString("%"), 100, false, 0, true},
		{FromString("90#"), 100, false, 0, true},
		{FromString("#%"), 100, false, 0, true},
		{FromString("90"), 100, false, 0, true},
		{FromString("25%"), 10, true, 3, false},
		{FromString("25%"), 10, false, 2, false},
		{FromString("0%"), 10, true, 0, false},
		{FromString("100%"), 7, false, 7, false},
	} {
		got, err := c.in.ScaledValue(c.total, c.roundUp)
		if (err != nil) != c.wantErr || (err == nil && got != c.want) {
			t.Errorf("%v of %d (up %t) = %d, %v; want %d", c.in, c.total, c.roundUp, got, err, c.want)
		}
	}
}

func TestPodHelpers(t *testing.T) {
	p := &Pod{}
	if IsPodReady(p) {
		t.Error("pod without conditions is ready")
	}
	p.Status.Conditions = []PodCondition{{Type: PodScheduled, Status: ConditionTrue}, {Type: PodReady, Status: ConditionTrue}}
	if !IsPodReady(p) {
		t.Error("ready pod is not ready")
	}
	n := &Node{Status: NodeStatus{Conditions: []NodeCondition{{Type: NodeReady, Status: ConditionFalse}}}}
	if c, ok := n.Status.GetCondition(NodeReady); !ok || c.Status != ConditionFalse {
		t.Error("node GetCondition")
	}
	if _, ok := n.Status.GetCondition(NodeDiskPressure); ok {
		t.Error("absent condition found")
	}
}

package apiextensions

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// cvJSON decodes s into the object model of this package: integers as
// int64, other numbers as float64.
func cvJSON(t testing.TB, s string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return cvNumbers(v)
}

func cvNumbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case map[string]any:
		for k, x := range v {
			v[k] = cvNumbers(x)
		}
	case []any:
		for i, x := range v {
			v[i] = cvNumbers(x)
		}
	}
	return v
}

func cvObject(t testing.TB, s string) map[string]any {
	t.Helper()
	m, ok := cvJSON(t, s).(map[string]any)
	if !ok {
		t.Fatalf("test JSON is not an object: %s", s)
	}
	return m
}

const nodesJSON = `{
  "kind": "List",
  "items": [
    {"kind": "None", "metadata": {"name": "127.0.0.1", "labels": {"kubernetes.io/hostname": "127.0.0.1"}},
     "status": {"capacity": {"cpu": "4"}, "ready": true, "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.1"}]}},
    {"kind": "None", "metadata": {"name": "127.0.0.2", "labels": {"kubernetes.io/hostname": "127.0.0.2"}},
     "status": {"capacity": {"cpu": "8"}, "ready": false, "addresses": [
       {"type": "LegacyHostIP", "address": "127.0.0.2"}, {"type": "another", "address": "127.0.0.3"}]}}
  ],
  "users": [{"name": "myself", "user": {}}, {"name": "e2e", "user": {"username": "admin", "password": "secret"}}],
  "points": [
    {"id": "i1", "x": 4, "y": -5}, {"id": "i2", "x": -2, "y": -5, "z": 1}, {"id": "i3", "x": 8, "y": 3},
    {"id": "i4", "x": -6, "y": -1}, {"id": "i5", "x": 0, "y": 2, "z": 1}, {"id": "i6", "x": 1, "y": 4},
    {"id": "i7", "x": null, "y": 4}
  ],
  "ints": [1, 2, 3, 4],
  "floats": [1.0, 2.2, 3.3, 4.0],
  "bools": [true, false, true, false],
  "mixed": [true, "one", 1, 1.1],
  "labels": {"web/html": 15, "k8s-app": 20},
  "containers": [{"name": "fake0"}, {"name": "fake1"}, {"name": "fake2"}, {"name": "fake3"}],
  "nullField": null
}`

// Cases ported from k8s.io/client-go/util/jsonpath/jsonpath_test.go
// (TestKubernetes, TestJSONInput, TestTypesInput, TestNegativeIndex,
// TestStructInput), as values rather than printed text.
func TestJSONPathFind(t *testing.T) {
	obj := cvObject(t, nodesJSON)
	tests := []struct {
		path string
		want string // the JSON of the values found
	}{
		{`.items[*].status.addresses[*].address`, `["127.0.0.1","127.0.0.2","127.0.0.3"]`},
		{`{.items[*].metadata.name}`, `["127.0.0.1","127.0.0.2"]`},
		{`.items[*]['metadata.name', 'status.capacity']`, `["127.0.0.1","127.0.0.2",{"cpu":"4"},{"cpu":"8"}]`},
		{`.users[?(@.name=="e2e")].user.password`, `["secret"]`},
		{`.items[0].metadata.labels.kubernetes\.io/hostname`, `["127.0.0.1"]`},
		{`.items[?(@.metadata.labels.kubernetes\.io/hostname=="127.0.0.1")].kind`, `["None"]`},
		{`.items[?(@..ready==true)].metadata.name`, `["127.0.0.1"]`},
		{`.points[?(@.z)].id`, `["i2","i5"]`},
		{`.points[0]['id']`, `["i1"]`},
		{`.points[-1]['x']`, `[null]`},
		{`.points[?(@.y>0)].id`, `["i3","i5","i6","i7"]`},
		{`.points[?(@.y>=3)].id`, `["i3","i6","i7"]`},
		{`.points[?(@.y<=-5)].id`, `["i1","i2"]`},
		{`.points[?(@.y != 4)].id`, `["i1","i2","i3","i4","i5"]`},
		{`.points[?(@.id < "i2")].id`, `["i1"]`},
		{`.ints`, `[[1,2,3,4]]`},
		{`.ints[0]`, `[1]`},
		{`.ints[-2]`, `[3]`},
		{`.ints[0:2]`, `[1,2]`},
		{`.ints[:2]`, `[1,2]`},
		{`.ints[:4:2]`, `[1,3]`},
		{`.ints[1,3]`, `[2,4]`},
		{`.ints[?(@<3)]`, `[1,2]`},
		{`.floats[-2]`, `[3.3]`},
		{`.floats[?(@ > 2.5)]`, `[3.3,4]`},
		{`.bools[?(@==false)]`, `[false,false]`},
		{`.mixed[*]`, `[true,"one",1,1.1]`},
		{`$.labels.web/html`, `[15]`},
		{`.labels.k8s-app`, `[20]`},
		{`.labels['k8s-app']`, `[20]`},
		{`.labels.*`, `[20,15]`}, // sorted keys: k8s-app, web/html
		{`.containers[0].name`, `["fake0"]`},
		{`.containers[0:0].name`, `[]`},
		{`.containers[0:-1].name`, `["fake0","fake1","fake2"]`},
		{`.containers[-1].name`, `["fake3"]`},
		{`.containers[-1:].name`, `["fake3"]`},
		{`.containers[-2].name`, `["fake2"]`},
		{`.containers[-2:].name`, `["fake2","fake3"]`},
		{`.containers[-4].name`, `["fake0"]`},
		{`.containers[1:4:2].name`, `["fake1","fake3"]`},
		{`..address`, `["127.0.0.1","127.0.0.2","127.0.0.3"]`},
		{`...address`, `["127.0.0.1","127.0.0.2","127.0.0.3"]`},
		{`.users..username`, `["admin"]`},
		{`.hello`, `[]`},
		// A string literal is client-go's text node, one value whatever
		// the input; a number or boolean literal is one value per input.
		{`.hello "q"`, `["q"]`},
		{`.hello"q"`, `[]`}, // a quote does not end a key
		{`.ints[*]"q"`, `["q"]`},
		{`.ints[*]7`, `[7,7,7,7]`},
		{`.ints[*]true`, `[true,true,true,true]`},
		{`.nullField`, `[null]`},
		{`.nullField.x`, `[]`},
		{`.kind.x`, `[]`},
		// Evaluation errors select nothing.
		{`.containers[-1:0].name`, `[]`}, // starting index greater than ending index
		{`.containers[4].name`, `[]`},    // index out of bounds
		{`.labels[0]`, `[]`},             // not a list
		{`.labels[?(@.x==1)]`, `[]`},     // not a list to filter
		{`.points[?(@.x=="a")]`, `[]`},   // incompatible types for comparison
		{`.floats[?(@==1)]`, `[]`},       // float against integer: incompatible
		{`.bools[?(@<true)]`, `[]`},      // booleans do not order
		{`.points[?(@.x<>10)]`, `[]`},    // unrecognized filter operator
		{`.ints[::0]`, `[]`},             // step must be > 0
		{`hello`, `[]`},                  // unrecognized identifier
		{`.nullField[?(@.a)]`, `[]`},     // null cannot be filtered
		{`.mixed[?(@.a)]`, `[]`},         // exists over scalars: none
		{`.points[?(@.x==4)].id`, `[]`},  // i7's null x: invalid type for comparison
	}
	for _, tt := range tests {
		p, err := ParseJSONPath(tt.path)
		if err != nil {
			t.Errorf("ParseJSONPath(%s): %v", tt.path, err)
			continue
		}
		got, err := json.Marshal(cvOrEmpty(p.Find(obj)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, []byte(tt.want)) {
			t.Errorf("%s: found %s, want %s", tt.path, got, tt.want)
		}
	}
}

func cvOrEmpty(v []any) []any {
	if v == nil {
		return []any{}
	}
	return v
}

// Syntax errors carry client-go's messages (ported from
// k8s.io/client-go/util/jsonpath/parser_test.go TestFailParser).
func TestParseJSONPathErrors(t *testing.T) {
	tests := []struct{ path, msg string }{
		{"{.hello", "unclosed action"},
		{"{*}", "unrecognized character in action: U+002A '*'"},
		{"{+12.3.0}", "cannot parse number +12.3.0"},
		{"{[1}", "unterminated array"},
		{"{[?(.price]}", "unterminated filter"},
		{"{........}", "invalid multiple recursive descent"},
		{".spec[a]", "invalid array index a"},
		{".spec[?(@.a==1)", "unclosed array expect ]"},
		{`.spec["abc]`, `invalid array index "abc`},
		{`.spec[?(@.a=="x)]`, "unterminated filter"},
		{`"abc`, "unterminated quoted string"},
		{".spec !", "unrecognized character in action: U+0021 '!'"},
		{".a\n.b", "unclosed action"},
	}
	for _, tt := range tests {
		_, err := ParseJSONPath(tt.path)
		if err == nil {
			t.Errorf("ParseJSONPath(%q) = nil error, want %q", tt.path, tt.msg)
			continue
		}
		if !strings.HasSuffix(err.Error(), ": "+tt.msg) {
			t.Errorf("ParseJSONPath(%q) = %q, want it to end in %q", tt.path, err, tt.msg)
		}
	}
}

// A filter's quoted literal may hold a parenthesis, and literals of
// every kind compare (client-go's parseFilter pairs quotes).
func TestJSONPathFilterLiterals(t *testing.T) {
	obj := cvObject(t, `{"c": [{"t": "a)b", "n": 1, "f": 1.5, "b": true}, {"t": "x", "n": 2, "f": 2.5, "b": false}]}`)
	for path, want := range map[string][]any{
		`.c[?(@.t=="a)b")].n`:  {int64(1)},
		`.c[?(@.t=='x')].n`:    {int64(2)},
		`.c[?(@.n==2)].t`:      {"x"},
		`.c[?(@.n>-1)].t`:      {"a)b", "x"},
		`.c[?(@.f==2.5)].t`:    {"x"},
		`.c[?(@.b==true)].t`:   {"a)b"},
		`.c[?(@.b!=true)].t`:   {"x"},
		`.c[?(@.n==@.n)].t`:    {"a)b", "x"},
		`.c[?(@.t=="\x61)b")]`: {map[string]any{"t": "a)b", "n": int64(1), "f": 1.5, "b": true}},
	} {
		p, err := ParseJSONPath(path)
		if err != nil {
			t.Errorf("ParseJSONPath(%s): %v", path, err)
			continue
		}
		if got := p.Find(obj); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: found %#v, want %#v", path, got, want)
		}
	}
}

func TestReadWritePath(t *testing.T) {
	obj := cvObject(t, `{"spec": {"replicas": 3, "n": null}, "status": "flat"}`)
	for _, tt := range []struct {
		path string
		want any
		ok   bool
	}{
		{".spec.replicas", int64(3), true},
		{".spec.n", nil, true},
		{".spec.missing", nil, false},
		{".status.replicas", nil, false},
		{"spec.replicas", nil, false},
		{".spec..replicas", nil, false},
		{"", nil, false},
	} {
		got, ok := ReadPath(obj, tt.path)
		if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ReadPath(%q) = %v, %v; want %v, %v", tt.path, got, ok, tt.want, tt.ok)
		}
	}
	if got, ok := ReadPath(obj, "."); !ok || !reflect.DeepEqual(got, obj) {
		t.Errorf("ReadPath(.) = %v, %v; want the object", got, ok)
	}

	if err := WritePath(obj, ".spec.replicas", int64(5)); err != nil {
		t.Fatal(err)
	}
	if err := WritePath(obj, ".spec.n.deep", "x"); err != nil { // null is replaced
		t.Fatal(err)
	}
	if err := WritePath(obj, ".status2.a.b", true); err != nil {
		t.Fatal(err)
	}
	want := cvObject(t, `{"spec": {"replicas": 5, "n": {"deep": "x"}}, "status": "flat", "status2": {"a": {"b": true}}}`)
	if !reflect.DeepEqual(obj, want) {
		t.Errorf("after writes: %v, want %v", obj, want)
	}
	for _, bad := range []string{".status.replicas", "spec", ".", ".a..b", ""} {
		if err := WritePath(obj, bad, 1); err == nil {
			t.Errorf("WritePath(%q) = nil error", bad)
		}
	}
	if err := WritePath(obj, ".status.replicas", 1); err == nil || !strings.Contains(err.Error(), ".status is not a map") {
		t.Errorf("WritePath through a string: %v", err)
	}
	if !reflect.DeepEqual(obj, want) {
		t.Errorf("failed writes changed the object: %v", obj)
	}
}

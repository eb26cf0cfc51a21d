package patch

import (
	"testing"
)

// FuzzApply checks that no input panics Apply, that every success is a
// JSON object no larger than MaxObjectBytes, and that every error that is
// not the input's fault is one a server maps to a 4xx. The seeds run with
// the ordinary tests.
func FuzzApply(f *testing.F) {
	seeds := []struct{ t, doc, p string }{
		{string(StrategicMerge), `{"spec":{"containers":[{"name":"a","env":[{"name":"A"}]}]},"metadata":{"finalizers":["x"]}}`,
			`{"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}],"containers":[{"name":"b"},{"name":"a","$patch":"delete"}]},"metadata":{"$deleteFromPrimitiveList/finalizers":["x"]}}`},
		{string(StrategicMerge), `{"spec":{"strategy":{"type":"Recreate"}}}`, `{"spec":{"strategy":{"$retainKeys":["type"],"type":"RollingUpdate"}}}`},
		{string(StrategicMerge), `{"spec":{"volumes":[{"name":"v","emptyDir":{}}]}}`, `{"spec":{"volumes":[{"name":"v","$patch":"replace"}]}}`},
		{string(JSON), `{"a":[1,{"b":2}]}`, `[{"op":"move","from":"/a/1","path":"/c"},{"op":"copy","from":"/c","path":"/a/-"},{"op":"test","path":"/c/b","value":2}]`},
		{string(Merge), `{"a":{"b":1}}`, `{"a":{"b":null,"c":[1]}}`},
		// Patch bombs (issue 28): a copy doubling its target, self-copy and
		// remove pairs, numbers that big.Rat expands.
		{string(JSON), `{"x":["0123456789"]}`, string(ops(24, `{"op":"copy","from":"/x","path":"/x/-"}`))},
		{string(JSON), `{"a":[0,1,2,3]}`, string(ops(50, `{"op":"copy","from":"/a/0","path":"/a/0"}`, `{"op":"remove","path":"/a/0"}`))},
		{string(JSON), `{"a":1e1000000}`, `[{"op":"test","path":"/a","value":10e999999}]`},
		{string(StrategicMerge), `{"metadata":{"finalizers":["a","b"]}}`, `{"metadata":{"finalizers":["b","c","c",1e1000000]}}`},
	}
	for _, s := range seeds {
		f.Add(s.t, "Pod", s.doc, s.p)
		f.Add(s.t, "Deployment", s.doc, s.p)
	}
	f.Fuzz(func(t *testing.T, typ, kind, doc, p string) {
		out, err := Apply(Type(typ), kind, []byte(doc), []byte(p))
		if err != nil {
			return
		}
		if len(out) > MaxObjectBytes {
			t.Fatalf("Apply returned %d bytes, more than MaxObjectBytes", len(out))
		}
		if m, err := decodeObject(out, "result"); err != nil || m == nil {
			t.Fatalf("Apply returned %q, not a JSON object: %v", out, err)
		}
	})
}

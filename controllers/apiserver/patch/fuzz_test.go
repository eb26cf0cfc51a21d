package patch

import (
	"encoding/json"
	"testing"
)

// FuzzApply checks that no input panics Apply and that every success is a
// JSON object. The seeds run with the ordinary tests.
func FuzzApply(f *testing.F) {
	seeds := []struct{ t, doc, p string }{
		{string(StrategicMerge), `{"spec":{"containers":[{"name":"a","env":[{"name":"A"}]}]},"metadata":{"finalizers":["x"]}}`,
			`{"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}],"containers":[{"name":"b"},{"name":"a","$patch":"delete"}]},"metadata":{"$deleteFromPrimitiveList/finalizers":["x"]}}`},
		{string(StrategicMerge), `{"spec":{"strategy":{"type":"Recreate"}}}`, `{"spec":{"strategy":{"$retainKeys":["type"],"type":"RollingUpdate"}}}`},
		{string(StrategicMerge), `{"spec":{"volumes":[{"name":"v","emptyDir":{}}]}}`, `{"spec":{"volumes":[{"name":"v","$patch":"replace"}]}}`},
		{string(JSON), `{"a":[1,{"b":2}]}`, `[{"op":"move","from":"/a/1","path":"/c"},{"op":"copy","from":"/c","path":"/a/-"},{"op":"test","path":"/c/b","value":2}]`},
		{string(Merge), `{"a":{"b":1}}`, `{"a":{"b":null,"c":[1]}}`},
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
		var m map[string]any
		if err := json.Unmarshal(out, &m); err != nil || m == nil {
			t.Fatalf("Apply returned %q, not a JSON object: %v", out, err)
		}
	})
}

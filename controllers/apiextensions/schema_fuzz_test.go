package apiextensions_test

import (
	"encoding/json"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiextensions"
)

// No schema and no object makes the package panic: a bad CRD or custom
// resource is a client mistake, answered with field errors.
func FuzzSchema(f *testing.F) {
	seeds := []struct{ schema, obj string }{
		{`{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"integer","format":"int32","maximum":3,"multipleOf":0}}}}}`, `{"spec":{"a":1e300}}`},
		{`{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"items":{"type":"object","required":["k"],"properties":{"k":{"type":"string"}}}}}}`, `{"l":[{"k":"a"},null,1,{"k":"a"}]}`},
		{`{"type":"object","properties":{"e":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}}}`, `{"e":{"metadata":{"labels":{"a":{}}},"kind":[],"apiVersion":{}}}`},
		{`{"type":"object","properties":{"a":{"items":{},"additionalProperties":true,"anyOf":[{"items":{}}],"x-kubernetes-list-type":"set"}}}`, `{"a":[[1],[1],{"x":null}]}`},
		{`{"type":"object","properties":{"p":{"x-kubernetes-int-or-string":true,"allOf":[{"anyOf":[{"type":"integer"},{"type":"string"}]},{"pattern":"^a","minimum":-1}],"not":{"enum":[null,1]}}}}`, `{"p":-2.5}`},
		{`{"type":"object","properties":{"d":{"type":"object","default":{"x":1},"properties":{"x":{"type":"integer","default":"s"}}}}}`, `{"d":null}`},
		{`{"nullable":true,"uniqueItems":true,"items":[{}],"$ref":"x","additionalItems":false}`, `{}`},
	}
	for _, s := range seeds {
		f.Add(s.schema, s.obj)
	}
	f.Fuzz(func(t *testing.T, schema, obj string) {
		var p api.JSONSchemaProps
		if json.Unmarshal([]byte(schema), &p) != nil {
			return
		}
		_ = apiextensions.CheckStructural(&p, "openAPIV3Schema")
		s, err := apiextensions.Compile(&p)
		if err != nil {
			return
		}
		_ = s.HasValidationRules()
		for range 2 {
			var o map[string]any
			if json.Unmarshal([]byte(obj), &o) != nil || o == nil {
				return
			}
			numbersInPlace(o)
			s.Default(o)
			_ = s.Validate(o)
			_ = s.Prune(o)
			_ = s.Validate(o)
		}
	})
}

func numbersInPlace(m map[string]any) {
	for k, v := range m {
		if f, ok := v.(float64); ok && f == float64(int64(f)) {
			m[k] = int64(f)
		}
		if sub, ok := v.(map[string]any); ok {
			numbersInPlace(sub)
		}
	}
}

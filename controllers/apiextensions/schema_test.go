package apiextensions_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiextensions"
)

func props(t *testing.T, doc string) *api.JSONSchemaProps {
	t.Helper()
	p := new(api.JSONSchemaProps)
	if err := yaml.Unmarshal([]byte(doc), p); err != nil {
		t.Fatalf("schema: %v", err)
	}
	return p
}

func compile(t *testing.T, doc string) *apiextensions.Schema {
	t.Helper()
	s, err := apiextensions.Compile(props(t, doc))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// object decodes YAML as kube's unstructured decoding does: integers as
// int64, other numbers as float64.
func object(t testing.TB, doc string) map[string]any {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	m, _ := numbers(v).(map[string]any)
	return m
}

func numbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return i
		}
		f, _ := strconv.ParseFloat(string(v), 64)
		return f
	case map[string]any:
		for k, e := range v {
			v[k] = numbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = numbers(e)
		}
	}
	return v
}

func messages(errs []api.FieldError) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

const widgetSchema = `
type: object
properties:
  apiVersion: {type: string}
  kind: {type: string}
  metadata: {type: object}
  spec:
    type: object
    required: [replicas]
    properties:
      replicas: {type: integer, format: int32, minimum: 0, maximum: 10}
      color: {type: string, enum: [red, green, blue], default: red}
      name: {type: string, pattern: "^[a-z]+$", maxLength: 5, minLength: 2}
      ratio: {type: number, multipleOf: 0.5, exclusiveMaximum: true, maximum: 2}
      port: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}
      when: {type: string, format: date-time}
      note: {type: string, nullable: true}
      tags: {type: array, items: {type: string}, maxItems: 2, x-kubernetes-list-type: set}
      ports:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        items:
          type: object
          required: [name]
          properties:
            name: {type: string}
            port: {type: integer, default: 80}
      labels: {type: object, additionalProperties: {type: string}, maxProperties: 2}
      template:
        type: object
        x-kubernetes-embedded-resource: true
        x-kubernetes-preserve-unknown-fields: true
      extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
  status:
    type: object
    properties:
      ready: {type: integer}
`

// Validate reports what kube-apiserver reports for a custom resource, in
// its words (the texts are kube-openapi's and apimachinery field errors').
func TestValidateMessages(t *testing.T) {
	s := compile(t, widgetSchema)
	tests := []struct {
		name, obj string
		want      []string
	}{
		{"valid", `{spec: {replicas: 3, color: blue, name: abc, ratio: 1.5, port: http, when: "2026-01-02T03:04:05Z", note: null, tags: [a, b], ports: [{name: a}, {name: b}], labels: {a: x}, template: {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {}}}}`, nil},
		{"required", `{spec: {color: red}}`, []string{"spec.replicas: Required value"}},
		{"wrong type", `{spec: {replicas: "string"}}`, []string{
			`spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`}},
		{"int32 range and bounds", `{spec: {replicas: 11}}`, []string{
			`spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10`}},
		{"int32 overflow", `{spec: {replicas: 3000000000}}`, []string{
			`spec.replicas: Invalid value: Checked value must be of type integer with format int32 in spec.replicas`,
			`spec.replicas: Invalid value: 3000000000: spec.replicas in body should be less than or equal to 10`}},
		{"minimum", `{spec: {replicas: -1}}`, []string{
			`spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0`}},
		{"enum", `{spec: {replicas: 1, color: pink}}`, []string{
			`spec.color: Unsupported value: "pink": supported values: "red", "green", "blue"`}},
		{"pattern", `{spec: {replicas: 1, name: ABC}}`, []string{
			`spec.name: Invalid value: "ABC": spec.name in body should match '^[a-z]+$'`}},
		{"too long", `{spec: {replicas: 1, name: abcdefg}}`, []string{
			`spec.name: Too long: may not be more than 5 bytes`}},
		{"too short", `{spec: {replicas: 1, name: a}}`, []string{
			`spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long`}},
		{"multipleOf and exclusive maximum", `{spec: {replicas: 1, ratio: 2.25}}`, []string{
			`spec.ratio: Invalid value: 2.25: spec.ratio in body should be a multiple of 0.5`,
			`spec.ratio: Invalid value: 2.25: spec.ratio in body should be less than 2`}},
		{"int-or-string", `{spec: {replicas: 1, port: true}}`, []string{
			`spec.port: Invalid value: "spec.port" must validate at least one schema (anyOf)`,
			`spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"`,
			`spec.port: Invalid value: "boolean": spec.port in body must be of type integer: "boolean"`}},
		{"format", `{spec: {replicas: 1, when: yesterday}}`, []string{
			`spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"`}},
		{"null not nullable", `{spec: {replicas: null}}`, []string{
			`spec.replicas: Invalid value: "null": spec.replicas in body must be of type integer: "null"`}},
		{"set duplicates and max items", `{spec: {replicas: 1, tags: [a, b, a]}}`, []string{
			`spec.tags: Too many: "3": must have at most 2 items`,
			`spec.tags[2]: Duplicate value: "a"`}},
		{"map duplicates", `{spec: {replicas: 1, ports: [{name: a}, {name: b, port: 1}, {name: a, port: 2}]}}`, []string{
			`spec.ports[2]: Duplicate value: "{\"name\":\"a\"}"`}},
		{"additionalProperties", `{spec: {replicas: 1, labels: {a: x, b: 1, c: z}}}`, []string{
			`spec.labels.b: Invalid value: "integer": spec.labels.b in body must be of type string: "integer"`,
			`spec.labels: Too many: "3": must have at most 2 items`}},
		{"embedded resource", `{spec: {replicas: 1, template: {apiVersion: a/b/c, kind: "no_way", metadata: {name: "a/b"}}}}`, []string{
			`spec.template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c`,
			`spec.template.kind: Invalid value: "no_way": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
			`spec.template.metadata.name: Invalid value: "a/b": may not contain '/'`}},
		{"embedded resource without type meta", `{spec: {replicas: 1, template: {spec: {}}}}`, []string{
			`spec.template.apiVersion: Required value`,
			`spec.template.kind: Required value`}},
		{"not an object", `{spec: [1]}`, []string{
			`spec: Invalid value: "array": spec in body must be of type object: "array"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := messages(s.Validate(object(t, tt.obj)))
			want := tt.want
			if want == nil {
				want = []string{}
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("Validate:\n got  %q\n want %q", got, want)
			}
		})
	}
}

// CheckStructural gives kube-apiserver's errors for schemas that are not
// structural (cases after apiextensions-apiserver's
// pkg/apiserver/schema/validation_test.go and the CRD validation tests).
func TestCheckStructuralMessages(t *testing.T) {
	const root = "spec.versions[0].schema.openAPIV3Schema"
	tests := []struct {
		name, schema string
		want         []string
	}{
		{"fine", widgetSchema, nil},
		{"missing type", `{type: object, properties: {spec: {properties: {a: {type: string}}}}}`, []string{
			root + ".properties[spec].type: Required value: must not be empty for specified object fields"}},
		{"array without items", `{type: object, properties: {list: {type: array}}}`, []string{
			root + ".properties[list].items: Required value: must be specified"}},
		{"type under anyOf", `{type: object, properties: {spec: {type: object, anyOf: [{type: object}]}}}`, []string{
			root + ".properties[spec].anyOf[0].type: Forbidden: must be empty to be structural"}},
		{"metadata beyond name", `{type: object, properties: {metadata: {type: object, properties: {labels: {type: object}}}}}`, []string{
			root + ".properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified"}},
		{"root additionalProperties", `{type: object, additionalProperties: {type: string}}`, []string{
			root + ".additionalProperties: Forbidden: must not be used at the root"}},
		{"$ref", `{type: object, properties: {spec: {$ref: "#/x"}}}`, []string{
			root + ".properties[spec].$ref: Forbidden: $ref is not supported"}},
		{"uniqueItems", `{type: object, properties: {s: {type: array, items: {type: string}, uniqueItems: true}}}`, []string{
			root + ".properties[s].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic"}},
		{"int-or-string with preserve", `{type: object, properties: {p: {x-kubernetes-int-or-string: true, x-kubernetes-preserve-unknown-fields: true}}}`, []string{
			root + `.properties[p].x-kubernetes-preserve-unknown-fields: Invalid value: "true": must be false if x-kubernetes-int-or-string is true`}},
		{"embedded not object", `{type: object, properties: {t: {type: string, x-kubernetes-embedded-resource: true}}}`, []string{
			root + ".properties[t].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
			root + `.properties[t].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true`}},
		{"list-map keys", `{type: object, properties: {l: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [k], items: {type: object, properties: {k: {type: string}}}}}}`, []string{
			root + ".properties[l].items.properties[k].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"}},
		{"default out of bounds", `{type: object, properties: {spec: {type: object, properties: {num: {type: integer, maximum: 3, default: 5}}}}}`, []string{
			// kube-openapi names the default itself "", hence the leading space.
			root + `.properties[spec].properties[num].default: Invalid value: 5:  in body should be less than or equal to 3`}},
		{"default with unknown field", `{type: object, properties: {spec: {type: object, properties: {o: {type: object, properties: {a: {type: string}}, default: {a: x, b: z}}}}}}`, []string{
			root + `.properties[spec].properties[o].default: Invalid value: "{\"a\":\"x\",\"b\":\"z\"}": must not have unknown fields`}},
		{"nullable root", `{type: object, nullable: true}`, []string{
			root + ".nullable: Forbidden: nullable cannot be true at the root"}},
		{"bad pattern", `{type: object, properties: {s: {type: string, pattern: "(a"}}}`, []string{
			root + ".properties[s].pattern: Invalid value: \"(a\": must be a valid regular expression, but isn't: error parsing regexp: missing closing ): `(a`"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := apiextensions.CheckStructural(props(t, tt.schema), root)
			got := messages(errs)
			want := tt.want
			if want == nil {
				want = []string{}
			}
			if !slices.Equal(got, want) {
				t.Errorf("CheckStructural:\n got  %q\n want %q", got, want)
			}
			_, err := apiextensions.Compile(props(t, tt.schema))
			if (err == nil) != (len(want) == 0) {
				t.Errorf("Compile error %v, want an error: %v", err, len(want) > 0)
			}
		})
	}
	if errs := apiextensions.CheckStructural(nil, root); len(errs) != 1 || errs[0].Type != api.FieldRequired {
		t.Errorf("nil schema: %v", errs)
	}
}

// The default check reports a default that fails validation at the
// default's path: the detail names the path as kube-openapi writes it.
func TestCheckStructuralDefaultPath(t *testing.T) {
	errs := apiextensions.CheckStructural(props(t, `{type: object, properties: {spec: {type: object, properties: {s: {type: string, default: 1}}}}}`), "x")
	if len(errs) != 1 || errs[0].Field != "x.properties[spec].properties[s].default" || errs[0].Type != api.FieldInvalid {
		t.Fatalf("errs = %v", errs)
	}
}

// Pruning cases after apiextensions-apiserver's
// pkg/apiserver/schema/pruning/algorithm_test.go.
func TestPrune(t *testing.T) {
	tests := []struct {
		name, schema, obj, want string
		paths                   []string
	}{
		{"object array object",
			`{type: object, properties: {array: {type: array, items: {type: object, properties: {a: {type: integer}, c: {type: integer}}}}, specified: {type: object, properties: {a: {type: integer}, c: {type: integer}}}}}`,
			`{array: [{a: 1}, {b: 1}, {a: 1, b: 2, c: 3}], unspecified: {a: 1}, specified: {a: 1, b: 2, c: 3}}`,
			`{array: [{a: 1}, {}, {a: 1, c: 3}], specified: {a: 1, c: 3}}`,
			[]string{"array[1].b", "array[2].b", "specified.b", "unspecified"}},
		{"additionalProperties with schema",
			`{type: object, properties: {m: {type: object, additionalProperties: {type: object, properties: {a: {type: integer}}}}}}`,
			`{m: {x: {a: 1, b: 2}, z: {c: 3}}}`,
			`{m: {x: {a: 1}, z: {}}}`,
			[]string{"m.x.b", "m.z.c"}},
		{"meta fields kept at the root and in embedded resources, not elsewhere",
			`{type: object, properties: {spec: {type: object, properties: {e: {type: object, x-kubernetes-embedded-resource: true, properties: {spec: {type: object}}}, o: {type: object}}}}}`,
			`{apiVersion: v1, kind: K, metadata: {name: x, anything: 1}, spec: {e: {apiVersion: a, kind: b, metadata: {z: 1}, other: 1}, o: {kind: x}}}`,
			`{apiVersion: v1, kind: K, metadata: {name: x, anything: 1}, spec: {e: {apiVersion: a, kind: b, metadata: {z: 1}}, o: {}}}`,
			[]string{"spec.e.other", "spec.o.kind"}},
		{"preserve-unknown-fields keeps unknown, prunes inside specified",
			`{type: object, properties: {spec: {type: object, x-kubernetes-preserve-unknown-fields: true, properties: {known: {type: object, properties: {a: {type: string}}}}}}}`,
			`{spec: {free: {x: 1}, known: {a: s, b: t}}, status: {x: 1}}`,
			`{spec: {free: {x: 1}, known: {a: s}}}`,
			[]string{"spec.known.b", "status"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := compile(t, tt.schema)
			obj := object(t, tt.obj)
			paths := s.Prune(obj)
			if !slices.Equal(paths, tt.paths) {
				t.Errorf("paths = %q, want %q", paths, tt.paths)
			}
			if want := object(t, tt.want); !reflect.DeepEqual(obj, want) {
				t.Errorf("object = %v, want %v", obj, want)
			}
		})
	}
}

// Defaulting cases after apiextensions-apiserver's
// pkg/apiserver/schema/defaulting/algorithm_test.go and prunenulls_test.go.
func TestDefault(t *testing.T) {
	const schema = `
type: object
properties:
  spec:
    type: object
    default: {}
    properties:
      a: {type: string, default: A}
      nd: {type: string, nullable: true, default: "NN"}
      plain: {type: string}
      nullable: {type: string, nullable: true}
      list: {type: array, items: {type: object, default: {x: 1}, properties: {x: {type: integer}, z: {type: integer, default: 2}}}}
      m: {type: object, additionalProperties: {type: string, default: V}}
      deep: {type: object, properties: {b: {type: object, default: {c: 1}, properties: {c: {type: integer}, d: {type: integer, default: 4}}}}}
`
	tests := []struct{ name, obj, want string }{
		{"absent spec", `{}`, `{spec: {a: A, nd: NN}}`},
		{"absent fields", `{spec: {deep: {}}}`, `{spec: {a: A, nd: NN, deep: {b: {c: 1, d: 4}}}}`},
		{"set values stay", `{spec: {a: x, nd: w}}`, `{spec: {a: x, nd: w}}`},
		{"null of a non-nullable field with default is defaulted", `{spec: {a: null}}`, `{spec: {a: A, nd: NN}}`},
		{"null of a nullable field stays", `{spec: {nd: null, nullable: null}}`, `{spec: {a: A, nd: null, nullable: null}}`},
		{"null without default is dropped", `{spec: {plain: null}}`, `{spec: {a: A, nd: NN}}`},
		{"items and their nulls", `{spec: {list: [{}, null, {x: 5, z: 6}]}}`, `{spec: {a: A, nd: NN, list: [{z: 2}, {x: 1, z: 2}, {x: 5, z: 6}]}}`},
		{"additionalProperties nulls", `{spec: {m: {k: null, j: s}}}`, `{spec: {a: A, nd: NN, m: {k: V, j: s}}}`},
	}
	s := compile(t, schema)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := object(t, tt.obj)
			s.Default(obj)
			if want := object(t, tt.want); !reflect.DeepEqual(obj, want) {
				t.Errorf("Default = %v, want %v", obj, want)
			}
		})
	}
	// A default is copied, never shared between objects.
	a, b := object(t, `{}`), object(t, `{}`)
	s.Default(a)
	s.Default(b)
	a["spec"].(map[string]any)["a"] = "changed"
	if b["spec"].(map[string]any)["a"] != "A" {
		t.Error("defaults are shared between objects")
	}
}

func TestFormats(t *testing.T) {
	tests := []struct {
		format string
		good   []string
		bad    []string
	}{
		{"date-time", []string{"2026-01-02T03:04:05Z", "2026-01-02t03:04:05.123+01:00"}, []string{"2026-01-02", "yesterday", "2026-01-02T25:00:00Z"}},
		{"date", []string{"2026-12-31"}, []string{"2026-13-01", "31.12.2026"}},
		{"duration", []string{"1h30m", "3 days", "5 seconds"}, []string{"forever", "10"}},
		{"byte", []string{"aGVsbG8=", "YWJj"}, []string{"", "not base64!"}},
		{"ipv4", []string{"10.0.0.1", "010.0.0.1"}, []string{"10.0.0", "::1", "300.1.1.1"}},
		{"ipv6", []string{"::1", "fe80::1"}, []string{"10.0.0.1", "zz::"}},
		{"cidr", []string{"10.0.0.0/8", "fd00::/64"}, []string{"10.0.0.0", "10.0.0.0/33"}},
		{"mac", []string{"01:23:45:67:89:ab"}, []string{"01:23:45"}},
		{"uuid", []string{"123e4567-e89b-12d3-a456-426614174000", "123E4567E89B12D3A456426614174000"}, []string{"123e4567", "g23e4567-e89b-12d3-a456-426614174000"}},
		{"uuid4", []string{"123e4567-e89b-42d3-a456-426614174000"}, []string{"123e4567-e89b-12d3-a456-426614174000"}},
		{"hostname", []string{"example.com", "localhost", "a-b.example.org"}, []string{"-bad", "a..b", strings.Repeat("a", 64) + ".com"}},
		{"email", []string{"a@example.com"}, []string{"not an email"}},
		{"uri", []string{"https://example.com/x", "/path"}, []string{"relative/path"}},
		{"k8s-short-name", []string{"my-name"}, []string{"My-Name", "-x"}},
		{"k8s-long-name", []string{"a.b-c.d"}, []string{"a..b", "A.b"}},
		{"isbn", []string{"0321751043", "978-0321751041"}, []string{"0321751044"}},
		{"creditcard", []string{"4111 1111 1111 1111"}, []string{"4111 1111 1111 1112"}},
		{"ssn", []string{"123-45-6789"}, []string{"123456"}},
		{"hexcolor", []string{"#fff", "ABCDEF"}, []string{"#ggg"}},
		{"rgbcolor", []string{"rgb(255, 0, 10)"}, []string{"rgb(256,0,0)"}},
		{"bsonobjectid", []string{"507f1f77bcf86cd799439011"}, []string{"507f1f77"}},
		{"password", []string{"anything"}, nil},
		{"unknown-format", []string{"anything at all"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			s := compile(t, `{type: object, properties: {v: {type: string, format: `+tt.format+`}}}`)
			for _, v := range tt.good {
				if errs := s.Validate(map[string]any{"v": v}); len(errs) > 0 {
					t.Errorf("%q: %v", v, errs)
				}
			}
			for _, v := range tt.bad {
				errs := s.Validate(map[string]any{"v": v})
				if len(errs) != 1 || errs[0].Field != "v" || !strings.Contains(errs[0].Detail, "must be of type "+tt.format) {
					t.Errorf("%q: %v", v, errs)
				}
			}
		})
	}
}

func TestHasValidationRules(t *testing.T) {
	if compile(t, widgetSchema).HasValidationRules() {
		t.Error("widget schema has no CEL rules")
	}
	s := compile(t, `{type: object, properties: {spec: {type: object, properties: {a: {type: array, items: {type: string, x-kubernetes-validations: [{rule: "self != 'x'"}]}}}}}}`)
	if !s.HasValidationRules() {
		t.Error("a rule under items is not seen")
	}
}

// A Schema is used by many requests at once.
func TestSchemaConcurrentUse(t *testing.T) {
	s := compile(t, widgetSchema)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				obj := map[string]any{"spec": map[string]any{"replicas": "x", "bogus": int64(1), "ports": []any{map[string]any{"name": "a"}}}}
				s.Default(obj)
				s.Prune(obj)
				if errs := s.Validate(obj); len(errs) != 1 {
					t.Errorf("errs = %v", errs)
					return
				}
			}
		})
	}
	wg.Wait()
}

// An enum may list null (nullable enums often do); kube-openapi never
// matches a null value against it, so null is still reported.
func TestEnumWithNull(t *testing.T) {
	s := compile(t, `{type: object, properties: {e: {type: string, nullable: true, enum: [x, null]}}}`)
	if errs := s.Validate(map[string]any{"e": "x"}); len(errs) > 0 {
		t.Errorf("x: %v", errs)
	}
	got := messages(s.Validate(map[string]any{"e": nil}))
	if want := []string{`e: Unsupported value: "null": supported values: "x", "null"`}; !slices.Equal(got, want) {
		t.Errorf("null: %q, want %q", got, want)
	}
}

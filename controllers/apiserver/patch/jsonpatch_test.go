package patch

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Cases from RFC 6902 appendix A and RFC 6901 section 5 (escaping),
// plus the errors kube-apiserver reports as 400/422.
func TestJSONPatch(t *testing.T) {
	tests := []struct {
		name      string
		doc       string
		patch     string
		want      string // empty when an error is expected
		wantError string
	}{
		{"A.1 add object member", `{"foo":"bar"}`, `[{"op":"add","path":"/baz","value":"qux"}]`, `{"baz":"qux","foo":"bar"}`, ""},
		{"A.2 add array element", `{"foo":["bar","baz"]}`, `[{"op":"add","path":"/foo/1","value":"qux"}]`, `{"foo":["bar","qux","baz"]}`, ""},
		{"A.3 remove member", `{"baz":"qux","foo":"bar"}`, `[{"op":"remove","path":"/baz"}]`, `{"foo":"bar"}`, ""},
		{"A.4 remove element", `{"foo":["bar","qux","baz"]}`, `[{"op":"remove","path":"/foo/1"}]`, `{"foo":["bar","baz"]}`, ""},
		{"A.5 replace", `{"baz":"qux","foo":"bar"}`, `[{"op":"replace","path":"/baz","value":"boo"}]`, `{"baz":"boo","foo":"bar"}`, ""},
		{"A.6 move member", `{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}`,
			`[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]`,
			`{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}`, ""},
		{"A.7 move element", `{"foo":["all","grass","cows","eat"]}`, `[{"op":"move","from":"/foo/1","path":"/foo/3"}]`, `{"foo":["all","cows","eat","grass"]}`, ""},
		{"A.8 test success", `{"baz":"qux","foo":["a",2,"c"]}`,
			`[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]`,
			`{"baz":"qux","foo":["a",2,"c"]}`, ""},
		{"A.9 test error", `{"baz":"qux"}`, `[{"op":"test","path":"/baz","value":"bar"}]`, "", "test operation failed"},
		{"A.10 add nested member", `{"foo":"bar"}`, `[{"op":"add","path":"/child","value":{"grandchild":{}}}]`, `{"child":{"grandchild":{}},"foo":"bar"}`, ""},
		{"A.11 ignore unrecognized members", `{"foo":"bar"}`, `[{"op":"add","path":"/baz","value":"qux","xyz":123}]`, `{"baz":"qux","foo":"bar"}`, ""},
		{"A.12 add to nonexistent target", `{"foo":"bar"}`, `[{"op":"add","path":"/baz/bat","value":"qux"}]`, "", `path "/baz" does not exist`},
		{"A.14 ~ escape ordering", `{"/":9,"~1":10}`, `[{"op":"test","path":"/~01","value":10}]`, `{"/":9,"~1":10}`, ""},
		{"A.15 comparing strings and numbers", `{"/":9,"~1":10}`, `[{"op":"test","path":"/~01","value":"10"}]`, "", "test operation failed"},
		{"A.16 add array value", `{"foo":["bar"]}`, `[{"op":"add","path":"/foo/-","value":["abc","def"]}]`, `{"foo":["bar",["abc","def"]]}`, ""},
		{"~1 is a slash", `{"a/b":1}`, `[{"op":"replace","path":"/a~1b","value":2}]`, `{"a/b":2}`, ""},
		{"annotation key with slash", `{"metadata":{"annotations":{"x/y":"1"}}}`,
			`[{"op":"remove","path":"/metadata/annotations/x~1y"}]`, `{"metadata":{"annotations":{}}}`, ""},
		{"bad escape", `{"a":1}`, `[{"op":"remove","path":"/a~2"}]`, "", "~ must be followed by 0 or 1"},
		{"path without slash", `{"a":1}`, `[{"op":"remove","path":"a"}]`, "", "not a JSON pointer"},
		{"remove missing", `{"a":1}`, `[{"op":"remove","path":"/b"}]`, "", `path "/b" does not exist`},
		{"replace missing", `{"a":1}`, `[{"op":"replace","path":"/b","value":1}]`, "", `path "/b" does not exist`},
		{"remove out of range", `{"a":[1]}`, `[{"op":"remove","path":"/a/1"}]`, "", "out of range"},
		{"add past end", `{"a":[1]}`, `[{"op":"add","path":"/a/2","value":3}]`, "", "out of range"},
		{"add at end by index", `{"a":[1]}`, `[{"op":"add","path":"/a/1","value":3}]`, `{"a":[1,3]}`, ""},
		{"leading zero index", `{"a":[1,2]}`, `[{"op":"remove","path":"/a/01"}]`, "", "not an array index"},
		{"negative index", `{"a":[1,2]}`, `[{"op":"remove","path":"/a/-1"}]`, "", "not an array index"},
		{"dash only for add", `{"a":[1,2]}`, `[{"op":"remove","path":"/a/-"}]`, "", "not an array index"},
		{"into a scalar", `{"a":1}`, `[{"op":"add","path":"/a/b","value":1}]`, "", "is not an object or array"},
		{"missing value", `{"a":1}`, `[{"op":"add","path":"/b"}]`, "", `missing "value"`},
		{"null value", `{"a":1}`, `[{"op":"add","path":"/b","value":null}]`, `{"a":1,"b":null}`, ""},
		{"missing from", `{"a":1}`, `[{"op":"copy","path":"/b"}]`, "", `missing "from"`},
		{"missing path", `{"a":1}`, `[{"op":"remove"}]`, "", `missing "path"`},
		{"unknown op", `{"a":1}`, `[{"op":"frob","path":"/a"}]`, "", `unknown operation "frob"`},
		{"copy is deep", `{"a":{"x":1}}`, `[{"op":"copy","from":"/a","path":"/b"},{"op":"replace","path":"/b/x","value":2}]`, `{"a":{"x":1},"b":{"x":2}}`, ""},
		{"move into own child", `{"a":{"b":{}}}`, `[{"op":"move","from":"/a","path":"/a/b/c"}]`, "", "into its own child"},
		{"move to itself", `{"a":1}`, `[{"op":"move","from":"/a","path":"/a"}]`, `{"a":1}`, ""},
		{"move missing", `{"a":1}`, `[{"op":"move","from":"/b","path":"/c"}]`, "", `path "/b" does not exist`},
		{"test numbers numerically", `{"a":1.0}`, `[{"op":"test","path":"/a","value":1}]`, `{"a":1.0}`, ""},
		{"test whole object", `{"a":[1,{"b":null}]}`, `[{"op":"test","path":"","value":{"a":[1,{"b":null}]}}]`, `{"a":[1,{"b":null}]}`, ""},
		{"test missing path", `{"a":1}`, `[{"op":"test","path":"/b","value":1}]`, "", `path "/b" does not exist`},
		{"replace whole document", `{"a":1}`, `[{"op":"replace","path":"","value":{"b":2}}]`, `{"b":2}`, ""},
		{"result not an object", `{"a":1}`, `[{"op":"replace","path":"","value":3}]`, "", "not a JSON object"},
		{"failed op fails all", `{"a":1}`, `[{"op":"add","path":"/b","value":2},{"op":"remove","path":"/c"}]`, "", "operation 1 (remove)"},
		{"not an array", `{"a":1}`, `{"op":"remove","path":"/a"}`, "", "must be a JSON array"},
		{"big numbers kept exactly", `{"a":12345678901234567890}`, `[{"op":"add","path":"/b","value":0.1000000000000000055511151231257827}]`,
			`{"a":12345678901234567890,"b":0.1000000000000000055511151231257827}`, ""},
		{"empty patch", `{"a":1}`, `[]`, `{"a":1}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Apply(JSON, "Pod", []byte(tt.doc), []byte(tt.patch))
			if tt.wantError != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantError)
				return
			}
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))
		})
	}
}

// kube-apiserver answers 422 for a JSON patch whose operations fail, 400
// for one that is not a list of operations.
func TestJSONPatchErrorClasses(t *testing.T) {
	_, err := Apply(JSON, "Pod", []byte(`{"a":1}`), []byte(`[{"op":"test","path":"/a","value":2}]`))
	assert.ErrorIs(t, err, ErrTestFailed)
	assert.ErrorIs(t, err, ErrUnprocessable)
	assert.Equal(t, `patch: cannot apply the patch: operation 0 (test): test operation failed: the value at "/a" is not 2`, err.Error())
	for _, p := range []string{`[{"op":"remove","path":"/b"}]`, `[{"op":"frob","path":"/a"}]`, `[{"op":"add","path":"/a/1","value":1}]`} {
		_, err = Apply(JSON, "Pod", []byte(`{"a":1}`), []byte(p))
		assert.ErrorIs(t, err, ErrUnprocessable, p)
		assert.NotErrorIs(t, err, ErrTestFailed, p)
	}
	for _, p := range []string{`{}`, `[1]`, `nope`} {
		_, err = Apply(JSON, "Pod", []byte(`{"a":1}`), []byte(p))
		assert.Error(t, err, p)
		assert.NotErrorIs(t, err, ErrUnprocessable, p)
	}
}

// The original document must not change: a server may hold it in a cache.
func TestApplyDoesNotModifyOriginal(t *testing.T) {
	orig := []byte(`{"a":[1,2],"b":{"c":1}}`)
	keep := string(orig)
	for _, tc := range []struct {
		t Type
		p string
	}{
		{JSON, `[{"op":"remove","path":"/a/0"},{"op":"remove","path":"/b/c"}]`},
		{Merge, `{"a":null,"b":{"c":null}}`},
	} {
		_, err := Apply(tc.t, "Pod", orig, []byte(tc.p))
		require.NoError(t, err)
		assert.Equal(t, keep, string(orig))
	}
}

func TestApplyErrors(t *testing.T) {
	_, err := Apply("application/apply-patch+yaml", "Pod", []byte(`{}`), []byte(`{}`))
	assert.ErrorIs(t, err, ErrUnsupportedType)
	_, err = Apply("text/plain", "Pod", []byte(`{}`), []byte(`{}`))
	assert.ErrorIs(t, err, ErrUnsupportedType)
	_, err = Apply(Merge, "Pod", []byte(`[1]`), []byte(`{}`))
	assert.ErrorContains(t, err, "original object is not a JSON object")
	_, err = Apply(Merge, "Pod", []byte(`{}`), []byte(`{`))
	assert.ErrorContains(t, err, "merge patch is not valid JSON")
	_, err = Apply(Merge, "Pod", []byte(`{}`), []byte(`{} {}`))
	assert.ErrorContains(t, err, "data after")
	_, err = Apply(Merge, "Pod", []byte(`{}`), []byte(`[1]`))
	assert.ErrorContains(t, err, "must be a JSON object")
}

// Cases from RFC 7386 appendix A (those whose patch is an object; a
// non-object patch would replace the object, which Apply refuses).
func TestMergePatch(t *testing.T) {
	tests := []struct{ doc, patch, want string }{
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`{"e":null}`, `{"a":1}`, `{"a":1,"e":null}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
		{`{"a":"foo"}`, `{"a":{"b":"c"}}`, `{"a":{"b":"c"}}`},
		// Lists are replaced whole, unlike a strategic merge patch.
		{`{"spec":{"containers":[{"name":"a","image":"x"},{"name":"b"}]}}`,
			`{"spec":{"containers":[{"name":"a","image":"y"}]}}`,
			`{"spec":{"containers":[{"name":"a","image":"y"}]}}`},
		{`{"metadata":{"labels":{"app":"x","tier":"y"}}}`, `{"metadata":{"labels":{"tier":null}}}`, `{"metadata":{"labels":{"app":"x"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.patch, func(t *testing.T) {
			got, err := Apply(Merge, "Pod", []byte(tt.doc), []byte(tt.patch))
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))
		})
	}
}

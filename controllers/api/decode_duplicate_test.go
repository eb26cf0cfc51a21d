package api

import (
	"errors"
	"strings"
	"testing"
)

// Duplicate keys in a JSON body: kube-apiserver's fieldValidation=Strict
// answers 400 `strict decoding error: duplicate field "<path>"`; Lenient
// (fieldValidation=Ignore) keeps the last value, as encoding/json does.
func TestDecodeDuplicateJSONFields(t *testing.T) {
	cases := []struct {
		name, doc string
		paths     []string // nil: no error
	}{
		{"top level", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{},"data":{"k":"v"}}`, []string{"data"}},
		{"metadata", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","name":"b"}}`, []string{"metadata.name"}},
		{"map key", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"x":"1","y":"2","x":"3"}}`, []string{"data.x"}},
		{"in a list", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"a","image":"i"},{"name":"b","image":"i","image":"j"}]}}`,
			[]string{"spec.containers[1].image"}},
		{"two", `{"apiVersion":"v1","apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"l":"1","l":"2"}}}`,
			[]string{"apiVersion", "metadata.labels.l"}},
		{"same key in sibling objects is fine", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"name":"x"}}}`, nil},
		{"escaped key", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"1","\u006b":"2"}}`, []string{"data.k"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode([]byte(c.doc), DecodeOptions{Source: "request body"})
			if c.paths == nil {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrDuplicateField) {
				t.Fatalf("Decode = %v, want ErrDuplicateField", err)
			}
			for _, p := range c.paths {
				if want := `duplicate field "` + p + `"`; !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
			objs, err := Decode([]byte(c.doc), DecodeOptions{Lenient: true})
			if err != nil || len(objs) != 1 {
				t.Fatalf("lenient Decode = %v, %v", objs, err)
			}
		})
	}
	// The last value wins when lenient.
	objs, err := Decode([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","name":"b"}}`), DecodeOptions{Lenient: true})
	if err != nil || objs[0].GetObjectMeta().Name != "b" {
		t.Fatalf("lenient Decode = %v, %v", objs, err)
	}
}

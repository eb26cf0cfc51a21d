package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writePkg(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "types.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestGenerate(t *testing.T) {
	dir := writePkg(t, `package api

type Kind string

type TypeMeta struct {
	Kind string `+"`json:\"kind\"`"+`
}

type ObjectMeta struct {
	Labels map[string]string `+"`json:\"labels\"`"+`
}

type Thing struct {
	TypeMeta   `+"`json:\",inline\"`"+`
	ObjectMeta `+"`json:\"metadata\"`"+`
	Count *int32            `+"`json:\"count\"`"+`
	Kinds []Kind            `+"`json:\"kinds\"`"+`
	Parts []Part            `+"`json:\"parts\"`"+`
	Blobs map[string][]byte `+"`json:\"blobs\"`"+`
}

type Part struct {
	Name string `+"`json:\"name\"`"+`
}

// helper has no json tags: no methods are generated for it.
type helper struct{ n int }
`)
	out, err := generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	src := string(out[filepath.Join(dir, "types_deepcopy.go")])
	for _, want := range []string{
		"func (in *Thing) DeepCopyObject() Object",
		"in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)",
		"*out = new(int32)",
		"copy(*out, *in)",
		"(*in)[i].DeepCopyInto(&(*out)[i])",
		"c := make([]byte, len(val))",
		"func (in *Part) DeepCopy() *Part",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("generated code lacks %q:\n%s", want, src)
		}
	}
	if strings.Contains(src, "helper") || strings.Contains(src, "func (in *Part) DeepCopyObject") {
		t.Errorf("generated methods for a helper or a non-kind:\n%s", src)
	}
}

func TestGenerateRejectsUnsupportedFields(t *testing.T) {
	for _, field := range []string{"C chan int", "P []*Part", "F func()", "M map[Part]string"} {
		dir := writePkg(t, "package api\n\ntype Part struct {\n\tN string `json:\"n\"`\n}\n\ntype T struct {\n\t"+field+" `json:\"x\"`\n}\n")
		if _, err := generate(dir); err == nil || !strings.Contains(err.Error(), "T.") {
			t.Errorf("%s: err = %v, want an error naming the field", field, err)
		}
	}
}

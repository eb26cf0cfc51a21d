// Command crdgen writes the CustomResourceDefinition of a Go type as
// YAML, for kubectl apply -f on a real cluster or on ctrlkit up:
//
//	go run github.com/ctrlkit/ctrlkit/controllers/crdgen/cmd/crdgen \
//		-dir ./api/v1 -type Widget -group example.com -version v1 > widget-crd.yaml
//
// Flags:
//
//	-dir DIR         the package that declares the type (default ".")
//	-type NAME       the Go type of the kind's objects (required)
//	-group GROUP     the API group (required)
//	-version V       the version (default "v1")
//	-kind KIND       the kind (default: the type's name)
//	-plural NAME     the resource (default: +kubebuilder:resource:path, else the plural of the kind)
//	-scope SCOPE     Namespaced or Cluster (default: +kubebuilder:resource:scope, else Namespaced)
//	-shortnames a,b  short names (default: +kubebuilder:resource:shortName)
//	-categories a,b  categories (default: +kubebuilder:resource:categories)
//	-status, -scale  the status and scale subresources (also set by +kubebuilder:subresource markers)
//	-o FILE          write to FILE instead of standard output
//
// The schema comes from the type by reflection, its descriptions and
// markers from the package's source (see package crdgen). Reflection
// needs the type compiled: crdgen writes a small program into a
// temporary directory inside DIR that imports the package and calls
// crdgen.Generate, runs it with go run (so DIR's module must require
// github.com/ctrlkit/ctrlkit, as any module using its types does), and
// removes it.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// config is the parsed command line.
type config struct {
	dir, typ, group, version, kind, plural, scope, out string
	shortNames, categories                             []string
	status, scale                                      bool
}

func parse(args []string, stderr io.Writer) (config, error) {
	var c config
	var short, cats string
	fs := flag.NewFlagSet("crdgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.dir, "dir", ".", "the directory of the package that declares the type")
	fs.StringVar(&c.typ, "type", "", "the Go type of the kind's objects (required)")
	fs.StringVar(&c.group, "group", "", "the API group (required)")
	fs.StringVar(&c.version, "version", "v1", "the version")
	fs.StringVar(&c.kind, "kind", "", "the kind (default: the type's name)")
	fs.StringVar(&c.plural, "plural", "", "the plural resource name (default: the marker's path, else the plural of the kind)")
	fs.StringVar(&c.scope, "scope", "", "Namespaced or Cluster (default: the marker's scope, else Namespaced)")
	fs.StringVar(&short, "shortnames", "", "comma-separated short names")
	fs.StringVar(&cats, "categories", "", "comma-separated categories")
	fs.BoolVar(&c.status, "status", false, "enable the status subresource")
	fs.BoolVar(&c.scale, "scale", false, "enable the scale subresource")
	fs.StringVar(&c.out, "o", "", "the output file (default: standard output)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if !token.IsIdentifier(c.typ) || !token.IsExported(c.typ) {
		return c, fmt.Errorf("-type %q is not an exported Go type name", c.typ)
	}
	if c.group == "" {
		return c, errors.New("-group is required")
	}
	if c.scope != "" && c.scope != "Namespaced" && c.scope != "Cluster" {
		return c, fmt.Errorf("-scope %q is neither Namespaced nor Cluster", c.scope)
	}
	c.shortNames, c.categories = list(short), list(cats)
	return c, nil
}

func list(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func run(args []string, stdout, stderr io.Writer) int {
	c, err := parse(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "crdgen:", err)
		}
		return 2
	}
	out, err := generate(c, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "crdgen:", err)
		return 1
	}
	if c.out == "" {
		_, err = stdout.Write(out)
	} else {
		err = os.WriteFile(c.out, out, 0o644)
	}
	if err != nil {
		fmt.Fprintln(stderr, "crdgen:", err)
		return 1
	}
	return 0
}

// generate builds and runs the program that prints the CRD.
func generate(c config, stderr io.Writer) ([]byte, error) {
	dir, err := filepath.Abs(c.dir)
	if err != nil {
		return nil, err
	}
	list := exec.Command("go", "list", "-f", "{{.ImportPath}}", ".")
	list.Dir, list.Stderr = dir, stderr
	imp, err := list.Output()
	if err != nil {
		return nil, fmt.Errorf("go list in %s: %w", dir, err)
	}
	tmp, err := os.MkdirTemp(dir, "_crdgen")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "main.go"), program(c, strings.TrimSpace(string(imp)), dir), 0o644); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	cmd := exec.Command("go", "run", "./"+filepath.Base(tmp))
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("generating the CRD of %s.%s: %w", strings.TrimSpace(string(imp)), c.typ, err)
	}
	return out.Bytes(), nil
}

// program is the source of the generator program for c: it imports the
// package imp (in dir) and prints the CRD of its type c.typ.
func program(c config, imp, dir string) []byte {
	namespaced := c.scope != "Cluster"
	return fmt.Appendf(nil, `// Code generated by crdgen; DO NOT EDIT. It is removed after it runs.

package main

import (
	"fmt"
	"os"
	"reflect"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/crdgen"
	target %q
)

func main() {
	info := api.KindInfo{GroupVersionKind: api.GroupVersionKind{Group: %q, Version: %q, Kind: %q},
		Resource: %q, Namespaced: %t, Status: %t, Scale: %t, ShortNames: %#v, Categories: %#v}
	crd, err := crdgen.Generate(info, reflect.TypeFor[target.%s](), crdgen.Options{Dir: %q})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if scope := %q; scope != "" {
		crd.Spec.Scope = api.ResourceScope(scope)
	}
	if err := crdgen.WriteYAML(os.Stdout, crd); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
`, imp, c.group, c.version, c.kind, c.plural, namespaced, c.status, c.scale, c.shortNames, c.categories, c.typ, dir, c.scope)
}

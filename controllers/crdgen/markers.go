package crdgen

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
)

// marker is one "+name[=value]" or "+name:key=value,…" line of a doc
// comment.
type marker struct {
	name  string            // "kubebuilder:validation:Minimum", "listType"
	value string            // the text after "=", for a marker without arguments
	args  map[string]string // the key=value arguments, for a marker with them
}

// argMarkers are the markers whose text after the name is a list of
// key=value arguments rather than one value.
var argMarkers = []string{
	"kubebuilder:validation:XValidation",
	"kubebuilder:printcolumn",
	"kubebuilder:resource",
	"kubebuilder:subresource:scale",
}

// parseMarker parses the text of a marker line after its "+".
func parseMarker(line string) (marker, error) {
	for _, n := range argMarkers {
		if rest, ok := strings.CutPrefix(line, n); ok && (rest == "" || rest[0] == ':') {
			args, err := parseArgs(strings.TrimPrefix(rest, ":"))
			if err != nil {
				return marker{}, fmt.Errorf("+%s: %w", n, err)
			}
			return marker{name: n, args: args}, nil
		}
	}
	name, value, _ := strings.Cut(line, "=")
	return marker{name: strings.TrimSpace(name), value: strings.TrimSpace(value)}, nil
}

// parseArgs splits `a="x, y",b=c;d` at the commas outside quotes and
// braces, and unquotes quoted values.
func parseArgs(s string) (map[string]string, error) {
	args := map[string]string{}
	for _, part := range splitOutside(s, ',') {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("argument %q is not key=value", part)
		}
		v, err := unquote(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("argument %s: %w", k, err)
		}
		args[strings.TrimSpace(k)] = v
	}
	return args, nil
}

// splitOutside splits s at sep where sep is outside quotes, braces and
// brackets.
func splitOutside(s string, sep byte) []string {
	var parts []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '`':
			quote = c
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		case c == sep && depth == 0:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// unquote removes Go quotes ("…" or `…`) around s, if any.
func unquote(s string) (string, error) {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '`') {
		return strconv.Unquote(s)
	}
	return s, nil
}

// jsonValue is the JSON of a marker value: the value itself when it is
// JSON ({"a":1}, 3, true, "x"), else the value as a string (red).
func jsonValue(s string) json.RawMessage {
	s = strings.TrimSpace(s)
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

// comment is a parsed doc comment: its text without the marker lines,
// and its markers.
type comment struct {
	doc     string
	markers []marker
}

// has reports whether c has a marker named name.
func (c comment) has(name string) bool {
	for _, m := range c.markers {
		if m.name == name {
			return true
		}
	}
	return false
}

func parseComment(cg *ast.CommentGroup) (comment, error) {
	if cg == nil {
		return comment{}, nil
	}
	return parseCommentText(cg.Text())
}

// parseCommentText parses the text of a doc comment (as
// ast.CommentGroup.Text gives it).
func parseCommentText(text string) (comment, error) {
	var c comment
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if rest, ok := strings.CutPrefix(t, "+"); ok && rest != "" {
			m, err := parseMarker(rest)
			if err != nil {
				return c, err
			}
			c.markers = append(c.markers, m)
			continue
		}
		lines = append(lines, strings.TrimRight(l, " \t"))
	}
	c.doc = strings.TrimSpace(strings.Join(lines, "\n"))
	return c, nil
}

// typeSource is the doc comment of a type declaration and of each of its
// struct fields (by Go field name; an embedded field by its type name).
type typeSource struct {
	comment
	fields map[string]comment
}

// Comments holds the doc comments of the types of one Go package, as
// ParseComments reads them from its source: type name → the type's
// comment, and its struct fields' by Go field name (an embedded field by
// its type name). Each comment is its text as go/ast gives it, marker
// lines included. Generated code may hold a Comments (see
// DefinitionOptions), so that a program without the package's source
// still has its descriptions and markers.
type Comments map[string]TypeComments

// TypeComments is the doc comment of one type declaration and of its
// struct fields.
type TypeComments struct {
	// Doc is the type's doc comment.
	Doc string
	// Fields are the doc comments of its fields, by Go field name; only
	// fields with a comment are present.
	Fields map[string]string
}

// ParseComments reads the doc comments of the types declared in the Go
// files of dir (tests excluded).
func ParseComments(dir string) (Comments, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, fmt.Errorf("crdgen: %w", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("crdgen: no Go files in %s", dir)
	}
	fset := token.NewFileSet()
	out := Comments{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("crdgen: %w", err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, s := range gd.Specs {
				ts := s.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				tc := TypeComments{Doc: doc.Text()}
				if st, ok := ts.Type.(*ast.StructType); ok {
					for _, fld := range st.Fields.List {
						if fld.Doc == nil {
							continue
						}
						if tc.Fields == nil {
							tc.Fields = map[string]string{}
						}
						for _, id := range fld.Names {
							tc.Fields[id.Name] = fld.Doc.Text()
						}
						if len(fld.Names) == 0 {
							tc.Fields[embeddedName(fld.Type)] = fld.Doc.Text()
						}
					}
				}
				out[ts.Name.Name] = tc
			}
		}
	}
	return out, nil
}

// parseDir reads the doc comments and markers of the types declared in
// the Go files of dir (tests excluded).
func parseDir(dir string) (map[string]*typeSource, error) {
	cs, err := ParseComments(dir)
	if err != nil {
		return nil, err
	}
	return compileComments(cs)
}

// compileComments parses the comments of cs into their text and markers.
func compileComments(cs Comments) (map[string]*typeSource, error) {
	types := map[string]*typeSource{}
	for name, tc := range cs {
		c, err := parseCommentText(tc.Doc)
		if err != nil {
			return nil, fmt.Errorf("crdgen: type %s: %w", name, err)
		}
		src := &typeSource{comment: c, fields: map[string]comment{}}
		for f, text := range tc.Fields {
			fc, err := parseCommentText(text)
			if err != nil {
				return nil, fmt.Errorf("crdgen: type %s: %w", name, err)
			}
			src.fields[f] = fc
		}
		types[name] = src
	}
	return types, nil
}

// embeddedName is the field name of an embedded field of type t.
func embeddedName(t ast.Expr) string {
	switch t := t.(type) {
	case *ast.StarExpr:
		return embeddedName(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.Ident:
		return t.Name
	}
	return ""
}

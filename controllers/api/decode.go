package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"
)

// Errors that Decode wraps (inside a *DecodeError) and callers may test
// with errors.Is.
var (
	// ErrUnknownField: a document has a field its kind does not define.
	ErrUnknownField = errors.New("unknown field")
	// ErrUnknownKind: a document's kind is not one this package defines.
	ErrUnknownKind = errors.New("unknown kind")
	// ErrUnsupportedVersion: the kind is known but not at that apiVersion.
	ErrUnsupportedVersion = errors.New("unsupported apiVersion")
	// ErrRemovedVersion: with DecodeOptions.RefuseRemoved, a built-in
	// kind at an older apiVersion Kubernetes no longer serves. Its text is
	// kubectl's: `no matches for kind "CronJob" in version "batch/v1beta1"`.
	ErrRemovedVersion = errors.New("no matches for kind")
	// ErrMissingTypeMeta: a document has no apiVersion or no kind.
	ErrMissingTypeMeta = errors.New("missing apiVersion or kind")
	// ErrDuplicateField: a JSON object of a document has the same key
	// twice (kube-apiserver's strict decoding: `duplicate field "x"`,
	// where encoding/json would silently keep the last).
	ErrDuplicateField = errors.New("duplicate field")
)

// DecodeOptions tune Decode. The zero value decodes strictly.
type DecodeOptions struct {
	// Lenient ignores unknown fields and duplicate keys instead of
	// failing on them (kubectl's --validate=false). Unknown kinds and
	// versions are errors either way.
	Lenient bool
	// Source names the input in errors, e.g. its file name. DecodeFile
	// sets it to the path when empty.
	Source string
	// Unstructured decodes an object of a kind the registry does not
	// know into an *Unstructured instead of failing with ErrUnknownKind:
	// a custom resource, whose CustomResourceDefinition a server may
	// serve (the manifests of an operator hold both).
	Unstructured bool
	// RefuseRemoved refuses a built-in kind at one of its older
	// apiVersions (batch/v1beta1 CronJob, extensions/v1beta1 and
	// apps/v1beta1/v1beta2 workloads, policy/v1beta1 PodDisruptionBudget,
	// …: every one was removed from Kubernetes by v1.37) with
	// ErrRemovedVersion, as kubectl against a v1.37 server refuses it.
	// Without it such a document decodes into the current type.
	RefuseRemoved bool
}

// DecodeError reports where in a stream a document failed to decode.
type DecodeError struct {
	// Source is DecodeOptions.Source.
	Source string
	// Doc is the 1-based position of the document in the stream, counting
	// empty documents.
	Doc int
	// Item is the 1-based position within a List's items or a top-level
	// sequence, or 0 when the document is a single object.
	Item int
	// Kind and Name identify the object, when they could be read.
	Kind, Name string
	// Err is the cause; it wraps one of the Err sentinels where one applies.
	Err error
}

// Error formats e as "api: SOURCE: document N[, item M]: KIND "NAME": cause".
func (e *DecodeError) Error() string {
	var b strings.Builder
	b.WriteString("api: ")
	if e.Source != "" {
		b.WriteString(e.Source + ": ")
	}
	b.WriteString("document " + strconv.Itoa(e.Doc))
	if e.Item > 0 {
		b.WriteString(", item " + strconv.Itoa(e.Item))
	}
	b.WriteString(": ")
	if e.Kind != "" {
		b.WriteString(e.Kind)
		if e.Name != "" {
			b.WriteString(" " + strconv.Quote(e.Name))
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns e.Err.
func (e *DecodeError) Unwrap() error { return e.Err }

// DecodeFile reads the file at path and decodes it with Decode; errors
// carry the path.
func DecodeFile(path string, opts DecodeOptions) ([]Object, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("api: %w", err)
	}
	if opts.Source == "" {
		opts.Source = path
	}
	return Decode(data, opts)
}

// Decode decodes every object in data, in order. data is YAML or JSON: a
// stream of YAML documents separated by "---" lines, or of concatenated
// JSON values. A document is one object, a List (kind "List", or
// "<Kind>List" of a known kind, whose items are the objects), or a
// sequence of objects. Empty documents are skipped.
//
// Each object's apiVersion and kind select its type; documents of older
// versions that Kubernetes serves with the same schema (batch/v1beta1
// CronJob, extensions/v1beta1 and apps/v1beta1/v1beta2 workloads, …)
// decode into the current type, with TypeMeta set to the current version.
// Unless opts.Lenient is set, a field the kind does not define is an
// error naming the field's path ("spec.replicass"), as kubectl's strict
// validation does; so is a duplicate key, in YAML or in JSON (wrapping
// ErrDuplicateField and naming its path, as kube-apiserver's
// fieldValidation=Strict does).
//
// A bad YAML document does not stop the others: Decode returns the
// objects of every document that decoded and an error joining one
// *DecodeError per document that did not (errors.As finds the first), so
// a caller can apply the rest and report each failure with its document
// and field. A JSON stream stops at its first bad value.
func Decode(data []byte, opts DecodeOptions) ([]Object, error) {
	d := decoder{opts: opts}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	var jsonErr *DecodeError
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		objs, doc, err := d.decodeJSON(trimmed)
		var syntax *json.SyntaxError
		if !errors.As(err, &syntax) {
			return objs, err
		}
		jsonErr = &DecodeError{Source: opts.Source, Doc: doc, Err: fmt.Errorf("malformed JSON: %w", err)}
		if doc > 1 {
			return nil, jsonErr
		}
		// The first value is not JSON: this is YAML in flow style
		// ("{apiVersion: v1, …}", perhaps followed by "---"). Read it as
		// YAML, but report the JSON error if that fails too.
		d.out = nil
	}
	objs, err := d.decodeYAML(data)
	if err != nil && jsonErr != nil {
		return nil, jsonErr
	}
	return objs, err
}

// decodeYAML decodes a stream of YAML documents.
func (d *decoder) decodeYAML(data []byte) ([]Object, error) {
	opts := d.opts
	var errs []error
	for i, doc := range splitYAML(data) {
		var raw []byte
		var err error
		if opts.Lenient {
			raw, err = yaml.YAMLToJSON(doc)
		} else {
			raw, err = yaml.YAMLToJSONStrict(doc)
		}
		if err != nil {
			errs = append(errs, &DecodeError{Source: opts.Source, Doc: i + 1, Err: fmt.Errorf("malformed YAML: %w", err)})
			continue
		}
		if err := d.document(raw, i+1); err != nil {
			errs = append(errs, err)
		}
	}
	return d.out, errors.Join(errs...)
}

// splitYAML splits a YAML stream at document separator lines ("---",
// optionally followed by a space or comment).
func splitYAML(data []byte) [][]byte {
	var docs [][]byte
	var cur []byte
	for line := range bytes.Lines(data) {
		l := bytes.TrimRight(line, "\r\n")
		if bytes.HasPrefix(l, []byte("---")) && (len(l) == 3 || l[3] == ' ' || l[3] == '\t') {
			docs = append(docs, cur)
			cur = append([]byte(nil), l[3:]...)
			cur = append(cur, '\n')
			continue
		}
		cur = append(cur, line...)
	}
	return append(docs, cur)
}

// decodeJSON decodes a stream of concatenated JSON values. A syntax error
// is returned unwrapped, with the document it is in, so that Decode can
// fall back to YAML.
func (d *decoder) decodeJSON(data []byte) ([]Object, int, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	for doc := 1; ; doc++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return d.out, doc, nil
			}
			return nil, doc, err
		}
		if err := d.document(raw, doc); err != nil {
			return nil, doc, err
		}
	}
}

type decoder struct {
	opts DecodeOptions
	out  []Object
}

func (d *decoder) fail(doc, item int, kind, name string, err error) error {
	return &DecodeError{Source: d.opts.Source, Doc: doc, Item: item, Kind: kind, Name: name, Err: err}
}

func (d *decoder) document(raw []byte, doc int) error {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
		return nil // empty document
	case raw[0] == '[':
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return d.fail(doc, 0, "", "", err)
		}
		for i, it := range items {
			if err := d.object(it, doc, i+1, TypeMeta{}); err != nil {
				return err
			}
		}
		return nil
	case raw[0] != '{':
		return d.fail(doc, 0, "", "", errors.New("document is not an object, a list or a sequence of objects"))
	}
	var head struct {
		TypeMeta
		Items json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return d.fail(doc, 0, "", "", err)
	}
	var itemDefault TypeMeta
	isList := head.Kind == "List"
	if k, ok := strings.CutSuffix(head.Kind, "List"); ok && (builtin.byKind[k] != nil || lookupGroupKind(groupOf(head.APIVersion), k) != nil) {
		isList, itemDefault = true, TypeMeta{APIVersion: head.APIVersion, Kind: k}
	}
	if !isList {
		return d.object(raw, doc, 0, TypeMeta{})
	}
	if !d.opts.Lenient {
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(raw, &keys); err != nil {
			return d.fail(doc, 0, head.Kind, "", err)
		}
		var unknown []string
		for k := range keys {
			if k != "apiVersion" && k != "kind" && k != "metadata" && k != "items" {
				unknown = append(unknown, strconv.Quote(k))
			}
		}
		if len(unknown) > 0 {
			slices.Sort(unknown)
			return d.fail(doc, 0, head.Kind, "", fmt.Errorf("%w %s", ErrUnknownField, strings.Join(unknown, ", ")))
		}
	}
	var items []json.RawMessage
	if len(head.Items) > 0 {
		if err := json.Unmarshal(head.Items, &items); err != nil {
			return d.fail(doc, 0, head.Kind, "", fmt.Errorf("items: %w", err))
		}
	}
	for i, it := range items {
		if err := d.object(it, doc, i+1, itemDefault); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) object(raw []byte, doc, item int, def TypeMeta) error {
	var head struct {
		TypeMeta
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return d.fail(doc, item, "", "", fmt.Errorf("malformed object: %w", err))
	}
	tm, name := head.TypeMeta, head.Metadata.Name
	if tm.Kind == "" {
		tm.Kind = def.Kind
	}
	if tm.APIVersion == "" {
		tm.APIVersion = def.APIVersion
	}
	if tm.Kind == "" || tm.APIVersion == "" {
		return d.fail(doc, item, tm.Kind, name, ErrMissingTypeMeta)
	}
	info, versionOK := lookupKind(tm.APIVersion, tm.Kind)
	if info == nil && d.opts.Unstructured && strings.Contains(tm.APIVersion, "/") {
		u := &Unstructured{}
		if err := json.Unmarshal(raw, u); err != nil {
			return d.fail(doc, item, tm.Kind, name, err)
		}
		u.TypeMeta = tm
		d.out = append(d.out, u)
		return nil
	}
	if info == nil {
		return d.fail(doc, item, tm.Kind, name, fmt.Errorf("%w %q (apiVersion %q)", ErrUnknownKind, tm.Kind, tm.APIVersion))
	}
	if !versionOK {
		accepted := append([]string{info.APIVersion()}, info.OldVersions...)
		return d.fail(doc, item, tm.Kind, name, fmt.Errorf("%w %q for %s (accepted: %s)", ErrUnsupportedVersion, tm.APIVersion, tm.Kind, strings.Join(accepted, ", ")))
	}
	if d.opts.RefuseRemoved && tm.APIVersion != info.APIVersion() && builtin.byKind[tm.Kind] == info {
		return d.fail(doc, item, tm.Kind, name, fmt.Errorf("%w %q in version %q (removed from Kubernetes; the current version is %s)", ErrRemovedVersion, tm.Kind, tm.APIVersion, info.APIVersion()))
	}
	obj := info.new()
	if !d.opts.Lenient {
		var generic any
		if err := json.Unmarshal(raw, &generic); err != nil {
			return d.fail(doc, item, tm.Kind, name, err)
		}
		if dups := duplicateFields(raw); len(dups) > 0 {
			errs := make([]error, len(dups))
			for i, p := range dups {
				errs[i] = fmt.Errorf("%w %q", ErrDuplicateField, p)
			}
			return d.fail(doc, item, tm.Kind, name, joinedErrors(errs))
		}
		var unknown []string
		unknownFields(reflect.TypeOf(obj), generic, "", &unknown)
		if len(unknown) > 0 {
			quoted := make([]string, len(unknown))
			for i, u := range unknown {
				quoted[i] = strconv.Quote(u)
			}
			return d.fail(doc, item, tm.Kind, name, fmt.Errorf("%w %s", ErrUnknownField, strings.Join(quoted, ", ")))
		}
	}
	if err := json.Unmarshal(raw, obj); err != nil {
		return d.fail(doc, item, tm.Kind, name, err)
	}
	setTypeMeta(obj, info.GroupVersionKind)
	d.out = append(d.out, obj)
	return nil
}

// joinedErrors joins errors on one line, separated by ", ", as
// kube-apiserver lists strict decoding errors.
type joinedErrors []error

func (e joinedErrors) Error() string {
	parts := make([]string, len(e))
	for i, err := range e {
		parts[i] = err.Error()
	}
	return strings.Join(parts, ", ")
}

func (e joinedErrors) Unwrap() []error { return e }

// duplicateFields returns the paths ("metadata.name", "spec.ports[1].port")
// of the keys that occur more than once in an object of the JSON value
// raw, in the order of their second occurrence. raw has been parsed
// already; a syntax error ends the scan.
func duplicateFields(raw []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var dups []string
	var scan func(path string) bool
	// scan reads one value whose first token is next; it reports false at
	// a syntax error.
	scan = func(path string) bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return false
				}
				k, _ := kt.(string)
				p := k
				if path != "" {
					p = path + "." + k
				}
				if seen[k] {
					dups = append(dups, p)
				}
				seen[k] = true
				if !scan(p) {
					return false
				}
			}
			_, err = dec.Token() // }
			return err == nil
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if !scan(path + "[" + strconv.Itoa(i) + "]") {
					return false
				}
			}
			_, err = dec.Token() // ]
			return err == nil
		}
		return true
	}
	scan("")
	return dups
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// unionTyped is implemented by the types whose custom JSON is one of
// several shapes (a schema or an array of schemas, …): unionType returns
// the Go type that v, a decoded JSON value, decodes into, so that strict
// decoding checks its fields too. The method is called on a nil pointer.
type unionTyped interface {
	unionType(v any) reflect.Type
}

// unknownFields appends to out the paths of the keys in v (a decoded JSON
// value) that type t has no field for. Type mismatches are left to
// json.Unmarshal, which reports them.
func unknownFields(t reflect.Type, v any, path string, out *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if u, ok := reflect.Zero(reflect.PointerTo(t)).Interface().(unionTyped); ok {
		unknownFields(u.unionType(v), v, path, out)
		return
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		fields := jsonFields(t)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			ft, ok := fields[k]
			if !ok {
				*out = append(*out, p)
				continue
			}
			unknownFields(ft, m[k], p, out)
		}
	case reflect.Slice:
		if a, ok := v.([]any); ok && t.Elem().Kind() != reflect.Uint8 {
			for i, e := range a {
				unknownFields(t.Elem(), e, path+"["+strconv.Itoa(i)+"]", out)
			}
		}
	case reflect.Map:
		if m, ok := v.(map[string]any); ok {
			for k, e := range m {
				unknownFields(t.Elem(), e, path+"."+k, out)
			}
		}
	}
}

var fieldCache sync.Map // reflect.Type → map[string]reflect.Type

// jsonFields maps the JSON names of t's fields, including those of inline
// embedded structs, to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]reflect.Type)
	}
	m := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			for k, v := range jsonFields(f.Type) {
				m[k] = v
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = f.Type
	}
	fieldCache.Store(t, m)
	return m
}

// Encode returns obj as a YAML manifest that Decode reads back into an
// equal object. apiVersion and kind are set to obj's current
// GroupVersionKind in the output; obj itself is not changed.
func Encode(obj Object) ([]byte, error) {
	c := obj.DeepCopyObject()
	setTypeMeta(c, c.GroupVersionKind())
	out, err := yaml.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("api: encode %s %q: %w", c.GroupVersionKind().Kind, c.GetObjectMeta().Name, err)
	}
	return out, nil
}

// EncodeAll encodes objs as one YAML stream, documents separated by "---".
func EncodeAll(objs []Object) ([]byte, error) {
	var b bytes.Buffer
	for i, o := range objs {
		if i > 0 {
			b.WriteString("---\n")
		}
		out, err := Encode(o)
		if err != nil {
			return nil, err
		}
		b.Write(out)
	}
	return b.Bytes(), nil
}

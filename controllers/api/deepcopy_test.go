package api

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"
)

var (
	quantityType    = reflect.TypeFor[Quantity]()
	timeType        = reflect.TypeFor[Time]()
	microTimeType   = reflect.TypeFor[MicroTime]()
	intOrStringType = reflect.TypeFor[IntOrString]()
	rawMessageType  = reflect.TypeFor[json.RawMessage]()

	schemaType        = reflect.TypeFor[JSONSchemaProps]()
	orArrayType       = reflect.TypeFor[JSONSchemaPropsOrArray]()
	orBoolType        = reflect.TypeFor[JSONSchemaPropsOrBool]()
	orStringArrayType = reflect.TypeFor[JSONSchemaPropsOrStringArray]()
)

// maxSchemaDepth is how deep filler fills the recursive JSONSchemaProps
// (a schema and the schemas in it); below, schema fields stay nil.
const maxSchemaDepth = 2

// schemaBearing reports whether t, through pointers, slices and maps,
// holds a JSONSchemaProps or one of its union types.
func schemaBearing(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	return t == schemaType || t == orArrayType || t == orBoolType || t == orStringArrayType
}

// unionType reports whether t is a type that holds one of several shapes,
// of which filler fills one.
func unionType(t reflect.Type) bool {
	return t == orArrayType || t == orBoolType || t == orStringArrayType
}

// filler sets every field reachable from a value to a non-zero value that
// survives a JSON round trip; the same sequence of calls gives equal values.
type filler struct {
	n       int
	schemas int // the JSONSchemaProps being filled, outermost first
}

func (f *filler) next() int { f.n++; return f.n }

func (f *filler) fill(v reflect.Value, depth int) {
	if depth > 40 {
		panic("fill: type nesting too deep (a cycle?) at " + v.Type().String())
	}
	switch v.Type() {
	case quantityType:
		v.Set(reflect.ValueOf(MustParse(fmt.Sprintf("%dMi", f.next()))))
		return
	case timeType:
		v.Set(reflect.ValueOf(NewTime(time.Unix(int64(1e9+f.next()), 0).UTC())))
		return
	case microTimeType:
		v.Set(reflect.ValueOf(NewMicroTime(time.Unix(int64(1e9+f.next()), 123456000).UTC())))
		return
	case intOrStringType:
		v.Set(reflect.ValueOf(FromString(fmt.Sprintf("p%d", f.next()))))
		return
	case rawMessageType:
		v.Set(reflect.ValueOf(json.RawMessage(fmt.Sprintf(`{"k":%d}`, f.next()))))
		return
	case schemaType:
		f.schemas++
		defer func() { f.schemas-- }()
	case orArrayType, orStringArrayType, orBoolType:
		// One shape, alternating, so that both are copied somewhere.
		if v.Type() == orBoolType {
			v.Field(0).SetBool(true)
		}
		if f.next()%2 == 0 || v.Type() == orBoolType {
			f.fill(v.FieldByName("Schema"), depth+1)
		} else {
			f.fill(v.Field(1), depth+1)
		}
		return
	}
	if f.schemas >= maxSchemaDepth && v.Kind() != reflect.Struct && schemaBearing(v.Type()) {
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			f.fill(v.Field(i), depth+1)
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		f.fill(v.Elem(), depth+1)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			f.fill(v.Index(i), depth+1)
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for range 2 {
			k := reflect.New(v.Type().Key()).Elem()
			f.fill(k, depth+1)
			e := reflect.New(v.Type().Elem()).Elem()
			f.fill(e, depth+1)
			v.SetMapIndex(k, e)
		}
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", f.next()))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(f.next()))
	case reflect.Uint8:
		v.SetUint(uint64(f.next() % 250))
	case reflect.Float64:
		v.SetFloat(float64(f.next()) + 0.5)
	default:
		panic("fill: unsupported kind " + v.Kind().String() + " of " + v.Type().String())
	}
}

// mutate changes every leaf reachable from v in place: through pointers,
// slice elements and map entries, so that any memory the copy shares with
// the original shows up as a change in the original.
func mutate(v reflect.Value) {
	switch v.Type() {
	case quantityType:
		v.Set(reflect.ValueOf(v.Interface().(Quantity).Add(MustParse("1"))))
		return
	case timeType:
		v.Set(reflect.ValueOf(NewTime(v.Interface().(Time).Add(time.Hour))))
		return
	case microTimeType:
		v.Set(reflect.ValueOf(NewMicroTime(v.Interface().(MicroTime).Add(time.Hour))))
		return
	case intOrStringType:
		v.Set(reflect.ValueOf(FromInt32(7)))
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			mutate(v.Field(i))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			mutate(v.Elem())
		}
	case reflect.Slice:
		for i := range v.Len() {
			mutate(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := v.MapIndex(k)
			if e.Kind() == reflect.Slice {
				mutate(e) // elements of a slice are settable even when the map entry is not
				continue
			}
			c := reflect.New(e.Type()).Elem()
			c.Set(e)
			mutate(c)
			v.SetMapIndex(k, c)
		}
	case reflect.String:
		v.SetString(v.String() + "!")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Uint8:
		v.SetUint(v.Uint() + 1)
	case reflect.Float64:
		v.SetFloat(v.Float() + 1)
	}
}

// zeroPaths lists the paths of zero values reachable from v, proving that
// fill reached every field.
func zeroPaths(v reflect.Value, path string, out *[]string) {
	zeroPathsIn(v, path, 0, out)
}

// zeroPathsIn is zeroPaths inside schemas JSONSchemaProps: below
// maxSchemaDepth of them, and in the shape of a union type that filler
// did not fill, zero values are expected.
func zeroPathsIn(v reflect.Value, path string, schemas int, out *[]string) {
	if v.Type() == schemaType {
		schemas++
	}
	if v.IsZero() {
		if v.Kind() == reflect.Struct && v.NumField() == 0 {
			return // "status: {}" has nothing to fill
		}
		if schemas < maxSchemaDepth || !schemaBearing(v.Type()) {
			*out = append(*out, path)
		}
		return
	}
	switch v.Type() {
	case quantityType, timeType, microTimeType, intOrStringType, rawMessageType:
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if unionType(v.Type()) && v.Field(i).IsZero() {
				continue
			}
			zeroPathsIn(v.Field(i), path+"."+v.Type().Field(i).Name, schemas, out)
		}
	case reflect.Pointer:
		zeroPathsIn(v.Elem(), path, schemas, out)
	case reflect.Slice:
		for i := range v.Len() {
			zeroPathsIn(v.Index(i), fmt.Sprintf("%s[%d]", path, i), schemas, out)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			zeroPathsIn(v.MapIndex(k), fmt.Sprintf("%s[%v]", path, k), schemas, out)
		}
	}
}

func filled(t *testing.T, kind string) Object {
	t.Helper()
	obj, ok := New(kind)
	if !ok {
		t.Fatalf("New(%q) failed", kind)
	}
	new(filler).fill(reflect.ValueOf(obj).Elem(), 0)
	setTypeMeta(obj, obj.GroupVersionKind())
	return obj
}

func TestDeepCopyEveryKind(t *testing.T) {
	for _, gvk := range Kinds() {
		t.Run(gvk.Kind, func(t *testing.T) {
			orig := filled(t, gvk.Kind)
			want := filled(t, gvk.Kind)
			var zeros []string
			zeroPaths(reflect.ValueOf(orig).Elem(), gvk.Kind, &zeros)
			if len(zeros) > 0 {
				t.Fatalf("fill left zero values: %v", zeros)
			}

			cp := orig.DeepCopyObject()
			if reflect.TypeOf(cp) != reflect.TypeOf(orig) {
				t.Fatalf("DeepCopyObject returned %T", cp)
			}
			if !reflect.DeepEqual(cp, orig) {
				t.Fatal("copy differs from the original")
			}
			mutate(reflect.ValueOf(cp).Elem())
			if reflect.DeepEqual(cp, orig) {
				t.Fatal("mutate changed nothing")
			}
			if !reflect.DeepEqual(orig, want) {
				t.Fatal("mutating the copy changed the original: some memory is shared")
			}

			// The typed DeepCopy agrees, and a nil receiver copies to nil.
			m := reflect.ValueOf(orig).MethodByName("DeepCopy")
			if res := m.Call(nil)[0].Interface(); !reflect.DeepEqual(res, orig) {
				t.Error("DeepCopy differs from the original")
			}
			nilRes := reflect.Zero(reflect.TypeOf(orig)).MethodByName("DeepCopy").Call(nil)[0]
			if !nilRes.IsNil() {
				t.Error("DeepCopy of nil is not nil")
			}
		})
	}
}

// TestEncodeEveryField round-trips a fully filled object of every kind
// through YAML, which catches JSON tags that collide or do not decode.
func TestEncodeEveryField(t *testing.T) {
	for _, gvk := range Kinds() {
		t.Run(gvk.Kind, func(t *testing.T) {
			orig := filled(t, gvk.Kind)
			out, err := Encode(orig)
			if err != nil {
				t.Fatal(err)
			}
			back, err := Decode(out, DecodeOptions{})
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if len(back) != 1 || !reflect.DeepEqual(back[0], orig) {
				t.Errorf("round trip differs:\n%s", out)
			}
		})
	}
}

func TestDeepCopyGeneratedUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go tool")
	}
	out, err := exec.Command("go", "run", "./internal/deepcopygen", "-check").CombinedOutput()
	if err != nil {
		t.Fatalf("generated deep copies are stale (run go generate ./controllers/api): %v\n%s", err, strings.TrimSpace(string(out)))
	}
}

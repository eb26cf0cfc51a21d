package jsonequal

import (
	"bytes"
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"sync"
	"unicode/utf8"
)

// maxDepth is how deep the walk goes before it encodes what is left
// (encoding/json detects cycles from 1000 pointers on).
const maxDepth = 500

// result of comparing two sub-values.
type result uint8

const (
	equal result = iota
	unequal
	failed // encoding either would fail: the whole encoding fails
	// deepOnly: the encodings differ (0 and -0) but the values are
	// deeply equal, which Equal's contract makes equal too.
	deepOnly
)

// Equal reports whether a and b are deeply equal or encode to the same
// JSON (see the package documentation).
func Equal(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if !va.IsValid() || !vb.IsValid() || va.Type() != vb.Type() {
		return encodedEqual(a, b) == equal || reflect.DeepEqual(a, b)
	}
	switch compare(va, vb, 0) {
	case equal:
		return true
	case failed, deepOnly:
		return reflect.DeepEqual(a, b)
	}
	return false
}

var (
	stringMapType     = reflect.TypeFor[map[string]string]()
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	isZeroerType      = reflect.TypeFor[interface{ IsZero() bool }]()
)

// opaque reports whether values of t encode through a method of their
// own (encoding/json uses a pointer receiver's when addressable).
func opaque(t reflect.Type) bool {
	if t.Implements(marshalerType) || t.Implements(textMarshalerType) {
		return true
	}
	if t.Kind() != reflect.Pointer {
		p := reflect.PointerTo(t)
		return p.Implements(marshalerType) || p.Implements(textMarshalerType)
	}
	return false
}

var opaqueCache sync.Map // reflect.Type → bool

func isOpaque(t reflect.Type) bool {
	if v, ok := opaqueCache.Load(t); ok {
		return v.(bool)
	}
	o := opaque(t)
	opaqueCache.Store(t, o)
	return o
}

// compare compares a and b, of one type.
func compare(a, b reflect.Value, depth int) result {
	if depth > maxDepth {
		return encodedValues(a, b)
	}
	t := a.Type()
	if isOpaque(t) {
		if reflect.DeepEqual(iface(a), iface(b)) {
			return equal
		}
		return encodedValues(a, b)
	}
	switch t.Kind() {
	case reflect.Bool:
		return is(a.Bool() == b.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return is(a.Int() == b.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return is(a.Uint() == b.Uint())
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
			return failed
		}
		// Distinct floats encode distinctly; 0 and -0 too, though
		// they are deeply equal.
		switch {
		case x != y:
			return unequal
		case math.Signbit(x) != math.Signbit(y):
			return deepOnly
		}
		return equal
	case reflect.String:
		return compareStrings(a, b)
	case reflect.Pointer:
		switch {
		case a.IsNil() && b.IsNil():
			return equal
		case a.IsNil() || b.IsNil():
			return encodedValues(a, b) // a non-nil pointer may encode as null
		case a.Pointer() == b.Pointer():
			return equal
		}
		return compare(a.Elem(), b.Elem(), depth+1)
	case reflect.Interface:
		switch {
		case a.IsNil() && b.IsNil():
			return equal
		case a.IsNil() || b.IsNil() || a.Elem().Type() != b.Elem().Type():
			return encodedValues(a, b)
		}
		return compare(a.Elem(), b.Elem(), depth+1)
	case reflect.Slice:
		if a.IsNil() != b.IsNil() {
			return unequal // null against [] or ""
		}
		if t.Elem().Kind() == reflect.Uint8 && !isOpaque(t.Elem()) {
			return is(bytes.Equal(a.Bytes(), b.Bytes())) // base64
		}
		fallthrough
	case reflect.Array:
		if a.Len() != b.Len() {
			return unequal
		}
		if t.Kind() == reflect.Slice && a.UnsafePointer() == b.UnsafePointer() {
			return equal // the same backing array
		}
		for i := range a.Len() {
			if r := compare(a.Index(i), b.Index(i), depth+1); r != equal {
				return r
			}
		}
		return equal
	case reflect.Map:
		return compareMaps(a, b, depth)
	case reflect.Struct:
		return compareStructs(a, b, depth)
	}
	return failed // complex numbers, channels, functions, unsafe pointers
}

func is(eq bool) result {
	if eq {
		return equal
	}
	return unequal
}

func compareStrings(a, b reflect.Value) result {
	x, y := a.String(), b.String()
	if x == y {
		return equal
	}
	if utf8.ValidString(x) && utf8.ValidString(y) {
		return unequal
	}
	return encodedValues(a, b)
}

func compareMaps(a, b reflect.Value, depth int) result {
	t := a.Type()
	if t.Key().Kind() != reflect.String {
		return encodedValues(a, b) // keys encoded through their text form
	}
	if a.IsNil() != b.IsNil() {
		return unequal // null against {}
	}
	if a.Len() != b.Len() {
		return unequal
	}
	if a.Len() == 0 || a.UnsafePointer() == b.UnsafePointer() {
		return equal
	}
	if t == stringMapType && a.CanInterface() {
		// Labels and annotations: without reflect's map iterator,
		// which allocates.
		x, y := a.Interface().(map[string]string), b.Interface().(map[string]string)
		for k, v := range x {
			w, ok := y[k]
			switch {
			case !ok && (!validKeys(a) || !validKeys(b)):
				return encodedValues(a, b)
			case !ok:
				return unequal
			case v != w && (!utf8.ValidString(v) || !utf8.ValidString(w)):
				return encodedValues(a, b)
			case v != w:
				return unequal
			}
		}
		return equal
	}
	it := a.MapRange()
	for it.Next() {
		bv := b.MapIndex(it.Key())
		if !bv.IsValid() {
			if validKeys(a) && validKeys(b) {
				return unequal
			}
			return encodedValues(a, b)
		}
		if r := compare(it.Value(), bv, depth+1); r != equal {
			return r
		}
	}
	return equal
}

func validKeys(m reflect.Value) bool {
	it := m.MapRange()
	for it.Next() {
		if !utf8.ValidString(it.Key().String()) {
			return false
		}
	}
	return true
}

func compareStructs(a, b reflect.Value, depth int) result {
	info := fieldsOf(a.Type())
	if info.whole {
		return encodedValues(a, b)
	}
	for i := range info.fields {
		f := &info.fields[i]
		fa, fb := a.FieldByIndex(f.index), b.FieldByIndex(f.index)
		if f.omitEmpty || f.omitZero {
			oa, ob := f.omitted(fa), f.omitted(fb)
			if oa != ob {
				return unequal
			}
			if oa {
				continue
			}
		}
		if r := compare(fa, fb, depth+1); r != equal {
			return r
		}
	}
	return equal
}

// iface returns v as an interface, through its address when it has one
// (so that a pointer receiver's MarshalJSON is used, as encoding/json
// does for an addressable value).
func iface(v reflect.Value) any {
	if v.CanAddr() {
		return v.Addr().Interface()
	}
	return v.Interface()
}

// encodedValues compares the encodings of two sub-values.
func encodedValues(a, b reflect.Value) result {
	return encodedEqual(iface(a), iface(b))
}

func encodedEqual(a, b any) result {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		return failed
	}
	return is(bytes.Equal(ja, jb))
}

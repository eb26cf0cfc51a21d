package jsonequal

import (
	"reflect"
	"strings"
	"sync"
	"unicode"
)

// structInfo is what encoding/json writes of a struct type.
type structInfo struct {
	fields []fieldInfo
	// whole: the type's embedded fields are resolved by encoding/json's
	// conflict rules (or through a pointer); compare its encodings.
	whole bool
}

// fieldInfo is one field encoding/json writes.
type fieldInfo struct {
	index     []int
	omitEmpty bool
	omitZero  bool
	isZero    func(reflect.Value) bool // the type's IsZero, if it has one
}

// omitted reports whether encoding/json leaves v (this field) out.
func (f *fieldInfo) omitted(v reflect.Value) bool {
	if f.omitEmpty && isEmptyValue(v) {
		return true
	}
	if !f.omitZero {
		return false
	}
	if f.isZero != nil {
		return f.isZero(v)
	}
	return v.IsZero()
}

// isEmptyValue is encoding/json's omitempty test.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64,
		reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

type isZeroer interface{ IsZero() bool }

// zeroFunc returns the IsZero test encoding/json's omitzero uses for a
// field of type t, or nil for reflect's zero value test.
func zeroFunc(t reflect.Type) func(reflect.Value) bool {
	switch {
	case t.Kind() == reflect.Interface && t.Implements(isZeroerType):
		return func(v reflect.Value) bool {
			return v.IsNil() || (v.Elem().Kind() == reflect.Pointer && v.Elem().IsNil()) || v.Interface().(isZeroer).IsZero()
		}
	case t.Kind() == reflect.Pointer && t.Implements(isZeroerType):
		return func(v reflect.Value) bool { return v.IsNil() || v.Interface().(isZeroer).IsZero() }
	case t.Implements(isZeroerType):
		return func(v reflect.Value) bool { return iface(v).(isZeroer).IsZero() }
	case reflect.PointerTo(t).Implements(isZeroerType):
		return func(v reflect.Value) bool {
			if !v.CanAddr() {
				v2 := reflect.New(v.Type()).Elem()
				v2.Set(v)
				v = v2
			}
			return v.Addr().Interface().(isZeroer).IsZero()
		}
	}
	return nil
}

var fieldCache sync.Map // reflect.Type → *structInfo

func fieldsOf(t reflect.Type) *structInfo {
	if v, ok := fieldCache.Load(t); ok {
		return v.(*structInfo)
	}
	info := &structInfo{}
	names := map[string]bool{}
	if !collect(t, nil, info, names) {
		info = &structInfo{whole: true}
	}
	v, _ := fieldCache.LoadOrStore(t, info)
	return v.(*structInfo)
}

// collect adds the fields of struct type t (at index prefix) to info,
// flattening embedded structs as encoding/json does. It returns false
// when a name repeats (encoding/json would pick the dominant field or
// drop both) or an embedded struct is reached through a pointer (nil
// pointers skip its fields): the struct is then compared encoded.
func collect(t reflect.Type, prefix []int, info *structInfo, names map[string]bool) bool {
	for i := range t.NumField() {
		sf := t.Field(i)
		ft := sf.Type
		if sf.Anonymous {
			et := ft
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if !sf.IsExported() && et.Kind() != reflect.Struct {
				continue
			}
		} else if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !validTag(name) {
			name = ""
		}
		index := append(append([]int(nil), prefix...), i)
		if name == "" && sf.Anonymous {
			if ft.Kind() == reflect.Pointer {
				if ft.Elem().Kind() == reflect.Struct {
					return false
				}
			} else if ft.Kind() == reflect.Struct {
				if !collect(ft, index, info, names) {
					return false
				}
				continue
			}
		}
		if name == "" {
			name = sf.Name
		}
		if names[name] {
			return false
		}
		names[name] = true
		f := fieldInfo{index: index}
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "omitempty":
				f.omitEmpty = true
			case "omitzero":
				f.omitZero = true
			}
		}
		if f.omitZero {
			f.isZero = zeroFunc(ft)
		}
		info.fields = append(info.fields, f)
	}
	return true
}

// validTag is encoding/json's test of a tag's name.
func validTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

package api

import "reflect"

// DeepCopyOf returns a deep copy of obj made by reflection: pointers,
// slices, maps and the exported fields of structs are copied all the way
// down; unexported fields are copied by value (the values this package
// keeps in them, a Quantity's number or a Time's location, are never
// changed in place). It is the DeepCopyObject of a kind added with
// Register that has no generated deep copy:
//
//	func (w *Widget) DeepCopyObject() api.Object { return api.DeepCopyOf(w) }
//
// Generated copies are faster; this one needs no code generation.
func DeepCopyOf[T any](obj T) T {
	v := reflect.ValueOf(&obj).Elem()
	out := reflect.New(v.Type()).Elem()
	copyValue(out, v)
	return out.Interface().(T)
}

// copyValue sets dst, a settable zero value of src's type, to a deep copy
// of src.
func copyValue(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		p := reflect.New(src.Type().Elem())
		copyValue(p.Elem(), src.Elem())
		dst.Set(p)
	case reflect.Interface:
		if src.IsNil() {
			return
		}
		e := reflect.New(src.Elem().Type()).Elem()
		copyValue(e, src.Elem())
		dst.Set(e)
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		for i := range src.Len() {
			copyValue(s.Index(i), src.Index(i))
		}
		dst.Set(s)
	case reflect.Array:
		for i := range src.Len() {
			copyValue(dst.Index(i), src.Index(i))
		}
	case reflect.Map:
		if src.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		for it := src.MapRange(); it.Next(); {
			k := reflect.New(src.Type().Key()).Elem()
			copyValue(k, it.Key())
			e := reflect.New(src.Type().Elem()).Elem()
			copyValue(e, it.Value())
			m.SetMapIndex(k, e)
		}
		dst.Set(m)
	case reflect.Struct:
		dst.Set(src) // unexported fields by value
		t := src.Type()
		for i := range src.NumField() {
			if t.Field(i).IsExported() {
				f := dst.Field(i)
				f.SetZero()
				copyValue(f, src.Field(i))
			}
		}
	default:
		dst.Set(src)
	}
}

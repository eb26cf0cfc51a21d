package leader

import "reflect"

// isNil reports whether v is nil or holds a nil pointer or func: a typed
// nil that compares unequal to nil as an interface but panics when used.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Func:
		return rv.IsNil()
	}
	return false
}

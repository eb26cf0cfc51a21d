package apiextensions

import (
	"fmt"
	"strings"
)

// ReadPath returns the value at the simple JSON path path (".spec.replicas":
// dot-separated keys, what scale subresource paths and selectable fields
// are) in obj, and whether it is there (a null value is there). A path
// that does not start with "." is never there; "." is obj itself.
func ReadPath(obj map[string]any, path string) (any, bool) {
	keys, ok := splitSimplePath(path)
	if !ok {
		return nil, false
	}
	var cur any = obj
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// WritePath sets the value at the simple JSON path path in obj, creating
// the maps missing on the way (unstructured.SetNestedField). It fails,
// changing nothing, when path is not a simple path below the root or a
// value on the way is not a map.
func WritePath(obj map[string]any, path string, value any) error {
	keys, ok := splitSimplePath(path)
	if !ok || len(keys) == 0 {
		return fmt.Errorf("apiextensions: %q is not a simple json path below the root", path)
	}
	m := obj
	for i, k := range keys[:len(keys)-1] {
		next, ok := m[k]
		if !ok || next == nil {
			// Nothing below can fail: create the missing maps.
			for _, k := range keys[i : len(keys)-1] {
				child := map[string]any{}
				m[k] = child
				m = child
			}
			break
		}
		child, ok := next.(map[string]any)
		if !ok {
			return fmt.Errorf("apiextensions: value cannot be set because %s is not a map[string]interface{}", "."+strings.Join(keys[:i+1], "."))
		}
		m = child
	}
	m[keys[len(keys)-1]] = value
	return nil
}

// splitSimplePath splits ".a.b" into a and b; "." is no keys.
func splitSimplePath(path string) ([]string, bool) {
	if path == "." {
		return nil, true
	}
	if !strings.HasPrefix(path, ".") {
		return nil, false
	}
	keys := strings.Split(path[1:], ".")
	for _, k := range keys {
		if k == "" {
			return nil, false
		}
	}
	return keys, true
}

package apiextensions

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Field paths as kube's field.Path writes them: ".name" for a property,
// "[key]" for a map key, "[i]" for an index.
func childPath(p, k string) string {
	if p == "" {
		return k
	}
	return p + "." + k
}

func keyPath(p, k string) string       { return p + "[" + k + "]" }
func indexPath(p string, i int) string { return fmt.Sprintf("%s[%d]", p, i) }

// listSetsAndMaps reports the duplicates of x-kubernetes-list-type set and
// map lists below data (apiextensions-apiserver's listtype validation).
func listSetsAndMaps(n *node, data any, path string) []api.FieldError {
	if n == nil {
		return nil
	}
	var errs []api.FieldError
	switch d := data.(type) {
	case map[string]any:
		for _, k := range sortedKeys(d) {
			if p, ok := n.properties[k]; ok {
				errs = append(errs, listSetsAndMaps(p, d[k], childPath(path, k))...)
			} else if n.additional != nil {
				errs = append(errs, listSetsAndMaps(n.additional, d[k], keyPath(path, k))...)
			}
		}
	case []any:
		switch n.listType {
		case "set":
			for _, i := range duplicates(d) {
				errs = append(errs, api.FieldError{Type: api.FieldDuplicate, Field: indexPath(path, i), Value: formatValue(d[i])})
			}
		case "map":
			errs = append(errs, listMapDuplicates(n, d, path)...)
		}
		for i, v := range d {
			errs = append(errs, listSetsAndMaps(n.items, v, indexPath(path, i))...)
		}
	}
	return errs
}

// duplicates returns the index of the second occurrence of each value that
// occurs more than once.
func duplicates(list []any) []int {
	seen := make(map[string]int, len(list))
	var out []int
	for i, v := range list {
		k := identity(v)
		seen[k]++
		if seen[k] == 2 {
			out = append(out, i)
		}
	}
	return out
}

// identity is a comparable key of a JSON value: its type and encoding
// (numbers of different types differ, as scalars do in kube's map).
func identity(v any) string {
	b, _ := json.Marshal(v)
	return fmt.Sprintf("%T:%s", v, b)
}

type unsetKey struct{}

func listMapDuplicates(n *node, list []any, path string) []api.FieldError {
	for i, x := range list {
		if _, ok := x.(map[string]any); x != nil && !ok {
			return []api.FieldError{{Type: api.FieldInvalid, Field: indexPath(path, i), Value: formatValue(x), Detail: "must be an object for an array of list-type map"}}
		}
	}
	if len(list) <= 1 {
		return nil
	}
	keys := make([]any, len(list))
	for i, x := range list {
		m, _ := x.(map[string]any)
		if len(n.listMapKeys) == 1 {
			if v, ok := m[n.listMapKeys[0]]; ok {
				keys[i] = v
			} else {
				keys[i] = unsetKey{}
			}
			continue
		}
		key := map[string]any{}
		for _, k := range n.listMapKeys {
			if v, ok := m[k]; ok {
				key[k] = v
			}
		}
		keys[i] = key
	}
	var errs []api.FieldError
	for _, i := range duplicates(keys) {
		value := keys[i]
		if len(n.listMapKeys) == 1 {
			if _, unset := value.(unsetKey); unset {
				value = map[string]any{}
			} else {
				value = map[string]any{n.listMapKeys[0]: value}
			}
		}
		errs = append(errs, api.FieldError{Type: api.FieldDuplicate, Field: indexPath(path, i), Value: formatValue(value)})
	}
	return errs
}

// embeddedResources checks the apiVersion, kind and metadata of every
// x-kubernetes-embedded-resource object below data (apiextensions-apiserver's
// objectmeta validation). Of metadata it checks the shape and the name; kube
// also validates labels, annotations and the other ObjectMeta fields there.
func embeddedResources(n *node, data any, path string) []api.FieldError {
	if n == nil {
		return nil
	}
	var errs []api.FieldError
	switch d := data.(type) {
	case map[string]any:
		if n.embedded {
			errs = append(errs, embeddedResource(d, path)...)
		}
		for _, k := range sortedKeys(d) {
			if p, ok := n.properties[k]; ok {
				errs = append(errs, embeddedResources(p, d[k], childPath(path, k))...)
			} else if n.additional != nil {
				errs = append(errs, embeddedResources(n.additional, d[k], keyPath(path, k))...)
			}
		}
	case []any:
		for i, v := range d {
			errs = append(errs, embeddedResources(n.items, v, indexPath(path, i))...)
		}
	}
	return errs
}

func embeddedResource(x map[string]any, path string) []api.FieldError {
	var errs []api.FieldError
	bad := func(field string, v any, detail string) {
		errs = append(errs, api.FieldError{Type: api.FieldInvalid, Field: childPath(path, field), Value: formatValue(v), Detail: detail})
	}
	for _, f := range []string{"apiVersion", "kind"} {
		if _, ok := x[f]; !ok {
			errs = append(errs, api.FieldError{Type: api.FieldRequired, Field: childPath(path, f)})
		}
	}
	if v, ok := x["apiVersion"]; ok {
		s, isString := v.(string)
		switch {
		case !isString:
			bad("apiVersion", v, "must be a string")
		case s == "":
			bad("apiVersion", s, "must not be empty")
		case strings.Count(s, "/") > 1:
			bad("apiVersion", s, fmt.Sprintf("unexpected GroupVersion string: %s", s))
		}
	}
	if v, ok := x["kind"]; ok {
		s, isString := v.(string)
		switch {
		case !isString:
			bad("kind", v, "must be a string")
		case s == "":
			bad("kind", s, "must not be empty")
		default:
			if msgs := dns1035Label(strings.ToLower(s)); len(msgs) > 0 {
				bad("kind", s, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ","))
			}
		}
	}
	if v, ok := x["metadata"]; ok && v != nil {
		errs = append(errs, embeddedMetadata(v, childPath(path, "metadata"))...)
	}
	return errs
}

// dns1035Label returns why s is not a DNS-1035 label.
func dns1035Label(s string) []string {
	var msgs []string
	if len(s) > 63 {
		msgs = append(msgs, "must be no more than 63 characters")
	}
	ok := s != "" && s[0] >= 'a' && s[0] <= 'z'
	for i := 0; ok && i < len(s); i++ {
		c := s[i]
		ok = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-'
	}
	if ok && s[len(s)-1] == '-' {
		ok = false
	}
	if !ok {
		msgs = append(msgs, "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")
	}
	return msgs
}

// jsonKind names a JSON value's kind as encoding/json's errors do.
func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "bool"
	case int64, float64:
		return "number"
	}
	return "object"
}

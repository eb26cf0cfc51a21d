package apiextensions

import (
	"slices"
	"strconv"
)

// metaFields are kept, unvisited, at the root and in embedded resources;
// the API server handles them.
func metaField(k string) bool { return k == "apiVersion" || k == "kind" || k == "metadata" }

// Prune removes in place every field the schema does not specify (kube's
// structural pruning: nothing under x-kubernetes-preserve-unknown-fields is
// removed unless a property below says otherwise; apiVersion, kind and
// metadata are kept at the root and in embedded resources) and returns the
// JSON paths it removed ("spec.foo", "spec.items[0].bar"), sorted, for the
// API server's fieldValidation=Strict/Warn (kube: `unknown field
// "spec.foo"`).
func (s *Schema) Prune(obj map[string]any) []string {
	root := *s.root
	root.embedded = true // the object is a resource: its meta fields stay
	var removed []string
	prune(obj, &root, "", &removed)
	slices.Sort(removed)
	return removed
}

func joinKey(parent, k string) string {
	if parent == "" {
		return k
	}
	return parent + "." + k
}

func prune(x any, n *node, path string, removed *[]string) {
	if n != nil && n.preserveUnknown {
		pruneBelowPreserved(x, n, path, removed)
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if n != nil && n.embedded && metaField(k) {
				continue
			}
			if n != nil {
				if p, ok := n.properties[k]; ok {
					prune(x[k], p, joinKey(path, k), removed)
					continue
				}
				if n.additional != nil {
					prune(x[k], n.additional, joinKey(path, k), removed)
					continue
				}
			}
			*removed = append(*removed, joinKey(path, k))
			delete(x, k)
		}
	case []any:
		var items *node
		if n != nil {
			items = n.items
		}
		for i, v := range x {
			prune(v, items, path+"["+strconv.Itoa(i)+"]", removed)
		}
	}
}

// pruneBelowPreserved keeps unknown fields but prunes inside the
// properties and additionalProperties the schema does specify.
func pruneBelowPreserved(x any, n *node, path string, removed *[]string) {
	switch x := x.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if n.embedded && metaField(k) {
				continue
			}
			if p, ok := n.properties[k]; ok {
				prune(x[k], p, joinKey(path, k), removed)
			} else if n.additional != nil {
				prune(x[k], n.additional, joinKey(path, k), removed)
			}
		}
	case []any:
		if n.items == nil {
			return
		}
		for i, v := range x {
			pruneBelowPreserved(v, n.items, path+"["+strconv.Itoa(i)+"]", removed)
		}
	}
}

// Default sets in place the schema's defaults of absent fields, as kube
// does when reading and writing a custom resource (structural defaulting):
// first a null where the schema neither allows null (nullable) nor has a
// default is dropped, then each absent property with a default, and each
// null of a non-nullable property, additionalProperties value or array
// item that has one, gets a copy of the default; defaulting then goes on
// inside the values.
func (s *Schema) Default(obj map[string]any) {
	dropNulls(obj, s.root)
	applyDefaults(obj, s.root)
}

// childSchema is the schema of a map's key k: its property, else
// additionalProperties.
func childSchema(n *node, k string) *node {
	if n == nil {
		return nil
	}
	if p, ok := n.properties[k]; ok {
		return p
	}
	return n.additional
}

func dropNulls(x any, n *node) {
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			c := childSchema(n, k)
			if v == nil && c != nil && !c.nullable && !c.hasDef {
				delete(x, k)
				continue
			}
			dropNulls(v, c)
		}
	case []any:
		var items *node
		if n != nil {
			items = n.items
		}
		for _, v := range x {
			dropNulls(v, items)
		}
	}
}

func nonNullableNull(v any, n *node) bool { return v == nil && n != nil && !n.nullable }

func applyDefaults(x any, n *node) {
	if n == nil {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for k, p := range n.properties {
			if !p.hasDef {
				continue
			}
			if v, ok := x[k]; !ok || nonNullableNull(v, p) {
				x[k] = deepCopyJSON(p.def)
			}
		}
		for k := range x {
			if p, ok := n.properties[k]; ok {
				applyDefaults(x[k], p)
			} else if a := n.additional; a != nil {
				if nonNullableNull(x[k], a) && a.hasDef {
					x[k] = deepCopyJSON(a.def)
				}
				applyDefaults(x[k], a)
			}
		}
	case []any:
		for i := range x {
			if it := n.items; nonNullableNull(x[i], it) && it.hasDef {
				x[i] = deepCopyJSON(it.def)
			}
			applyDefaults(x[i], n.items)
		}
	}
}

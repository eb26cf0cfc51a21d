package patch

import "reflect"

// FieldStrategy returns the patchStrategy ("merge", "retainKeys",
// "merge,retainKeys", "replace") and patchMergeKey of the field of JSON
// name field of t, a struct type of controllers/api (or a pointer to
// one), as strategic merge patches apply them and kube-apiserver's
// OpenAPI documents publish them (x-kubernetes-patch-strategy,
// x-kubernetes-patch-merge-key); empty strings for a field without them.
func FieldStrategy(t reflect.Type, field string) (strategy, mergeKey string) {
	t = deref(t)
	if t == nil || t.Kind() != reflect.Struct {
		return "", ""
	}
	f, ok := fieldsOf(t)[field]
	if !ok {
		return "", ""
	}
	return f.strategy.strategy, f.strategy.mergeKey
}

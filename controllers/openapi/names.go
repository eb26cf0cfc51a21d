package openapi

import (
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

var apiPkg = reflect.TypeFor[api.Pod]().PkgPath()

// metaTypes are the types of controllers/api that Kubernetes declares in
// k8s.io/apimachinery/pkg/apis/meta/v1.
var metaTypes = []string{
	"ObjectMeta", "ListMeta", "OwnerReference", "ManagedFieldsEntry", "Condition", "Time", "MicroTime",
	"LabelSelector", "LabelSelectorRequirement", "Status", "StatusDetails", "StatusCause", "Patch",
}

const metaPrefix = "io.k8s.apimachinery.pkg.apis.meta.v1."

// packageOf is the Java-style package that names the definitions of a
// group version: "io.k8s.api.apps.v1" for apps/v1 and the other groups
// of k8s.io/api, io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1
// for CustomResourceDefinitions, and the reversed group for the others
// ("com.example.v1" for example.com/v1), as kube-apiserver names a
// CustomResourceDefinition's schema.
func packageOf(group, version string) string {
	switch {
	case group == "":
		return "io.k8s.api.core." + version
	case group == "apiextensions.k8s.io":
		return "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions." + version
	case !strings.Contains(group, "."):
		return "io.k8s.api." + group + "." + version
	case strings.HasSuffix(group, ".k8s.io") && strings.Count(group, ".") == 2:
		return "io.k8s.api." + strings.TrimSuffix(group, ".k8s.io") + "." + version
	}
	parts := strings.Split(group, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".") + "." + version
}

// builtinNames names the definition of every struct type of
// controllers/api that a built-in kind reaches: a kind by its group
// version; apimachinery's types (ObjectMeta, Time, Quantity, ...) by
// their package; any other type by the group version of the kinds that
// reach it, core/v1 when kinds of several groups do (where Kubernetes
// keeps its shared types: PodTemplateSpec, ResourceRequirements, ...),
// else the first of them in registration order.
var builtinNames = sync.OnceValue(func() map[reflect.Type]string {
	reached := map[reflect.Type][]string{} // type → packages, in order
	var order []reflect.Type
	var walk func(t reflect.Type, pkg string)
	walk = func(t reflect.Type, pkg string) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map || t.Kind() == reflect.Array {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || t.PkgPath() != apiPkg || t.Name() == "" {
			return
		}
		if slices.Contains(reached[t], pkg) {
			return
		}
		if reached[t] == nil {
			order = append(order, t)
		}
		reached[t] = append(reached[t], pkg)
		for f := range t.Fields() {
			walk(f.Type, pkg)
		}
	}
	names := map[reflect.Type]string{}
	for _, k := range api.Registered() {
		if !api.IsBuiltin(k.GroupVersionKind) {
			continue
		}
		t := k.GoType().Elem()
		names[t] = packageOf(k.Group, k.Version) + "." + k.Kind
		walk(t, packageOf(k.Group, k.Version))
	}
	for _, t := range order {
		if names[t] != "" {
			continue
		}
		pkgs := reached[t]
		switch {
		case slices.Contains(metaTypes, t.Name()):
			names[t] = metaPrefix + t.Name()
		case t == reflect.TypeFor[api.Quantity]():
			names[t] = "io.k8s.apimachinery.pkg.api.resource.Quantity"
		case t == reflect.TypeFor[api.IntOrString]():
			names[t] = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
		case len(pkgs) > 1 && slices.Contains(pkgs, "io.k8s.api.core.v1"):
			names[t] = "io.k8s.api.core.v1." + t.Name()
		default:
			names[t] = pkgs[0] + "." + t.Name()
		}
	}
	return names
})

// convertedNames names the types of the versions a server serves
// converted over the store of another (package apiserver's converted.go),
// as Kubernetes names them in their own group version.
var convertedNames = map[reflect.Type]string{
	reflect.TypeFor[api.HorizontalPodAutoscalerV1]():       "io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler",
	reflect.TypeFor[api.HorizontalPodAutoscalerSpecV1]():   "io.k8s.api.autoscaling.v1.HorizontalPodAutoscalerSpec",
	reflect.TypeFor[api.HorizontalPodAutoscalerStatusV1](): "io.k8s.api.autoscaling.v1.HorizontalPodAutoscalerStatus",
}

// nameFunc is the definition name of a struct type: a built-in one's as
// builtinNames says, another's in pkg (the package of the kind that
// reaches it); "" for a type that is not a struct (inlined).
func nameFunc(pkg string) func(reflect.Type) string {
	return func(t reflect.Type) string {
		if n, ok := builtinNames()[t]; ok {
			return n
		}
		if n, ok := convertedNames[t]; ok {
			return n
		}
		if t.Kind() != reflect.Struct || t.Name() == "" {
			return ""
		}
		if t.PkgPath() == apiPkg {
			return "io.k8s.api.core.v1." + t.Name()
		}
		return pkg + "." + t.Name()
	}
}

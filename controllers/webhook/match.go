package webhook

import (
	"context"
	"reflect"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// ruleMatches is kube-apiserver's rules.Matcher: the operation, group,
// version, resource and subresource, and scope of a all match r.
func ruleMatches(r *api.RuleWithOperations, a admission.Attributes) bool {
	return matchOp(r.Operations, a.Operation) &&
		matchAny(r.APIGroups, a.Kind.Group) &&
		matchAny(r.APIVersions, a.Kind.Version) &&
		matchResource(r.Resources, a.Resource, a.Subresource) &&
		matchScope(r.Scope, a)
}

func matchOp(ops []api.OperationType, op admission.Operation) bool {
	for _, o := range ops {
		if o == api.OperationAll || string(o) == string(op) {
			return true
		}
	}
	return false
}

func matchAny(list []string, v string) bool {
	for _, x := range list {
		if x == "*" || x == v {
			return true
		}
	}
	return false
}

// matchResource matches "res", "res/sub", "res/*", "*/sub", "*" (every
// resource, no subresource) and "*/*" (everything).
func matchResource(list []string, resource, sub string) bool {
	for _, x := range list {
		res, s, _ := strings.Cut(x, "/")
		if (res == "*" || res == resource) && (s == "*" || s == sub) {
			return true
		}
	}
	return false
}

// matchScope: Namespaced matches objects in a namespace (never a
// Namespace), Cluster matches cluster-scoped objects and Namespaces.
func matchScope(scope *api.ScopeType, a admission.Attributes) bool {
	if scope == nil || *scope == api.AllScopes {
		return true
	}
	isNamespace := a.Kind.Group == "" && a.Kind.Kind == "Namespace"
	switch *scope {
	case api.NamespacedScope:
		return !isNamespace && a.Namespace != ""
	case api.ClusterScope:
		return isNamespace || a.Namespace == ""
	}
	return false
}

// matchNamespace is kube-apiserver's namespace matcher: a cluster-scoped
// object other than a Namespace always matches; a Namespace is matched by
// its own labels (the old object's when there is no new one); any other
// object by its namespace's.
func matchNamespace(ctx context.Context, sel *api.LabelSelector, a admission.Attributes, ns *labelsOnce) (bool, error) {
	isNamespace := a.Kind.Group == "" && a.Kind.Kind == "Namespace"
	if a.Namespace == "" && !isNamespace {
		return true, nil
	}
	s, err := selector(sel)
	if err != nil || s.Empty() {
		return err == nil, err
	}
	var labels map[string]string
	switch {
	case isNamespace && present(a.Object):
		labels = a.Object.GetObjectMeta().Labels
	case isNamespace && present(a.OldObject):
		labels = a.OldObject.GetObjectMeta().Labels
	case ns == nil:
		return false, nil
	default:
		if labels, err = ns.get(ctx, a.Namespace); err != nil {
			return false, err
		}
	}
	return s.Matches(labels), nil
}

// matchObject is kube-apiserver's object matcher: the new or the old
// object's labels match.
func matchObject(sel *api.LabelSelector, a admission.Attributes) (bool, error) {
	s, err := selector(sel)
	if err != nil || s.Empty() {
		return err == nil, err
	}
	return present(a.Object) && s.Matches(a.Object.GetObjectMeta().Labels) ||
		present(a.OldObject) && s.Matches(a.OldObject.GetObjectMeta().Labels), nil
}

// selector parses a webhook's selector; nil (a configuration stored
// before defaulting) selects everything, as the default does.
func selector(sel *api.LabelSelector) (api.Selector, error) {
	if sel == nil {
		sel = &api.LabelSelector{}
	}
	return sel.AsSelector()
}

func present(obj api.Object) bool { return obj != nil && !reflect.ValueOf(obj).IsNil() }

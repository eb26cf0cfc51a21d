package cluster

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Defaulting and validation of the rbac.authorization.k8s.io kinds, as
// kube-apiserver's pkg/apis/rbac/v1 defaults and
// pkg/apis/rbac/validation check them: the same field paths, error types
// and messages.

func roleKind() *kind[*api.Role] {
	k := newKind[*api.Role]()
	k.validate = func(r *api.Role, fs *fieldErrors) { validatePolicyRules(fs, r.Rules, true) }
	return k
}

func clusterRoleKind() *kind[*api.ClusterRole] {
	k := newKind[*api.ClusterRole]()
	k.validate = func(r *api.ClusterRole, fs *fieldErrors) {
		validatePolicyRules(fs, r.Rules, false)
		if a := r.AggregationRule; a != nil {
			if len(a.ClusterRoleSelectors) == 0 {
				fs.required("aggregationRule.clusterRoleSelectors", "at least one clusterRoleSelector required if aggregationRule is non-nil")
			}
			for i := range a.ClusterRoleSelectors {
				validateLabelSelector(fs, fmt.Sprintf("aggregationRule.clusterRoleSelectors[%d]", i), &a.ClusterRoleSelectors[i])
			}
		}
	}
	return k
}

func roleBindingKind() *kind[*api.RoleBinding] {
	k := newKind[*api.RoleBinding]()
	k.defaults = func(b *api.RoleBinding) { defaultRoleBinding(&b.RoleRef, b.Subjects) }
	k.validate = func(b *api.RoleBinding, fs *fieldErrors) {
		validateRoleRef(fs, b.RoleRef, []string{"Role", "ClusterRole"})
		validateSubjects(fs, b.Subjects, true)
	}
	k.validateUpdate = func(old, cur *api.RoleBinding, fs *fieldErrors) {
		if old.RoleRef != cur.RoleRef {
			fs.invalid("roleRef", fmt.Sprintf("%+v", cur.RoleRef), "cannot change roleRef")
		}
	}
	return k
}

func clusterRoleBindingKind() *kind[*api.ClusterRoleBinding] {
	k := newKind[*api.ClusterRoleBinding]()
	k.defaults = func(b *api.ClusterRoleBinding) { defaultRoleBinding(&b.RoleRef, b.Subjects) }
	k.validate = func(b *api.ClusterRoleBinding, fs *fieldErrors) {
		validateRoleRef(fs, b.RoleRef, []string{"ClusterRole"})
		validateSubjects(fs, b.Subjects, false)
	}
	k.validateUpdate = func(old, cur *api.ClusterRoleBinding, fs *fieldErrors) {
		if old.RoleRef != cur.RoleRef {
			fs.invalid("roleRef", fmt.Sprintf("%+v", cur.RoleRef), "cannot change roleRef")
		}
	}
	return k
}

// defaultRoleBinding sets the API group of a role reference and of User
// and Group subjects when empty (SetDefaults_RoleBinding, SetDefaults_Subject).
func defaultRoleBinding(ref *api.RoleRef, subjects []api.Subject) {
	if ref.APIGroup == "" {
		ref.APIGroup = api.RBACGroup
	}
	for i := range subjects {
		s := &subjects[i]
		if s.APIGroup == "" && (s.Kind == api.UserKind || s.Kind == api.GroupKind) {
			s.APIGroup = api.RBACGroup
		}
	}
}

// checkPathSegmentName checks an RBAC name (ValidateRBACName: a valid
// path segment, so "system:basic-user" is one).
func checkPathSegmentName(fs *fieldErrors, path, name string) {
	if msg := pathSegmentNameError(name); msg != "" {
		fs.invalid(path, name, msg)
	}
}

func pathSegmentNameError(name string) string {
	switch {
	case name == "." || name == "..":
		return fmt.Sprintf("may not be '%s'", name)
	case strings.Contains(name, "/"):
		return "may not contain '/'"
	case strings.Contains(name, "%"):
		return "may not contain '%'"
	}
	return ""
}

func unsupported(fs *fieldErrors, path, value string, allowed []string) {
	want := make([]string, len(allowed))
	for i, a := range allowed {
		want[i] = strconv.Quote(a)
	}
	fs.add(FieldUnsupported, path, value, "supported values: "+strings.Join(want, ", "))
}

// validatePolicyRules checks each rule (ValidatePolicyRule).
func validatePolicyRules(fs *fieldErrors, rules []api.PolicyRule, namespaced bool) {
	for i, r := range rules {
		p := fmt.Sprintf("rules[%d]", i)
		if len(r.Verbs) == 0 {
			fs.required(p+".verbs", "verbs must contain at least one value")
		}
		if len(r.NonResourceURLs) > 0 {
			urls := "[" + strings.Join(r.NonResourceURLs, " ") + "]"
			if namespaced {
				fs.invalid(p+".nonResourceURLs", urls, "namespaced rules cannot apply to non-resource URLs")
			}
			if len(r.APIGroups) > 0 || len(r.Resources) > 0 {
				fs.invalid(p+".nonResourceURLs", urls, "rules cannot apply to both regular resources and non-resource URLs")
			}
			continue
		}
		if len(r.APIGroups) == 0 {
			fs.required(p+".apiGroups", "resource rules must supply at least one api group")
		}
		if len(r.Resources) == 0 {
			fs.required(p+".resources", "resource rules must supply at least one resource")
		}
	}
}

// validateRoleRef checks a binding's role reference.
func validateRoleRef(fs *fieldErrors, ref api.RoleRef, kinds []string) {
	if ref.APIGroup != api.RBACGroup {
		unsupported(fs, "roleRef.apiGroup", ref.APIGroup, []string{api.RBACGroup})
	}
	ok := false
	for _, k := range kinds {
		ok = ok || ref.Kind == k
	}
	if !ok {
		unsupported(fs, "roleRef.kind", ref.Kind, kinds)
	}
	if ref.Name == "" {
		fs.required("roleRef.name", "")
	} else {
		checkPathSegmentName(fs, "roleRef.name", ref.Name)
	}
}

// validateSubjects checks a binding's subjects
// (ValidateRoleBindingSubject).
func validateSubjects(fs *fieldErrors, subjects []api.Subject, namespaced bool) {
	for i, s := range subjects {
		p := fmt.Sprintf("subjects[%d]", i)
		if s.Name == "" {
			fs.required(p+".name", "")
		}
		switch s.Kind {
		case api.ServiceAccountKind:
			if s.Name != "" {
				checkDNS1123Subdomain(fs, p+".name", s.Name)
			}
			if s.APIGroup != "" {
				unsupported(fs, p+".apiGroup", s.APIGroup, []string{""})
			}
			if !namespaced && s.Namespace == "" {
				fs.required(p+".namespace", "")
			}
		case api.UserKind, api.GroupKind:
			if s.APIGroup != api.RBACGroup {
				unsupported(fs, p+".apiGroup", s.APIGroup, []string{api.RBACGroup})
			}
		default:
			unsupported(fs, p+".kind", s.Kind, []string{api.ServiceAccountKind, api.UserKind, api.GroupKind})
		}
	}
}

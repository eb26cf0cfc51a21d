package rbac

import (
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Attributes are what an authorizer decides on: who asks to do what
// (kube's authorizer.Attributes).
type Attributes struct {
	// User asking.
	User User
	// Verb: get, list, watch, create, update, patch, delete,
	// deletecollection, or another ("impersonate", "escalate"); for a
	// non-resource request the HTTP method in lower case.
	Verb string
	// ResourceRequest is true for a request on a resource, false for a
	// non-resource URL (Path).
	ResourceRequest bool
	// Namespace of the request ("" for cluster-scoped ones).
	Namespace string
	// APIGroup of the resource ("" the core group).
	APIGroup string
	// APIVersion of the resource.
	APIVersion string
	// Resource ("pods").
	Resource string
	// Subresource ("log").
	Subresource string
	// Name of the object ("" for a list or a create without a name).
	Name string
	// Path of a non-resource request ("/healthz").
	Path string
}

// RuleAllows reports whether rule allows the request a describes
// (kube's RBAC ruleAllows).
func RuleAllows(a Attributes, rule *api.PolicyRule) bool {
	if a.ResourceRequest {
		combined := a.Resource
		if a.Subresource != "" {
			combined += "/" + a.Subresource
		}
		return VerbMatches(rule, a.Verb) && APIGroupMatches(rule, a.APIGroup) &&
			ResourceMatches(rule, combined, a.Subresource) && ResourceNameMatches(rule, a.Name)
	}
	return VerbMatches(rule, a.Verb) && NonResourceURLMatches(rule, a.Path)
}

// VerbMatches reports whether rule names verb or "*".
func VerbMatches(rule *api.PolicyRule, verb string) bool {
	for _, v := range rule.Verbs {
		if v == api.VerbAll || v == verb {
			return true
		}
	}
	return false
}

// APIGroupMatches reports whether rule names group or "*".
func APIGroupMatches(rule *api.PolicyRule, group string) bool {
	for _, g := range rule.APIGroups {
		if g == api.APIGroupAll || g == group {
			return true
		}
	}
	return false
}

// ResourceMatches reports whether rule names combined ("pods/log"), "*",
// or "*/<subresource>" for a request of that subresource.
func ResourceMatches(rule *api.PolicyRule, combined, subresource string) bool {
	for _, r := range rule.Resources {
		if r == api.ResourceAll || r == combined {
			return true
		}
		if subresource == "" {
			continue
		}
		if len(r) == len(subresource)+2 && strings.HasPrefix(r, "*/") && strings.HasSuffix(r, subresource) {
			return true
		}
	}
	return false
}

// ResourceNameMatches reports whether rule allows the object name: a rule
// without ResourceNames allows every name, one with them only those.
func ResourceNameMatches(rule *api.PolicyRule, name string) bool {
	if len(rule.ResourceNames) == 0 {
		return true
	}
	for _, n := range rule.ResourceNames {
		if n == name {
			return true
		}
	}
	return false
}

// NonResourceURLMatches reports whether rule names path, "*", or a
// prefix of it ending in "*".
func NonResourceURLMatches(rule *api.PolicyRule, path string) bool {
	for _, u := range rule.NonResourceURLs {
		if u == api.NonResourceAll || u == path {
			return true
		}
		if strings.HasSuffix(u, "*") && strings.HasPrefix(path, strings.TrimRight(u, "*")) {
			return true
		}
	}
	return false
}

// appliesTo reports whether subject s of a binding in namespace ns names
// u (kube's appliesToUser).
func appliesTo(u User, s api.Subject, ns string) bool {
	switch s.Kind {
	case api.UserKind:
		return u.Name == s.Name
	case api.GroupKind:
		return u.InGroup(s.Name)
	case api.ServiceAccountKind:
		saNS := s.Namespace
		if saNS == "" {
			saNS = ns
		}
		return saNS != "" && ServiceAccountUsername(saNS, s.Name) == u.Name
	}
	return false
}

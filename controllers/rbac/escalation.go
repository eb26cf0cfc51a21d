package rbac

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Covers reports whether the owner's rules cover every rule of requested
// — each broken down into one verb on one group and resource (and one
// name), or one verb on one non-resource URL — and returns the pieces
// they do not cover, as kube's validation.Covers
// (k8s.io/component-helpers/auth/rbac/validation).
func Covers(owner, requested []api.PolicyRule) (bool, []api.PolicyRule) {
	var missing []api.PolicyRule
	for _, r := range requested {
		for _, sub := range BreakdownRule(r) {
			if !slices.ContainsFunc(owner, func(o api.PolicyRule) bool { return ruleCovers(o, sub) }) {
				missing = append(missing, sub)
			}
		}
	}
	return len(missing) == 0, missing
}

// BreakdownRule splits rule into rules of one verb on one group and
// resource (and one resource name), then one verb on one non-resource URL.
func BreakdownRule(rule api.PolicyRule) []api.PolicyRule {
	var out []api.PolicyRule
	for _, g := range rule.APIGroups {
		for _, res := range rule.Resources {
			for _, v := range rule.Verbs {
				if len(rule.ResourceNames) == 0 {
					out = append(out, api.PolicyRule{APIGroups: []string{g}, Resources: []string{res}, Verbs: []string{v}})
					continue
				}
				for _, n := range rule.ResourceNames {
					out = append(out, api.PolicyRule{APIGroups: []string{g}, Resources: []string{res}, Verbs: []string{v}, ResourceNames: []string{n}})
				}
			}
		}
	}
	for _, u := range rule.NonResourceURLs {
		for _, v := range rule.Verbs {
			out = append(out, api.PolicyRule{NonResourceURLs: []string{u}, Verbs: []string{v}})
		}
	}
	return out
}

func hasAll(set, want []string) bool {
	for _, w := range want {
		if !slices.Contains(set, w) {
			return false
		}
	}
	return true
}

func ruleCovers(owner, sub api.PolicyRule) bool {
	verbs := slices.Contains(owner.Verbs, api.VerbAll) || hasAll(owner.Verbs, sub.Verbs)
	groups := slices.Contains(owner.APIGroups, api.APIGroupAll) || hasAll(owner.APIGroups, sub.APIGroups)
	names := len(owner.ResourceNames) == 0 || (len(sub.ResourceNames) > 0 && hasAll(owner.ResourceNames, sub.ResourceNames))
	return verbs && groups && names && resourcesCover(owner.Resources, sub.Resources) && urlsCover(owner.NonResourceURLs, sub.NonResourceURLs)
}

// resourcesCover: "*" covers all, "*/sub" covers any resource's sub.
func resourcesCover(set, want []string) bool {
	if slices.Contains(set, api.ResourceAll) {
		return true
	}
	for _, p := range want {
		if slices.Contains(set, p) {
			continue
		}
		_, sub, ok := strings.Cut(p, "/")
		if !ok || !slices.Contains(set, "*/"+sub) {
			return false
		}
	}
	return true
}

// urlsCover: an owner URL ending in "*" covers what it prefixes.
func urlsCover(set, want []string) bool {
	for _, p := range want {
		if !slices.ContainsFunc(set, func(o string) bool {
			return o == p || (strings.HasSuffix(o, "*") && strings.HasPrefix(p, strings.TrimRight(o, "*")))
		}) {
			return false
		}
	}
	return true
}

// CompactRules merges rules of one group, one resource and at most one
// name into one rule with all their verbs, as kube's CompactRules does
// for escalation messages.
func CompactRules(rules []api.PolicyRule) []api.PolicyRule {
	type simple struct{ group, resource, name string }
	var out []api.PolicyRule
	merged := map[simple]int{}
	for _, r := range rules {
		if len(r.ResourceNames) > 1 || len(r.NonResourceURLs) > 0 || len(r.APIGroups) != 1 || len(r.Resources) != 1 {
			out = append(out, r)
			continue
		}
		k := simple{r.APIGroups[0], r.Resources[0], ""}
		if len(r.ResourceNames) == 1 {
			k.name = r.ResourceNames[0]
		}
		if i, ok := merged[k]; ok {
			out[i].Verbs = append(out[i].Verbs, r.Verbs...)
			continue
		}
		merged[k] = len(out)
		r.Verbs = slices.Clone(r.Verbs)
		out = append(out, r)
	}
	return out
}

// CompactString prints a rule as kube's rbac CompactString:
// {APIGroups:["apps"], Resources:["deployments"], Verbs:["get" "list"]}.
func CompactString(r api.PolicyRule) string {
	var parts []string
	for _, f := range []struct {
		name string
		v    []string
	}{{"APIGroups", r.APIGroups}, {"Resources", r.Resources}, {"NonResourceURLs", r.NonResourceURLs},
		{"ResourceNames", r.ResourceNames}, {"Verbs", r.Verbs}} {
		if len(f.v) > 0 {
			parts = append(parts, fmt.Sprintf("%s:%q", f.name, f.v))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// ErrEscalation is wrapped by ConfirmNoEscalation's refusal.
var ErrEscalation = errors.New("rbac: escalation")

// ConfirmNoEscalation returns nil when the rules u holds in namespace ns
// (cluster-wide ones, and ns's) cover rules, else an error worded as
// kube's: `user "jane" (groups=["system:authenticated"]) is attempting to
// grant RBAC permissions not currently held:` and the missing rules, one
// per line, sorted.
func (z *Authorizer) ConfirmNoEscalation(ctx context.Context, u User, ns string, rules []api.PolicyRule) error {
	owner, resolution, err := z.RulesFor(ctx, u, ns)
	if err != nil {
		return err
	}
	ok, missing := Covers(owner, rules)
	if ok {
		return nil
	}
	var lines []string
	for _, r := range CompactRules(missing) {
		if s := CompactString(r); !slices.Contains(lines, s) {
			lines = append(lines, s)
		}
	}
	slices.Sort(lines)
	groups := u.Groups
	if groups == nil {
		groups = []string{}
	}
	msg := fmt.Sprintf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s", u.Name, groups, strings.Join(lines, "\n"))
	if resolution != "" {
		msg += "; resolution errors: [" + strings.Trim(resolution, "[]") + "]"
	}
	return fmt.Errorf("%w: %s", ErrEscalation, msg)
}

// RoleRules returns the rules of the role ref names for a binding in
// namespace ns (kube's GetRoleReferenceRules): a Role of ns or a
// ClusterRole; a missing one is a NotFound error naming it.
func (z *Authorizer) RoleRules(ctx context.Context, ref api.RoleRef, ns string) ([]api.PolicyRule, error) {
	return z.roleRules(ctx, ref, ns)
}

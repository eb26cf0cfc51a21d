package rbac_test

import (
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/rbac"
	"github.com/stretchr/testify/require"
)

type pr = api.PolicyRule

func rr(groups, verbs, resources []string, names ...string) pr {
	return pr{APIGroups: groups, Verbs: verbs, Resources: resources, ResourceNames: names}
}

func l(s ...string) []string { return s }

// Rows of k8s.io/component-helpers auth/rbac/validation
// policy_comparator_test.go (v0.37.2), one per upstream test.
func TestCovers(t *testing.T) {
	for _, tc := range []struct {
		name           string
		owner, servant []pr
		covered        bool
		uncovered      []pr
	}{
		{"ExactMatch", []pr{rr(l("v1"), l("get"), l("builds"))}, []pr{rr(l("v1"), l("get"), l("builds"))}, true, nil},
		{"SubresourceWildcard", []pr{rr(l("v1"), l("get"), l("*/scale"))}, []pr{rr(l("v1"), l("get"), l("foo/scale"))}, true, nil},
		{"MultipleRulesCoveringSingleRule", []pr{rr(l("v1"), l("delete"), l("deployments")), rr(l("v1"), l("delete"), l("builds")),
			rr(l("v1"), l("update"), l("builds", "deployments"))}, []pr{rr(l("v1"), l("delete", "update"), l("builds", "deployments"))}, true, nil},
		{"MultipleRulesMissingSingleVerbResourceCombination", []pr{rr(l("v1"), l("delete", "update"), l("builds", "deployments")),
			rr(l("v1"), l("delete"), l("pods"))}, []pr{rr(l("v1"), l("delete", "update"), l("builds", "deployments", "pods"))},
			false, []pr{rr(l("v1"), l("update"), l("pods"))}},
		{"APIGroupStarCoveringMultiple", []pr{rr(l("*"), l("get"), l("roles"))}, []pr{rr(l("group1", "group2"), l("get"), l("roles"))}, true, nil},
		{"EnumerationNotCoveringAPIGroupStar", []pr{rr(l("dummy-group"), l("get"), l("roles"))}, []pr{rr(l("*"), l("get"), l("roles"))},
			false, []pr{rr(l("*"), l("get"), l("roles"))}},
		{"VerbStarCoveringMultiple", []pr{rr(l("v1"), l("*"), l("roles"))}, []pr{rr(l("v1"), l("watch", "list"), l("roles"))}, true, nil},
		{"EnumerationNotCoveringVerbStar", []pr{rr(l("v1"), l("get", "list", "watch", "create", "update", "delete", "exec"), l("roles"))},
			[]pr{rr(l("v1"), l("*"), l("roles"))}, false, []pr{rr(l("v1"), l("*"), l("roles"))}},
		{"ResourceStarCoveringMultiple", []pr{rr(l("v1"), l("get"), l("*"))}, []pr{rr(l("v1"), l("get"), l("resourcegroup:deployments"))}, true, nil},
		{"EnumerationNotCoveringResourceStar", []pr{rr(l("v1"), l("get"), l("roles", "resourcegroup:deployments"))},
			[]pr{rr(l("v1"), l("get"), l("*"))}, false, []pr{rr(l("v1"), l("get"), l("*"))}},
		{"ResourceNameEmptyCoveringMultiple", []pr{rr(l("v1"), l("get"), l("pods"))}, []pr{rr(l("v1"), l("get"), l("pods"), "foo", "bar")}, true, nil},
		{"EnumerationNotCoveringResourceNameEmpty", []pr{rr(l("v1"), l("get"), l("pods"), "foo", "bar")}, []pr{rr(l("v1"), l("get"), l("pods"))},
			false, []pr{rr(l("v1"), l("get"), l("pods"))}},
		{"NonResourceURLsStar", []pr{{NonResourceURLs: l("*"), Verbs: l("*")}}, []pr{{NonResourceURLs: l("/apis", "/apis/v1", "/"), Verbs: l("*")}}, true, nil},
		{"NonResourceURLsStarAfterPrefixDoesntCover", []pr{{NonResourceURLs: l("/apis/*"), Verbs: l("*")}},
			[]pr{{NonResourceURLs: l("/apis", "/apis/v1"), Verbs: l("get")}}, false, []pr{{NonResourceURLs: l("/apis"), Verbs: l("get")}}},
		{"NonResourceURLsStarAfterPrefix", []pr{{NonResourceURLs: l("/apis/*"), Verbs: l("*")}},
			[]pr{{NonResourceURLs: l("/apis/v1/foo", "/apis/v1"), Verbs: l("get")}}, true, nil},
		{"NonResourceURLsWithOtherFieldsFailure", []pr{rr(l("v1"), l("get"), l("builds"))},
			[]pr{{APIGroups: l("v1"), Verbs: l("get"), Resources: l("builds"), NonResourceURLs: l("/apis")}},
			false, []pr{{NonResourceURLs: l("/apis"), Verbs: l("get")}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			covered, uncovered := rbac.Covers(tc.owner, tc.servant)
			require.Equal(t, tc.covered, covered)
			require.Equal(t, tc.uncovered, uncovered)
		})
	}
}

func TestCompactString(t *testing.T) {
	rules := rbac.CompactRules([]pr{rr(l(""), l("get"), l("pods")), rr(l(""), l("list"), l("pods")), {NonResourceURLs: l("/x"), Verbs: l("get")}})
	require.Len(t, rules, 2)
	require.Equal(t, `{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}`, rbac.CompactString(rules[0]))
	require.Equal(t, `{NonResourceURLs:["/x"], Verbs:["get"]}`, rbac.CompactString(rules[1]))
	require.Equal(t, `{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["web"], Verbs:["*"]}`,
		rbac.CompactString(rr(l("apps"), l("*"), l("deployments"), "web")))
}

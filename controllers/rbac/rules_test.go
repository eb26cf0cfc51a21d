package rbac

import (
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Ported from k8s.io/kubernetes plugin/pkg/auth/authorizer/rbac/rbac_test.go
// (TestRuleMatches), plus resourceNames and "*/subresource".
func TestRuleMatches(t *testing.T) {
	res := func(verb, group, resource, sub string) Attributes {
		return Attributes{ResourceRequest: true, Verb: verb, APIGroup: group, Resource: resource, Subresource: sub}
	}
	url := func(verb, path string) Attributes { return Attributes{Verb: verb, Path: path} }
	named := func(a Attributes, name string) Attributes { a.Name = name; return a }
	tests := []struct {
		name string
		rule api.PolicyRule
		want map[bool][]Attributes
	}{
		{"star verb, exact match other", api.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"group1"}, Resources: []string{"resource1"}},
			map[bool][]Attributes{
				true:  {res("verb1", "group1", "resource1", ""), res("verb2", "group1", "resource1", "")},
				false: {res("verb1", "group2", "resource1", ""), res("verb1", "group1", "resource2", ""), res("verb2", "group2", "resource2", "")}}},
		{"star group, exact match other", api.PolicyRule{Verbs: []string{"verb1"}, APIGroups: []string{"*"}, Resources: []string{"resource1"}},
			map[bool][]Attributes{
				true:  {res("verb1", "group1", "resource1", ""), res("verb1", "group2", "resource1", "")},
				false: {res("verb1", "group1", "resource2", ""), res("verb2", "group1", "resource1", "")}}},
		{"star resource, exact match other", api.PolicyRule{Verbs: []string{"verb1"}, APIGroups: []string{"group1"}, Resources: []string{"*"}},
			map[bool][]Attributes{
				true:  {res("verb1", "group1", "resource1", ""), res("verb1", "group1", "resource2", ""), res("verb1", "group1", "resource2", "sub")},
				false: {res("verb1", "group2", "resource1", ""), res("verb2", "group1", "resource1", "")}}},
		{"tuple expansion", api.PolicyRule{Verbs: []string{"verb1", "verb2"}, APIGroups: []string{"group1", "group2"}, Resources: []string{"resource1", "resource2"}},
			map[bool][]Attributes{
				true: {res("verb1", "group1", "resource1", ""), res("verb1", "group2", "resource1", ""), res("verb1", "group1", "resource2", ""),
					res("verb2", "group2", "resource2", "")},
				false: {res("verb3", "group1", "resource1", ""), res("verb1", "group1", "resource1", "subresource1")}}},
		{"subresource expansion", api.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"resource1/subresource1"}},
			map[bool][]Attributes{
				true:  {res("verb1", "group1", "resource1", "subresource1"), res("verb2", "group1", "resource1", "subresource1")},
				false: {res("verb1", "group2", "resource1", "subresource2"), res("verb1", "group1", "resource2", "subresource1"), res("verb1", "group1", "resource1", "")}}},
		{"star subresource", api.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"*/log"}},
			map[bool][]Attributes{
				true:  {res("get", "", "pods", "log"), res("get", "", "widgets", "log")},
				false: {res("get", "", "pods", ""), res("get", "", "pods", "exec"), res("get", "", "pods", "catalog")}}},
		{"resource names", api.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"settings"}},
			map[bool][]Attributes{
				true:  {named(res("get", "", "configmaps", ""), "settings")},
				false: {named(res("get", "", "configmaps", ""), "other"), res("get", "", "configmaps", "")}}},
		{"star nonresource, exact match other", api.PolicyRule{Verbs: []string{"verb1"}, NonResourceURLs: []string{"*"}},
			map[bool][]Attributes{
				true:  {url("verb1", "/foo"), url("verb1", "/foo/bar"), url("verb1", "/foo/baz/one")},
				false: {url("verb2", "/foo"), url("verb2", "/foo/bar/one")}}},
		{"star nonresource subpath", api.PolicyRule{Verbs: []string{"verb1"}, NonResourceURLs: []string{"/foo/*"}},
			map[bool][]Attributes{
				true:  {url("verb1", "/foo/bar"), url("verb1", "/foo/baz"), url("verb1", "/foo/bar/one")},
				false: {url("verb1", "/foo"), url("verb1", "/notfoo"), url("verb1", "/notfoo/bar"), url("verb1", "/notfoo/baz/one")}}},
		{"star verb, exact nonresource", api.PolicyRule{Verbs: []string{"*"}, NonResourceURLs: []string{"/foo", "/foo/bar/one"}},
			map[bool][]Attributes{
				true:  {url("verb1", "/foo"), url("verb1", "/foo/bar/one"), url("verb2", "/foo")},
				false: {url("verb1", "/foo/bar"), url("verb1", "/foo/baz"), url("verb2", "/foo/baz/one")}}},
		{"resource rule never matches a URL", api.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
			map[bool][]Attributes{true: {res("get", "", "pods", "")}, false: {url("get", "/healthz")}}},
	}
	for _, tc := range tests {
		for want, reqs := range tc.want {
			for _, r := range reqs {
				if got := RuleAllows(r, &tc.rule); got != want {
					t.Errorf("%s: RuleAllows(%+v) = %v, want %v", tc.name, r, got, want)
				}
			}
		}
	}
}

func TestServiceAccountUsername(t *testing.T) {
	u := ServiceAccountUser("ns1", "builder", "u1")
	if u.Name != "system:serviceaccount:ns1:builder" || !u.InGroup("system:serviceaccounts") ||
		!u.InGroup("system:serviceaccounts:ns1") || !u.InGroup(AllAuthenticated) {
		t.Errorf("ServiceAccountUser = %+v", u)
	}
	for in, want := range map[string][2]string{
		"system:serviceaccount:ns1:builder": {"ns1", "builder"},
		"system:serviceaccount:ns1":         {},
		"system:serviceaccount::x":          {},
		"system:serviceaccount:a:b:c":       {},
		"jane":                              {},
	} {
		ns, name, ok := SplitServiceAccountUsername(in)
		if ok != (want[0] != "") || ns != want[0] || name != want[1] {
			t.Errorf("SplitServiceAccountUsername(%q) = %q %q %v", in, ns, name, ok)
		}
	}
}

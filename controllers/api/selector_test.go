package api

import (
	"strings"
	"testing"
)

// Good and bad strings from k8s.io/apimachinery/pkg/labels/selector_test.go
// TestSelectorParse, plus the forms kubectl -l documents.
func TestParseSelectorRoundTrip(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"x=a,y=b,z=c", "x=a,y=b,z=c"},
		{"", ""},
		{"x!=a,y=b", "x!=a,y=b"},
		{"x=", "x="},
		{"x= ", "x="},
		{"x=,z= ", "x=,z="},
		{"x= ,z= ", "x=,z="},
		{"!x", "!x"},
		{"x>1", "x>1"},
		{"x>1,z<5", "x>1,z<5"},
		{"x==a", "x==a"},
		{"app=nginx,tier!=db,env in (a,b),env notin (c),!canary,key", "app=nginx,!canary,env in (a,b),env notin (c),key,tier!=db"},
		{"  env  in  ( b , a , a )  ", "env in (a,b)"},
		{"z notin ()", "z notin ()"},
		{"notin=in", "notin=in"},
		{"example.com/role=db,a.b/c", "a.b/c,example.com/role=db"},
	} {
		sel, err := ParseSelector(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if got := sel.String(); got != c.want {
			t.Errorf("%q: String() = %q, want %q", c.in, got, c.want)
		}
		again, err := ParseSelector(sel.String())
		if err != nil || again.String() != sel.String() {
			t.Errorf("%q: re-parse of %q: %v, %v", c.in, sel, again, err)
		}
	}
}

func TestParseSelectorErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"x=a||y=b", "unexpected"},
		{"x==a==b", "unexpected"},
		{"!x=a", "takes no operator"},
		{"x<a", "not an integer"},
		{"env in a,b", "expected '('"},
		{"env in (a,b", "unterminated"},
		{"env in (a b)", "expected ',' or ')'"},
		{"env within (a)", "expected an operator"},
		{",x", "expected a key"},
		{"x,", "expected a key"},
		{"!", "expected a key after '!'"},
		{"-bad=x", "invalid label key"},
		{"x=-bad", "invalid label value"},
		{"a/b/c=x", "invalid label key"},
		{"x=" + strings.Repeat("v", 64), "invalid label value"},
		{"x=a)", "unexpected"},
	} {
		_, err := ParseSelector(c.in)
		if err == nil {
			t.Errorf("%q parsed", c.in)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "api: parse selector") {
			t.Errorf("%q: error %q does not say %q", c.in, err, c.want)
		}
	}
}

// Cases from selector_test.go TestSelectorMatches.
func TestSelectorMatches(t *testing.T) {
	labelset := map[string]string{"foo": "bar", "baz": "blah"}
	for _, c := range []struct {
		sel    string
		labels map[string]string
		want   bool
	}{
		{"", map[string]string{"x": "y"}, true},
		{"x=y", map[string]string{"x": "y"}, true},
		{"x=y,z=w", map[string]string{"x": "y", "z": "w"}, true},
		{"x!=y,z!=w", map[string]string{"x": "z", "z": "a"}, true},
		{"notin=in", map[string]string{"notin": "in"}, true},
		{"x", map[string]string{"x": "z"}, true},
		{"!x", map[string]string{"y": "z"}, true},
		{"x>1", map[string]string{"x": "2"}, true},
		{"x<1", map[string]string{"x": "0"}, true},
		{"x=z", map[string]string{}, false},
		{"x=y", map[string]string{"x": "z"}, false},
		{"x=y,z=w", map[string]string{"x": "w", "z": "w"}, false},
		{"x!=y,z!=w", map[string]string{"x": "z", "z": "w"}, false},
		{"x", map[string]string{"y": "z"}, false},
		{"!x", map[string]string{"x": "z"}, false},
		{"x>1", map[string]string{"x": "0"}, false},
		{"x<1", map[string]string{"x": "2"}, false},
		{"foo=bar", labelset, true},
		{"baz=blah", labelset, true},
		{"foo=bar,baz=blah", labelset, true},
		{"foo=blah", labelset, false},
		{"baz=bar", labelset, false},
		{"foo=bar,foobar=bar,baz=blah", labelset, false},
		// Set operators and missing keys.
		{"env in (a,b)", map[string]string{"env": "b"}, true},
		{"env in (a,b)", map[string]string{}, false},
		{"env notin (a,b)", map[string]string{}, true},
		{"env notin (a,b)", map[string]string{"env": "a"}, false},
		{"x>1", map[string]string{"x": "two"}, false},
		{"x>1", nil, false},
	} {
		sel, err := ParseSelector(c.sel)
		if err != nil {
			t.Fatalf("%q: %v", c.sel, err)
		}
		if got := sel.Matches(c.labels); got != c.want {
			t.Errorf("%q matches %v = %t, want %t", c.sel, c.labels, got, c.want)
		}
	}
	if Nothing().Matches(nil) || !Everything().Matches(nil) || !Everything().Empty() || Nothing().Empty() {
		t.Error("Everything/Nothing")
	}
}

// Cases from k8s.io/apimachinery/pkg/apis/meta/v1/helpers_test.go
// TestLabelSelectorAsSelector, plus NotIn and DoesNotExist.
func TestLabelSelectorAsSelector(t *testing.T) {
	in := []LabelSelectorRequirement{{Key: "baz", Operator: LabelSelectorOpIn, Values: []string{"qux", "norf"}}}
	for _, c := range []struct {
		in      *LabelSelector
		want    string
		wantErr bool
	}{
		{in: nil, want: "<none>"},
		{in: &LabelSelector{}, want: ""},
		{in: &LabelSelector{MatchLabels: map[string]string{"foo": "bar"}}, want: "foo=bar"},
		{in: &LabelSelector{MatchExpressions: in}, want: "baz in (norf,qux)"},
		{in: &LabelSelector{MatchLabels: map[string]string{"foo": "bar"}, MatchExpressions: in}, want: "baz in (norf,qux),foo=bar"},
		{in: &LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "baz", Operator: LabelSelectorOpExists, Values: []string{"qux"}}}}, wantErr: true},
		{in: &LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "baz", Operator: "Gt", Values: []string{"1"}}}}, wantErr: true},
		{in: &LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "a", Operator: LabelSelectorOpNotIn, Values: []string{"x"}}, {Key: "b", Operator: LabelSelectorOpDoesNotExist}}}, want: "a notin (x),!b"},
	} {
		before := c.in.DeepCopy()
		sel, err := c.in.AsSelector()
		if (err != nil) != c.wantErr {
			t.Errorf("%+v: err = %v", c.in, err)
			continue
		}
		if err == nil && sel.String() != c.want {
			t.Errorf("%+v: %q, want %q", c.in, sel, c.want)
		}
		if c.in != nil && before.MatchLabels == nil && c.in.MatchLabels != nil {
			t.Errorf("AsSelector modified its input")
		}
	}
}

func TestSelectorFromSet(t *testing.T) {
	sel := SelectorFromSet(map[string]string{"app": "nginx", "tier": "web"})
	if sel.String() != "app=nginx,tier=web" {
		t.Errorf("String() = %q", sel)
	}
	if !sel.Matches(map[string]string{"app": "nginx", "tier": "web", "x": "y"}) || sel.Matches(map[string]string{"app": "nginx"}) {
		t.Error("Matches")
	}
	if !SelectorFromSet(nil).Empty() {
		t.Error("empty set is not Everything")
	}
	r, err := NewRequirement("env", SelectionIn, "b", "a")
	if err != nil {
		t.Fatal(err)
	}
	if got := sel.Add(r).String(); got != "app=nginx,env in (a,b),tier=web" {
		t.Errorf("Add: %q", got)
	}
	if sel.String() != "app=nginx,tier=web" {
		t.Error("Add modified its receiver")
	}
	if Nothing().Add(r).Matches(map[string]string{"env": "a"}) {
		t.Error("Nothing().Add matched")
	}
	if len(sel.Requirements()) != 2 || r.Key() != "env" || r.Operator() != SelectionIn || len(r.Values()) != 2 {
		t.Error("accessors")
	}
}

func TestNewRequirementErrors(t *testing.T) {
	for _, c := range []struct {
		op     SelectionOperator
		values []string
	}{
		{SelectionEquals, nil}, {SelectionEquals, []string{"a", "b"}}, {SelectionIn, nil}, {SelectionExists, []string{"a"}},
		{SelectionGreaterThan, []string{"x"}}, {SelectionLessThan, nil}, {"~", []string{"a"}},
	} {
		if _, err := NewRequirement("k", c.op, c.values...); err == nil {
			t.Errorf("%s %v accepted", c.op, c.values)
		}
	}
}

// TestSetSelectorParser (k8s.io/apimachinery/pkg/labels/selector_test.go):
// the rows on whitespace and value lists, each parsed and printed back as
// kube's String does.
func TestParseSelectorKubeRows(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"\rx", "x"},
		{"this-is-a-dns.domain.com/key-with-dash", "this-is-a-dns.domain.com/key-with-dash"},
		{"this-is-another-dns.domain.com/key-with-dash in (so,what)", "this-is-another-dns.domain.com/key-with-dash in (so,what)"},
		{"0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)", "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)"},
		{"foo  in\t (abc)", "foo in (abc)"},
		{"x notin\n (abc)", "x notin (abc)"},
		{"x  notin\t\t\t(abc,def)", "x notin (abc,def)"},
		{"x in (abc,def)", "x in (abc,def)"},
		{"x in (abc,)", "x in (,abc)"},
		{"x in (abc,abc)", "x in (abc)"},
		{"x in ()", "x in ()"},
		{"x in (a,,)", "x in (,a)"},
		{"x in (a,,,,,,)", "x in (,a)"},
		{"x in (a,,a,,a,,a,,)", "x in (,a)"},
		{"x notin (abc,,def),bar,z in (),w", "bar,w,x notin (,abc,def),z in ()"},
		{"x,y in (a)", "x,y in (a)"},
		{"x=a", "x=a"},
		{"x>1", "x>1"},
		{"x<7", "x<7"},
		{"x=a,y!=b", "x=a,y!=b"},
		{"x=a,y!=b,z in (h,i,j)", "x=a,y!=b,z in (h,i,j)"},
		{"x\r\n=\ta ,\n y\r!=\nb", "x=a,y!=b"},
		{"x==a,y\t==\r\nb", "x==a,y==b"},
	} {
		sel, err := ParseSelector(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if got := sel.String(); got != c.want {
			t.Errorf("%q: String() = %q, want %q", c.in, got, c.want)
		}
	}
	for _, bad := range []string{"x=a||y=b", "x==a==b", "!x=a", "x<a", "x in (a", "x in a", "x\r\n=a\nb"} {
		if _, err := ParseSelector(bad); err == nil {
			t.Errorf("%q: parsed, want an error", bad)
		}
	}
}

// TestToString (k8s.io/apimachinery/pkg/labels/selector_test.go): every
// operator printed as kube's Requirement.String prints it.
func TestSelectorStringKube(t *testing.T) {
	req := func(k string, op SelectionOperator, vs ...string) Requirement {
		r, err := NewRequirement(k, op, vs...)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, c := range []struct {
		reqs []Requirement
		want string
	}{
		{[]Requirement{req("x", SelectionIn, "abc", "def"), req("y", SelectionNotIn, "jkl"), req("z", SelectionExists)},
			"x in (abc,def),y notin (jkl),z"},
		{[]Requirement{req("x", SelectionNotIn, "abc", "def"), req("y", SelectionNotEquals, "jkl"), req("z", SelectionDoesNotExist)},
			"x notin (abc,def),y!=jkl,!z"},
		{[]Requirement{req("x", SelectionNotIn, "abc"), req("y", SelectionIn, "jkl", "mno"), req("z", SelectionNotIn, "")},
			"x notin (abc),y in (jkl,mno),z notin ()"},
		{[]Requirement{req("x", SelectionEquals, "abc"), req("y", SelectionDoubleEquals, "jkl"), req("z", SelectionNotEquals, "a"), req("z", SelectionExists)},
			"x=abc,y==jkl,z!=a,z"},
		{[]Requirement{req("x", SelectionGreaterThan, "2"), req("y", SelectionLessThan, "8"), req("z", SelectionExists)},
			"x>2,y<8,z"},
	} {
		if got := Everything().Add(c.reqs...).String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
	}
	// == matches as =.
	sel, err := ParseSelector("x==a")
	if err != nil || !sel.Matches(map[string]string{"x": "a"}) || sel.Matches(map[string]string{"x": "b"}) {
		t.Errorf("x==a: %v, matching wrong", err)
	}
}

// ImpliesLabels: true only when each pair is an equality requirement
// with that one value; whenever it says true, every label set the
// selector matches (of a small exhaustive family) carries the pairs.
func TestSelectorImpliesLabels(t *testing.T) {
	must := func(s string) Selector {
		t.Helper()
		sel, err := ParseSelector(s)
		if err != nil {
			t.Fatal(err)
		}
		return sel
	}
	tmpl := map[string]string{"app": "web", "hash": "h1"}
	for _, c := range []struct {
		sel  Selector
		set  map[string]string
		want bool
	}{
		{must("app=web,hash=h1"), tmpl, true},
		{must("app==web,hash in (h1),tier=fe"), tmpl, true},
		{must("app=web,hash=h1,hash!=h2"), tmpl, true},
		{must("app=web"), tmpl, false},
		{must("app=web,hash in (h1,h2)"), tmpl, false},
		{must("app=web,hash=h2"), tmpl, false},
		{must("app=web,hash"), tmpl, false},
		{must("app=web,hash notin (h2)"), tmpl, false},
		{Everything(), tmpl, false},
		{Everything(), nil, true},
		{must("app=web"), map[string]string{}, true},
		{Nothing(), tmpl, true},
		{SelectorFromSet(tmpl), tmpl, true},
	} {
		if got := c.sel.ImpliesLabels(c.set); got != c.want {
			t.Errorf("%s.ImpliesLabels(%v) = %t, want %t", c.sel, c.set, got, c.want)
		}
		if !c.want {
			continue
		}
		// Every label set over these keys and values that the selector
		// matches must carry the set.
		keys, vals := []string{"app", "hash", "tier"}, []string{"", "web", "h1", "h2", "fe"}
		var walk func(i int, labels map[string]string)
		walk = func(i int, labels map[string]string) {
			if i == len(keys) {
				if c.sel.Matches(labels) && !hasAll(labels, c.set) {
					t.Errorf("%s matches %v, which lacks %v", c.sel, labels, c.set)
				}
				return
			}
			for _, v := range vals {
				if v == "" {
					delete(labels, keys[i])
				} else {
					labels[keys[i]] = v
				}
				walk(i+1, labels)
			}
			delete(labels, keys[i])
		}
		walk(0, map[string]string{})
	}
}

func hasAll(labels, set map[string]string) bool {
	for k, v := range set {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

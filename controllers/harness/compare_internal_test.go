package harness

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCompare(t *testing.T) {
	o := func(name, json string) Object {
		return Object{Kind: "ConfigMap", Namespace: "default", Name: name, JSON: json}
	}
	want := []Object{o("a", "1"), o("b", "1"), o("c-*", "1"), o("d", "1")}
	got := []Object{o("a", "1"), o("b", "2"), o("c-*", "1"), o("c-*", "1"), o("e", "1")}
	require.Equal(t, []string{
		"differs: ConfigMap default/b\n\treference: 1\n\tthis run:  2",
		"duplicate create: 2 live ConfigMap default/c-* where the reference run has 1",
		"missing: ConfigMap default/d (the reference run ends with it)",
		"extra: ConfigMap default/e (absent from the reference run's end)",
	}, compare(want, got))
	require.Empty(t, compare(want, want))
}

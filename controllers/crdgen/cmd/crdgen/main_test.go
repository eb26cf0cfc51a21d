package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/crdgen"
	"github.com/ctrlkit/ctrlkit/controllers/crdgen/internal/widget"
)

// The command writes what Generate returns for the same kind, and
// removes its temporary program; a flag overrides the markers.
func TestCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go tool")
	}
	out := filepath.Join(t.TempDir(), "crd.yaml")
	var stderr bytes.Buffer
	code := run([]string{"-dir", "../../internal/widget", "-type", "Widget", "-group", "example.com", "-version", "v2",
		"-scope", "Cluster", "-o", out}, new(bytes.Buffer), &stderr)
	require.Equal(t, 0, code, stderr.String())
	objs, err := api.DecodeFile(out, api.DecodeOptions{})
	require.NoError(t, err)
	require.Len(t, objs, 1)

	want, err := crdgen.Generate(api.KindInfo{GroupVersionKind: api.GroupVersionKind{Group: "example.com", Version: "v2"}, Namespaced: true},
		reflect.TypeFor[widget.Widget](), crdgen.Options{Dir: "../../internal/widget"})
	require.NoError(t, err)
	want.Spec.Scope = api.ClusterScoped
	require.Equal(t, want, objs[0])

	left, err := filepath.Glob("../../internal/widget/_crdgen*")
	require.NoError(t, err)
	require.Empty(t, left, "the temporary program is removed")
}

func TestCommandErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-group", "g"}, `-type "" is not an exported Go type name`},
		{[]string{"-type", "widget", "-group", "g"}, "not an exported Go type name"},
		{[]string{"-type", "W)}; os.Exit(0); var _ = struct{", "-group", "g"}, "not an exported Go type name"},
		{[]string{"-type", "Widget"}, "-group is required"},
		{[]string{"-type", "Widget", "-group", "g", "-scope", "Global"}, "neither Namespaced nor Cluster"},
		{[]string{"-type", "Widget", "-group", "g", "extra"}, "unexpected arguments"},
	} {
		var stderr bytes.Buffer
		code := run(tc.args, new(bytes.Buffer), &stderr)
		if code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// A type the package does not declare fails with go's error, exit 1.
func TestCommandUnknownType(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go tool")
	}
	var stderr bytes.Buffer
	code := run([]string{"-dir", "../../internal/widget", "-type", "Gadget", "-group", "example.com"}, new(bytes.Buffer), &stderr)
	require.Equal(t, 1, code)
	require.Contains(t, stderr.String(), "Gadget")
	_, err := os.Stat("../../internal/widget")
	require.NoError(t, err)
}

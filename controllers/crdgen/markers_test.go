package crdgen

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

func TestParseMarker(t *testing.T) {
	m, err := parseMarker(`kubebuilder:validation:XValidation:rule="self.a, self.b == [1, 2]",message='x',fieldPath=.a`)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"rule": "self.a, self.b == [1, 2]", "message": "'x'", "fieldPath": ".a"}, m.args)
	m, err = parseMarker(`kubebuilder:validation:Pattern="^a=b$"`)
	require.NoError(t, err)
	require.Equal(t, marker{name: "kubebuilder:validation:Pattern", value: `"^a=b$"`}, m)
	_, err = parseMarker(`kubebuilder:printcolumn:name`)
	require.ErrorContains(t, err, "not key=value")
	_, err = parseMarker(`kubebuilder:printcolumn:name="unterminated`)
	require.Error(t, err)
}

func TestApplyMarkers(t *testing.T) {
	var s api.JSONSchemaProps
	for _, l := range []string{
		`kubebuilder:validation:Enum=a;1;true;{"x":1};"b;c"`,
		`kubebuilder:default={"k":[1,2]}`,
		`kubebuilder:validation:MultipleOf=0.5`,
		`kubebuilder:validation:ExclusiveMaximum=true`,
		`kubebuilder:validation:UniqueItems`,
		`kubebuilder:validation:Nullable`,
		`kubebuilder:pruning:PreserveUnknownFields`,
		`kubebuilder:validation:EmbeddedResource`,
		`mapType=atomic`,
		`k8s:deepcopy-gen=true`,
	} {
		m, err := parseMarker(l)
		require.NoError(t, err)
		require.NoError(t, applyMarker(&s, m), l)
	}
	out, _ := json.Marshal(s.Enum)
	require.JSONEq(t, `["a",1,true,{"x":1},"b;c"]`, string(out))
	require.JSONEq(t, `{"k":[1,2]}`, string(s.Default.Raw))
	require.Equal(t, 0.5, *s.MultipleOf)
	require.True(t, s.ExclusiveMaximum && s.UniqueItems && s.Nullable && *s.XPreserveUnknownFields && s.XEmbeddedResource)
	require.Equal(t, "atomic", *s.XMapType)

	for l, want := range map[string]string{
		`kubebuilder:validation:Minimun=1`:               "unknown marker",
		`kubebuilder:validation:Minimum=one`:             "not a number",
		`kubebuilder:validation:MaxLength=-1`:            "not a count",
		`kubebuilder:validation:XValidation:message="m"`: "no rule",
	} {
		m, err := parseMarker(l)
		require.NoError(t, err)
		err = applyMarker(&s, m)
		require.Error(t, err, l)
		require.True(t, strings.Contains(err.Error(), want), "%s: %v", l, err)
	}
}

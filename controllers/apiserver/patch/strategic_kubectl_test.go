package patch

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kubectlCase is one PATCH that kubectl sends, from testdata/kubectl_apply.json:
// for `kubectl apply` the patch apimachinery v0.37.2's
// CreateThreeWayMergePatch computes from the last-applied configuration,
// the new manifest and the live object (as kubectl does), and for
// `kubectl patch`/`rollout restart`/`set image` the patch itself; Want is
// what apimachinery's StrategicMergePatch makes of Live with the typed
// k8s.io/api struct as schema, i.e. kube-apiserver's answer. See
// testdata/upstream (scenarios.go) for the scenarios.
type kubectlCase struct {
	Description string          `json:"description"`
	Kind        string          `json:"kind"`
	Live        json.RawMessage `json:"live"`
	Patch       json.RawMessage `json:"patch"`
	Want        json.RawMessage `json:"want"`
	WantError   string          `json:"wantError"`
}

func TestStrategicMergePatchKubectlApply(t *testing.T) {
	b, err := os.ReadFile("testdata/kubectl_apply.json")
	require.NoError(t, err)
	var cases []kubectlCase
	require.NoError(t, json.Unmarshal(b, &cases))
	require.NotEmpty(t, cases)
	for _, c := range cases {
		t.Run(c.Description, func(t *testing.T) {
			// The scenarios stay within controllers/api's model.
			for _, doc := range []json.RawMessage{c.Live, c.Want} {
				_, err := api.Decode(doc, api.DecodeOptions{})
				require.NoError(t, err)
			}
			got, err := Apply(StrategicMerge, c.Kind, c.Live, c.Patch)
			require.NoError(t, err, "patch %s", c.Patch)
			want, err := decode(c.Want, "want")
			require.NoError(t, err)
			wb, _ := json.Marshal(want) // keys sorted, as Apply writes them
			assert.Equal(t, string(wb), string(got), "patch %s", c.Patch)
		})
	}
}

// TestStrategicMergePatchRandomApply checks Apply against apimachinery on
// testdata/random_apply.json: kubectl apply's patches for random edits of
// random Deployments over random live objects (testdata/upstream/random.go).
//
// Upstream appends a patch's list element that has no counterpart in the
// live list verbatim, nulls and directives included, and leaves them to
// the decoder (which drops the nulls, and decodes an element such as
// {"$patch":"delete","containerPort":443} inside it as a port); Apply
// cleans such elements first. The comparison therefore removes from the
// expected result what cleaning removes; everything else must be equal,
// list order included.
func TestStrategicMergePatchRandomApply(t *testing.T) {
	b, err := os.ReadFile("testdata/random_apply.json")
	require.NoError(t, err)
	var cases []kubectlCase
	require.NoError(t, json.Unmarshal(b, &cases))
	require.Len(t, cases, 100)
	for _, c := range cases {
		got, err := Apply(StrategicMerge, c.Kind, c.Live, c.Patch)
		if c.WantError != "" {
			assert.Error(t, err, "%s: upstream fails with %q; patch %s", c.Description, c.WantError, c.Patch)
			continue
		}
		if !assert.NoError(t, err, "%s: patch %s", c.Description, c.Patch) {
			continue
		}
		want, err := decode(c.Want, "want")
		require.NoError(t, err)
		wb, _ := json.Marshal(withoutDirectives(want))
		assert.Equal(t, string(wb), string(got), "%s: live %s\npatch %s", c.Description, c.Live, c.Patch)
	}
}

// withoutDirectives drops nulls in objects, members named "$...", and
// list elements with "$patch".
func withoutDirectives(v value) value {
	switch v := v.(type) {
	case object:
		for k, e := range v {
			if e == nil || strings.HasPrefix(k, "$") {
				delete(v, k)
			} else {
				v[k] = withoutDirectives(e)
			}
		}
	case []value:
		out := v[:0]
		for _, e := range v {
			if m, ok := e.(object); ok && m[directiveMarker] != nil {
				continue
			}
			out = append(out, withoutDirectives(e))
		}
		return out
	}
	return v
}

// BenchmarkApplyKubectl applies each kubectl case of
// testdata/kubectl_apply.json once per iteration.
func BenchmarkApplyKubectl(b *testing.B) {
	data, err := os.ReadFile("testdata/kubectl_apply.json")
	require.NoError(b, err)
	var cases []kubectlCase
	require.NoError(b, json.Unmarshal(data, &cases))
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range cases {
			if _, err := Apply(StrategicMerge, c.Kind, c.Live, c.Patch); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(cases)), "ns/patch")
}

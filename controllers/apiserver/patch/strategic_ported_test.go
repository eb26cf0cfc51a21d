package patch

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mergeItem is the schema of the test cases of apimachinery's
// pkg/util/strategicpatch/patch_test.go (its MergeItem), with the same
// struct tags. runtime.RawExtension becomes json.RawMessage (opaque here).
type mergeItem struct {
	Name                  string              `json:"name,omitempty"`
	Value                 string              `json:"value,omitempty"`
	Other                 string              `json:"other,omitempty"`
	MergingList           []mergeItem         `json:"mergingList,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	NonMergingList        []mergeItem         `json:"nonMergingList,omitempty"`
	MergingIntList        []int               `json:"mergingIntList,omitempty" patchStrategy:"merge"`
	NonMergingIntList     []int               `json:"nonMergingIntList,omitempty"`
	MergeItemPtr          *mergeItem          `json:"mergeItemPtr,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	SimpleMap             map[string]string   `json:"simpleMap,omitempty"`
	ReplacingItem         json.RawMessage     `json:"replacingItem,omitempty" patchStrategy:"replace"`
	RetainKeysMap         retainKeysMergeItem `json:"retainKeysMap,omitempty" patchStrategy:"retainKeys"`
	RetainKeysMergingList []mergeItem         `json:"retainKeysMergingList,omitempty" patchStrategy:"merge,retainKeys" patchMergeKey:"name"`
}

// retainKeysMergeItem is apimachinery's RetainKeysMergeItem.
type retainKeysMergeItem struct {
	Name           string            `json:"name,omitempty"`
	Value          string            `json:"value,omitempty"`
	Other          string            `json:"other,omitempty"`
	SimpleMap      map[string]string `json:"simpleMap,omitempty"`
	MergingIntList []int             `json:"mergingIntList,omitempty" patchStrategy:"merge"`
	MergingList    []mergeItem       `json:"mergingList,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	NonMergingList []mergeItem       `json:"nonMergingList,omitempty"`
}

// portedCase is one application of a patch from apimachinery's tests:
// testdata/apimachinery.json holds, converted from YAML to JSON, every
// two-way patch (applied to Original, giving TwoWayResult or Modified) and
// three-way patch (applied to Current, giving Result) of the tables
// customStrategicMergePatchTestCaseData, customStrategicMergePatchRawTestCases,
// createStrategicMergePatchTestCaseData and strategicMergePatchRawTestCases
// in k8s.io/apimachinery@v0.37.2/pkg/util/strategicpatch/patch_test.go.
// Sorted marks the cases upstream compares after sorting merging lists
// (sortMergeListsByName); the raw cases compare list order exactly.
type portedCase struct {
	Source      string          `json:"source"`
	Description string          `json:"description"`
	Original    json.RawMessage `json:"original"`
	Patch       json.RawMessage `json:"patch"`
	Want        json.RawMessage `json:"want"`
	Sorted      bool            `json:"sorted"`
	WantError   string          `json:"wantError"`
}

func TestStrategicMergePatchApimachineryCases(t *testing.T) {
	b, err := os.ReadFile("testdata/apimachinery.json")
	require.NoError(t, err)
	var cases []portedCase
	require.NoError(t, json.Unmarshal(b, &cases))
	s := schema(reflect.TypeFor[mergeItem]())
	for _, c := range cases {
		t.Run(c.Source+"/"+c.Description, func(t *testing.T) {
			doc, err := decodeObject(c.Original, "original")
			require.NoError(t, err)
			p, err := decodeObject(c.Patch, "patch")
			require.NoError(t, err)
			got, err := newMeter(len(c.Original)+len(c.Patch)).mergeMap(doc, p, s)
			if c.WantError != "" {
				assert.Error(t, err, "upstream fails with %q", c.WantError)
				return
			}
			require.NoError(t, err)
			want, err := decode(c.Want, "want")
			require.NoError(t, err)
			var g value = got
			if c.Sorted {
				g, want = sortMergingLists(g, s), sortMergingLists(want, s)
			}
			gb, _ := json.Marshal(g)
			wb, _ := json.Marshal(want)
			assert.Equal(t, string(wb), string(gb), "patch %s", c.Patch)
		})
	}
}

// sortMergingLists sorts (and dedupes, for scalars) every merging list, as
// apimachinery's sortMergeListsByName does before comparing.
func sortMergingLists(v value, s schema) value {
	m, ok := v.(object)
	if !ok {
		return v
	}
	for k, e := range m {
		sub, st, err := lookup(s, k)
		if err != nil {
			continue
		}
		switch e := e.(type) {
		case object:
			m[k] = sortMergingLists(e, sub)
		case []value:
			if !st.merges() {
				continue
			}
			l := make([]value, len(e))
			for i, x := range e {
				l[i] = sortMergingLists(x, elem(sub))
			}
			sortKey := func(x value) string {
				if xm, ok := x.(object); ok {
					return fmt.Sprint(xm[st.mergeKey])
				}
				return fmt.Sprint(x)
			}
			slices.SortStableFunc(l, func(a, b value) int {
				ka, kb := sortKey(a), sortKey(b)
				switch {
				case ka < kb:
					return -1
				case ka > kb:
					return 1
				}
				return 0
			})
			if st.mergeKey == "" {
				l = newMeter(0).dedupe(l)
			}
			m[k] = l
		}
	}
	return m
}

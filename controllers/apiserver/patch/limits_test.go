package patch

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allocated returns the bytes f allocates (the package's tests do not run
// in parallel, so the count is f's own).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// ops joins n copies of the operations op as a JSON patch.
func ops(n int, op ...string) []byte {
	all := make([]string, 0, n*len(op))
	for range n {
		all = append(all, op...)
	}
	return []byte("[" + strings.Join(all, ",") + "]")
}

// The patch bomb of issue 28: 800 bytes, each copy doubling /x, used to
// allocate 100 MB (2^20 copies of the array). The copies are now bounded
// by MaxCopyBytes, with evanphx/json-patch's message, and a server
// answers 422 as kube-apiserver does.
func TestJSONPatchCopyBombIsRefused(t *testing.T) {
	doc := []byte(`{"x":["0123456789"]}`)
	p := ops(20, `{"op":"copy","from":"/x","path":"/x/-"}`)
	var err error
	n := allocated(func() { _, err = Apply(JSON, "ConfigMap", doc, p) })
	require.ErrorIs(t, err, ErrUnprocessable)
	assert.NotErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), "Unable to copy, the accumulated size increase of copy is")
	assert.Contains(t, err.Error(), fmt.Sprintf("exceeding the limit %d", MaxCopyBytes))
	// A copy stops as soon as the total passes the limit: some dozen
	// bytes of memory per byte of JSON copied, and no more.
	assert.Less(t, n, uint64(24*MaxCopyBytes), "allocated %d bytes", n)
	t.Logf("allocated %d bytes", n)
}

// Copies that stay under the limit in total are applied.
func TestJSONPatchCopyUnderTheLimit(t *testing.T) {
	doc := []byte(`{"x":["0123456789"]}`)
	p := ops(10, `{"op":"copy","from":"/x","path":"/x/-"}`) // 1024 elements
	out, err := Apply(JSON, "ConfigMap", doc, p)
	require.NoError(t, err)
	var m struct{ X []any }
	require.NoError(t, json.Unmarshal(out, &m))
	assert.Len(t, m.X, 11)
}

// kube-apiserver answers 413 past 10,000 operations, before applying any.
func TestJSONPatchOperationLimit(t *testing.T) {
	doc := []byte(`{"a":1}`)
	_, err := Apply(JSON, "ConfigMap", doc, ops(MaxOperations, `{"op":"test","path":"/a","value":1}`))
	require.NoError(t, err)
	_, err = Apply(JSON, "ConfigMap", doc, ops(MaxOperations+1, `{"op":"test","path":"/a","value":1}`))
	require.ErrorIs(t, err, ErrTooLarge)
	assert.NotErrorIs(t, err, ErrUnprocessable)
	assert.Contains(t, err.Error(), "The allowed maximum operations in a JSON patch is 10000, got 10001")
}

// bigArray is {"a":[0,1,...,n-1]}.
func bigArray(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"a":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, i)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// 4,000 self-copy/remove pairs on a 2,500-element array (issue 28: 317 MB,
// as each operation reallocated the array) now edit it in place: memory
// linear in the input.
func TestJSONPatchSelfCopyRemoveIsLinear(t *testing.T) {
	doc := bigArray(2500)
	p := ops(4000, `{"op":"copy","from":"/a/0","path":"/a/0"}`, `{"op":"remove","path":"/a/0"}`)
	var out []byte
	var err error
	n := allocated(func() { out, err = Apply(JSON, "ConfigMap", doc, p) })
	require.NoError(t, err)
	assert.JSONEq(t, string(doc), string(out))
	limit := uint64(64 * (len(doc) + len(p)))
	assert.Less(t, n, limit, "allocated %d bytes for %d bytes of input", n, len(doc)+len(p))
	t.Logf("allocated %d bytes for %d bytes of input", n, len(doc)+len(p))
}

// Shifting the elements of a long array, operation after operation, is
// bounded by the work budget: removing the first element of a
// 60,000-element array 10,000 times would move 570 million elements.
func TestJSONPatchShiftBombIsRefused(t *testing.T) {
	doc := bigArray(60000)
	p := ops(MaxOperations, `{"op":"remove","path":"/a/0"}`)
	_, err := Apply(JSON, "ConfigMap", doc, p)
	require.ErrorIs(t, err, ErrUnprocessable)
	assert.Contains(t, err.Error(), "too costly")
}

// A patched object larger than MaxObjectBytes is refused with ErrTooLarge
// (413), whatever the patch type (the check is Apply's last step, shared
// by the three).
func TestPatchedObjectSizeLimit(t *testing.T) {
	big := strings.Repeat("x", MaxObjectBytes)
	doc := []byte(`{"metadata":{"name":"a"},"data":{}}`)
	for _, tc := range []struct {
		t Type
		p string
	}{
		{Merge, `{"data":{"k":"` + big + `"}}`},
		{JSON, `[{"op":"add","path":"/data/k","value":"` + big + `"}]`},
	} {
		_, err := Apply(tc.t, "ConfigMap", doc, []byte(tc.p))
		require.ErrorIs(t, err, ErrTooLarge, tc.t)
		assert.Contains(t, err.Error(), "the patched object is", tc.t)
	}
	_, err := Apply(Merge, "ConfigMap", doc, []byte(`{"data":{"k":"`+big[:MaxObjectBytes-100]+`"}}`))
	require.NoError(t, err)
}

// envLists returns a Pod whose container has n env vars o0..o(n-1) and a
// strategic merge patch of that container's env with one element per i
// made by elem.
func envLists(n int, elem func(i int) string) (doc, p []byte) {
	var o, q strings.Builder
	o.WriteString(`{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","env":[`)
	q.WriteString(`{"spec":{"containers":[{"name":"c","env":[`)
	for i := range n {
		if i > 0 {
			o.WriteByte(',')
			q.WriteByte(',')
		}
		fmt.Fprintf(&o, `{"name":"o%d"}`, i)
		q.WriteString(elem(i))
	}
	o.WriteString(`]}]}}`)
	q.WriteString(`]}]}}`)
	return []byte(o.String()), []byte(q.String())
}

// A strategic merge patch of a long list of objects, each looked for in a
// long original list, was quadratic (some 12 million comparisons for 5,000
// by 5,000, 900 million for 30,000 by 30,000); the
// elements are now found through a map, in linear work.
func TestStrategicMergeKeyedListIsLinear(t *testing.T) {
	n := 5000
	doc, p := envLists(n, func(i int) string {
		if i%2 == 0 {
			return fmt.Sprintf(`{"name":"o%d","value":"v"}`, n-1-i) // merges into an original
		}
		return fmt.Sprintf(`{"name":"p%d"}`, i) // new
	})
	d, err := decodeObject(doc, "doc")
	require.NoError(t, err)
	w := newMeter(len(doc) + len(p))
	budget := w.compares
	_, err = strategicMerge("Pod", d, p, w)
	require.NoError(t, err)
	used := budget - w.compares
	assert.Less(t, used, int64(20*n), "compared %d elements for lists of %d", used, n)

	out, err := Apply(StrategicMerge, "Pod", doc, p)
	require.NoError(t, err)
	var pod struct {
		Spec struct {
			Containers []struct {
				Env []struct{ Name, Value string }
			}
		}
	}
	require.NoError(t, json.Unmarshal(out, &pod))
	env := pod.Spec.Containers[0].Env
	require.Len(t, env, n+n/2)
	values := map[string]string{}
	for _, e := range env {
		values[e.Name] = e.Value
	}
	assert.Equal(t, "v", values["o4999"])
	assert.Equal(t, "", values["o4998"])
	assert.Contains(t, values, "p4999")
}

// What still compares element by element is bounded by the budget:
// 20,000 "$patch: delete" elements, each found at the end of a
// 20,000-element list.
func TestStrategicMergeDeleteBombIsRefused(t *testing.T) {
	n := 5000
	doc, p := envLists(n, func(i int) string { return fmt.Sprintf(`{"$patch":"delete","name":"o%d"}`, n-1-i) })
	_, err := Apply(StrategicMerge, "Pod", doc, p)
	require.ErrorIs(t, err, ErrUnprocessable)
	assert.Contains(t, err.Error(), "too costly")
	// A few deletions are fine.
	doc, p = envLists(3, func(i int) string { return fmt.Sprintf(`{"$patch":"delete","name":"o%d"}`, i) })
	out, err := Apply(StrategicMerge, "Pod", doc, p)
	require.NoError(t, err)
	assert.Contains(t, string(out), `"env":[]`)
}

// Lists of scalars merge through maps: 20,000 finalizers are linear (they
// took 194 s when each was looked for in the list).
func TestStrategicMergeScalarListIsLinear(t *testing.T) {
	var p strings.Builder
	p.WriteString(`{"metadata":{"finalizers":[`)
	for i := range 20000 {
		if i > 0 {
			p.WriteByte(',')
		}
		fmt.Fprintf(&p, `"f%d","f%d"`, i, i)
	}
	p.WriteString(`]}}`)
	doc := []byte(`{"metadata":{"name":"p","finalizers":["a"]}}`)
	out, err := Apply(StrategicMerge, "Pod", doc, []byte(p.String()))
	if err != nil {
		require.ErrorIs(t, err, ErrUnprocessable) // the budget, not a crash
		return
	}
	var m struct{ Metadata struct{ Finalizers []string } }
	require.NoError(t, json.Unmarshal(out, &m))
	assert.Len(t, m.Metadata.Finalizers, 20001)
}

// Numbers compare by value in linear time: math/big took 50 ms for each
// comparison of 1e1000000, and a patch may hold 10,000 of them.
func TestNumbersCompareInLinearTime(t *testing.T) {
	for _, c := range []struct {
		a, b string
		eq   bool
	}{
		{"1", "1.0", true}, {"10", "1e1", true}, {"0.1e1", "1", true}, {"-0", "0", true},
		{"0.0", "0e5", true}, {"100", "1E+2", true}, {"1.50", "15e-1", true}, {"-2", "2", false},
		{"1", "1.0000001", false}, {"1e1000000", "1", false}, {"1e1000000", "10e999999", true},
		{"1e99999999999999999999", "1e99999999999999999999", true}, {"1e99999999999999999999", "1e99999999999999999998", false},
	} {
		assert.Equal(t, c.eq, equal(json.Number(c.a), json.Number(c.b)), "%s == %s", c.a, c.b)
	}
	// 10e999999 and 1e1000000 are equal; math/big took 0.1 s to say so.
	doc := []byte(`{"a":10e999999}`)
	_, err := Apply(JSON, "ConfigMap", doc, ops(100, `{"op":"test","path":"/a","value":1e1000000}`))
	require.NoError(t, err)
}

// A merge patch nested deeper than encoding/json's 10,000 levels is a
// 400, not a crash.
func TestMergePatchDepth(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001)
	_, err := Apply(Merge, "ConfigMap", []byte(`{}`), []byte(deep))
	require.Error(t, err)
	assert.False(t, errors.Is(err, ErrUnprocessable) || errors.Is(err, ErrTooLarge))
	assert.Contains(t, err.Error(), "exceeded max depth")
}

// BenchmarkJSONPatchSelfCopyRemove shows the cost of self-copy/remove
// pairs at the front of an array growing linearly with the number of
// pairs (it was quadratic: each operation reallocated the array).
func BenchmarkJSONPatchSelfCopyRemove(b *testing.B) {
	doc := bigArray(2500)
	for _, pairs := range []int{1000, 2000, 4000} {
		p := ops(pairs, `{"op":"copy","from":"/a/0","path":"/a/0"}`, `{"op":"remove","path":"/a/0"}`)
		b.Run(fmt.Sprint(pairs), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Apply(JSON, "ConfigMap", doc, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package kube

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func decodeAny(t *testing.T, s string) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	return v
}

// merge3 keeps raw where ctrlkit changed nothing and takes ctrlkit's
// changes elsewhere.
func TestMerge3(t *testing.T) {
	for _, tc := range []struct{ name, raw, orig, next, want string }{
		{"unchanged keeps raw", `{"a":1,"x":{"u":1}}`, `{"a":1}`, `{"a":1}`, `{"a":1,"x":{"u":1}}`},
		{"changed member", `{"a":1,"u":2}`, `{"a":1}`, `{"a":3}`, `{"a":3,"u":2}`},
		{"cleared member", `{"a":1,"u":2}`, `{"a":1}`, `{}`, `{"u":2}`},
		{"new member", `{"u":2}`, `{}`, `{"b":{"c":1}}`, `{"b":{"c":1},"u":2}`},
		{"nested", `{"s":{"a":1,"u":[1]}}`, `{"s":{"a":1}}`, `{"s":{"a":2}}`, `{"s":{"a":2,"u":[1]}}`},
		{"same-length list", `[{"n":1,"u":1},{"n":2,"u":2}]`, `[{"n":1},{"n":2}]`, `[{"n":1},{"n":5}]`, `[{"n":1,"u":1},{"n":5,"u":2}]`},
		{"appended by name", `[{"name":"a","u":1}]`, `[{"name":"a"}]`, `[{"name":"a","i":2},{"name":"b"}]`, `[{"name":"a","i":2,"u":1},{"name":"b"}]`},
		{"removed by name", `[{"name":"a","u":1},{"name":"b","u":2}]`, `[{"name":"a"},{"name":"b"}]`, `[{"name":"b"}]`, `[{"name":"b","u":2}]`},
		{"removed by equality", `[{"k":"a","u":1},{"k":"b","u":2}]`, `[{"k":"a"},{"k":"b"}]`, `[{"k":"b"}]`, `[{"k":"b","u":2}]`},
		{"scalar replaced", `{"a":"x"}`, `{"a":"x"}`, `{"a":{"b":1}}`, `{"a":{"b":1}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := merge3(decodeAny(t, tc.raw), decodeAny(t, tc.orig), decodeAny(t, tc.next))
			require.Equal(t, decodeAny(t, tc.want), got)
		})
	}
}

// The raw cache holds one version per uid, within its byte bound, least
// recently used out first.
func TestRawCache(t *testing.T) {
	c := newRawCache(10)
	c.put("a", "1", []byte("aaaa"))
	c.put("b", "1", []byte("bbbb"))
	_, ok := c.get("a", "1") // a is now the most recent
	require.True(t, ok)
	c.put("c", "1", []byte("cccc")) // over 10 bytes: b goes
	_, ok = c.get("b", "1")
	require.False(t, ok)
	c.put("a", "2", []byte("aa"))
	_, ok = c.get("a", "1")
	require.False(t, ok, "an older version is replaced")
	raw, ok := c.get("a", "2")
	require.True(t, ok)
	require.Equal(t, "aa", string(raw))
	n, b := c.size()
	require.Equal(t, 2, n)
	require.EqualValues(t, 6, b)
	c.drop("a")
	n, _ = c.size()
	require.Equal(t, 1, n)
	c.put("big", "1", make([]byte, 11))
	_, ok = c.get("big", "1")
	require.False(t, ok, "larger than the bound: not kept")
	off := newRawCache(-1)
	off.put("a", "1", []byte("x"))
	_, ok = off.get("a", "1")
	require.False(t, ok)
}

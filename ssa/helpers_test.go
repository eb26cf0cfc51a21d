package ssa

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

func replaceJSON(t *testing.T, b []byte, top map[string]any) string {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	for k, v := range top {
		m[k] = v
	}
	out, err := json.Marshal(m)
	require.NoError(t, err)
	return string(out)
}

func replaceReplicas(t *testing.T, b []byte, n int) string {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	m["spec"].(map[string]any)["replicas"] = n
	out, err := json.Marshal(m)
	require.NoError(t, err)
	return string(out)
}

package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDescriptorsUpToDate fails while the committed descriptor table is
// not what the generator writes from the current k8s.io/api and
// controllers/api (run go generate ./internal/protogen in the kube module).
func TestDescriptorsUpToDate(t *testing.T) {
	want, err := Generate()
	require.NoError(t, err)
	got, err := os.ReadFile(Output)
	require.NoError(t, err)
	require.True(t, string(want) == string(got), "%s is stale: run go generate ./internal/protogen in the kube module", Output)
}

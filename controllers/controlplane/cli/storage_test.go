package cli_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// ctrlkit up installs kind's default StorageClass: a claim without a
// class gets "standard" and, WaitForFirstConsumer, waits for a pod.
func TestUpDefaultStorageClass(t *testing.T) {
	claim := writeManifest(t, "claim.yaml", `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
`)
	code, out, errOut := upOnce(t, "-f", claim, "--events", "50")
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
	require.Contains(t, out, "waiting for first consumer to be created before binding")
}

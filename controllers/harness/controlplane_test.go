package harness_test

import (
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/harness"
	"github.com/stretchr/testify/require"
)

// A user's controller beside the whole control plane (every controller
// of the manager) rolling out a Deployment: the pods' runtime fields are
// normalized away, so the fixed twin passes; each run takes some tens of
// milliseconds of wall time.
func TestBesideTheWholeControlPlane(t *testing.T) {
	objs, err := api.Decode([]byte(`
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
`), api.DecodeOptions{})
	require.NoError(t, err)
	s := harness.Scenario{Name: "rollout", Objects: append(objs, parent("db", nil))}
	s.Options.Manager.Controllers = []string{"*"}
	start := time.Now()
	res := harness.Check(t, s, recordChild(true), harness.Options{Faults: []harness.Fault{harness.Crash, harness.TimeoutWritten}, Random: 4, Seed: 7})
	require.Equal(t, 2*2+4, res.Runs)
	kinds := map[string]int{}
	for _, o := range res.Reference.End {
		kinds[o.Kind]++
	}
	// ConfigMaps: the scenario's two and kube-root-ca.crt in each of the
	// four namespaces a cluster starts with (the root CA publisher's).
	require.Equal(t, map[string]int{"Deployment": 1, "ReplicaSet": 1, "Pod": 3, "ConfigMap": 2 + 4}, kinds)
	t.Logf("%d runs (and 2 reference runs) in %s", res.Runs, time.Since(start))
}

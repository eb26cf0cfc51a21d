package apiserver_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// Issue 32: pods/ephemeralcontainers as kubectl debug uses it: listed
// in discovery, GET returns the pod, a strategic merge PATCH adds an
// ephemeral container (and nothing else of the patch is written), PUT
// too; kube's validation answers 422; other methods are 405.
func TestEphemeralContainersSubresource(t *testing.T) {
	c, ts := start(t, cluster.Options{})
	runningPod(t, c, nil)
	const path = "/api/v1/namespaces/default/pods/p/ephemeralcontainers"
	require.Contains(t, do(t, ts, "GET", "/api/v1", "", "").raw,
		`{"name":"pods/ephemeralcontainers","singularName":"","namespaced":true,"kind":"Pod","verbs":["get","patch","update"]}`)

	r := do(t, ts, "GET", path, "", "")
	require.Equal(t, 200, r.code, r.raw)
	require.Equal(t, "Pod", r.body["kind"])

	r = do(t, ts, "PATCH", path, "application/strategic-merge-patch+json",
		`{"metadata":{"labels":{"ignored":"yes"}},"spec":{"ephemeralContainers":[{"name":"dbg","image":"busybox","targetContainerName":"web","command":["sleep","1d"]}]}}`)
	require.Equal(t, 200, r.code, r.raw)
	pod, _, err := c.Pods().Get(t.Context(), "default/p")
	require.NoError(t, err)
	require.Len(t, pod.Spec.EphemeralContainers, 1)
	require.Equal(t, "web", pod.Spec.EphemeralContainers[0].TargetContainerName)
	require.Equal(t, "Always", string(pod.Spec.EphemeralContainers[0].ImagePullPolicy)) // busybox: :latest
	require.Empty(t, pod.Labels["ignored"])

	// A second one merges by name; a changed one is refused.
	r = do(t, ts, "PATCH", path, "application/strategic-merge-patch+json",
		`{"spec":{"ephemeralContainers":[{"name":"dbg2","image":"busybox"}]}}`)
	require.Equal(t, 200, r.code, r.raw)
	pod, _, err = c.Pods().Get(t.Context(), "default/p")
	require.NoError(t, err)
	require.Len(t, pod.Spec.EphemeralContainers, 2)
	for _, tc := range []struct{ patch, message string }{
		{`{"spec":{"ephemeralContainers":[{"name":"dbg","image":"debian"}]}}`, `existing ephemeral containers \"dbg\" may not be changed`},
		{`{"spec":{"ephemeralContainers":[{"name":"web","image":"busybox"}]}}`, `name: Duplicate value: \"web\"`},
		{`{"spec":{"ephemeralContainers":[{"name":"dbg3","image":"busybox","targetContainerName":"nope"}]}}`, `targetContainerName: Not found: \"nope\"`},
		{`{"spec":{"ephemeralContainers":[{"name":"dbg3","image":"busybox","ports":[{"containerPort":80}]}]}}`, `ports: Forbidden: cannot be set for an Ephemeral Container`},
		{`{"spec":{"ephemeralContainers":[{"$patch":"replace"}]}}`, `existing ephemeral containers \"dbg\" may not be removed`},
	} {
		r = do(t, ts, "PATCH", path, "application/strategic-merge-patch+json", tc.patch)
		require.Equal(t, 422, r.code, "%s: %s", tc.patch, r.raw)
		require.Contains(t, r.raw, tc.message)
	}
	require.Equal(t, 405, do(t, ts, "DELETE", path, "", "").code)
	require.Equal(t, 405, do(t, ts, "POST", path, "application/json", "{}").code)
}

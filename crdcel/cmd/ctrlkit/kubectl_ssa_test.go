package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const (
	hpaV1Manifest = `apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 5
  targetCPUUtilizationPercentage: 60
`
	hpaV1Other = `apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: default}
spec:
  maxReplicas: 7
`
)

// The full build's ctrlkit up with a real kubectl:
//   - kubectl apply --server-side of an autoscaling/v1
//     HorizontalPodAutoscaler (served over the autoscaling/v2 store): the
//     v2 read has it converted, its Apply entry names autoscaling/v1;
//     another manager's maxReplicas conflicts (kubectl's error, exit 1)
//     until --force-conflicts;
//   - kubectl debug POD --image=busybox -c dbg run twice: both exit 0
//     and the pod keeps one ephemeral container, as against kube v1.37
//     (kubectl's strategic merge patch holds the new container and the
//     stored one under one name, which merge into the stored one,
//     unchanged); a second debug that changes it (a command) is kube's
//     422 "existing ephemeral containers "dbg" may not be changed";
//   - the ephemeral container's events (Pulled, Created, Started about
//     spec.ephemeralContainers{dbg}) are in kubectl describe pod.
func TestKubectlFullBuild(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	kubectl := kubectlUp(t, ctx)
	run := func(args ...string) string {
		t.Helper()
		out, err := kubectl(args...)
		require.NoError(t, err, "kubectl %s:\n%s", strings.Join(args, " "), out)
		return out
	}
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}

	t.Run("apply --server-side autoscaling/v1", func(t *testing.T) {
		out := run("apply", "--server-side", "-f", file("hpa.yaml", hpaV1Manifest))
		require.Contains(t, out, "horizontalpodautoscaler.autoscaling/web serverside-applied")
		require.Equal(t, "5 60", run("get", "horizontalpodautoscalers.v2.autoscaling", "web", "-o",
			"jsonpath={.spec.maxReplicas} {.spec.metrics[0].resource.target.averageUtilization}"))
		require.Equal(t, "kubectl Apply autoscaling/v1", run("get", "horizontalpodautoscalers.v1.autoscaling", "web", "--show-managed-fields", "-o",
			`jsonpath={range .metadata.managedFields[?(@.operation=="Apply")]}{.manager} {.operation} {.apiVersion}{end}`))

		other := file("other.yaml", hpaV1Other)
		out, err := kubectl("apply", "--server-side", "--field-manager=other", "-f", other)
		require.Error(t, err, out)
		require.Contains(t, out, `Apply failed with 1 conflict: conflict with "kubectl": .spec.maxReplicas`)
		require.Equal(t, "5", run("get", "horizontalpodautoscalers.v2.autoscaling", "web", "-o", "jsonpath={.spec.maxReplicas}"))

		out = run("apply", "--server-side", "--field-manager=other", "--force-conflicts", "-f", other)
		require.Contains(t, out, "serverside-applied")
		require.Equal(t, "7 60", run("get", "horizontalpodautoscalers.v2.autoscaling", "web", "-o",
			"jsonpath={.spec.maxReplicas} {.spec.metrics[0].resource.target.averageUtilization}"))
	})

	t.Run("debug twice", func(t *testing.T) {
		run("run", "web", "--image=nginx")
		require.Eventually(t, func() bool {
			out, err := kubectl("get", "pod", "web", "-o", "jsonpath={.status.phase}")
			return err == nil && out == "Running"
		}, 30*time.Second, 100*time.Millisecond)
		for range 2 {
			run("debug", "web", "--image=busybox", "-c", "dbg")
		}
		require.Equal(t, "dbg", run("get", "pod", "web", "-o", "jsonpath={.spec.ephemeralContainers[*].name}"))
		out, err := kubectl("debug", "web", "--image=busybox", "-c", "dbg", "--", "sleep", "1d")
		require.Error(t, err, out)
		require.Contains(t, out, `The Pod "web" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be changed`)

		// The ephemeral container's events, in kubectl describe.
		require.Eventually(t, func() bool {
			out, err := kubectl("get", "events", "-o",
				`jsonpath={range .items[?(@.involvedObject.name=="web")]}{.involvedObject.fieldPath} {.reason}{"\n"}{end}`)
			return err == nil && strings.Contains(out, "spec.ephemeralContainers{dbg} Pulled\n") &&
				strings.Contains(out, "spec.ephemeralContainers{dbg} Created\n") && strings.Contains(out, "spec.ephemeralContainers{dbg} Started\n")
		}, 30*time.Second, 100*time.Millisecond)
		out = run("describe", "pod", "web")
		require.Contains(t, out, `Container image "busybox" already present on machine and can be accessed by the pod`)
	})
}

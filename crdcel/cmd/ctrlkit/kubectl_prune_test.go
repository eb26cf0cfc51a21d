package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"github.com/ctrlkit/ctrlkit/internal/kubectltest"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/controlplane/cli"
)

// The set the ApplySet tests apply: a Deployment, a ConfigMap and a
// Service.
const (
	pruneDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 0
      containers: [{name: web, image: nginx}]
`
	pruneConfigMap = `apiVersion: v1
kind: ConfigMap
metadata: {name: cfg, namespace: default}
data: {color: blue}
`
	pruneService = `apiVersion: v1
kind: Service
metadata: {name: svc, namespace: other}
spec:
  selector: {app: web}
  ports: [{port: 80}]
`
)

// kubectlUp starts this build's `ctrlkit up --listen` and returns a
// kubectl runner on it with ApplySets on (KUBECTL_APPLYSET=true, which
// kubectl v1.32 needs).
func kubectlUp(t *testing.T, ctx context.Context) func(args ...string) (string, error) {
	t.Helper()
	kubectl := kubectltest.Path(t)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	upCtx, cancel := context.WithCancel(ctx)
	stderr := new(lockedBuffer)
	done := make(chan int, 1)
	go func() {
		done <- run(upCtx, []string{"up", "--listen", "127.0.0.1:0", "--nodes", "1", "--kubeconfig", kc, "-f", t.TempDir()},
			io.Discard, stderr, cli.Options{Stdin: strings.NewReader(""), Terminal: func() bool { return false }})
	}()
	t.Cleanup(func() { cancel(); <-done })
	re := regexp.MustCompile(` on (https?://127\.0\.0\.1:\d+)`)
	// Real sockets: a bounded poll for the address the command prints.
	require.Eventually(t, func() bool { return re.MatchString(stderr.String()) }, 30*time.Second, 50*time.Millisecond, "stderr: %s", stderr)
	cache := t.TempDir()
	kubectlRun := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", kc, "--cache-dir", cache}, args...)...)
		cmd.Env = append(os.Environ(), "KUBECTL_APPLYSET=true")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	require.Eventually(t, func() bool { _, err := kubectlRun("get", "namespace", "default"); return err == nil },
		20*time.Second, 100*time.Millisecond)
	return kubectlRun
}

// writeSet writes the manifests docs into a new directory and returns it.
func writeSet(t *testing.T, docs ...string) string {
	t.Helper()
	dir := t.TempDir()
	for i, d := range docs {
		require.NoError(t, os.WriteFile(filepath.Join(dir, string(rune('a'+i))+".yaml"), []byte(d), 0o600))
	}
	return dir
}

// setsCRD defines a cluster-scoped kind kubectl may use as an ApplySet
// parent (labelled applyset.kubernetes.io/is-parent-type).
const setsCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: sets.example.com
  labels: {applyset.kubernetes.io/is-parent-type: "true"}
spec:
  group: example.com
  scope: Cluster
  names: {plural: sets, singular: set, kind: Set}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object}}
`

// Issue 32: kubectl apply --prune --applyset (KEP-3659) against this
// build's ctrlkit up, with client-side apply and a Secret parent kubectl
// creates in the namespace, and with server-side apply and a
// cluster-scoped custom parent over two namespaces. kubectl server-side
// applies the parent's id label and contains-group-kinds (and
// additional-namespaces) annotations, stamps the part-of label on the
// members, and, applied again without the Deployment, lists the set's
// kinds by label selector in its namespaces and deletes the Deployment —
// its ReplicaSet and pods go with it — keeping the others; the parent's
// annotation then no longer names Deployment.apps. A member relabelled
// into another set is not pruned.
func TestKubectlApplyPruneApplySet(t *testing.T) {
	// The id kubectl gives a parent (KEP-3659: applyset-<hash>-v1 of
	// name.namespace.kind.group).
	idOf := func(name, namespace, kind, group string) string {
		h := sha256.Sum256([]byte(strings.Join([]string{name, namespace, kind, group}, ".")))
		return "applyset-" + base64.RawURLEncoding.EncodeToString(h[:]) + "-v1"
	}
	for _, tc := range []struct {
		name, id, get, svcNamespace, namespaces string
		args                                    []string
	}{
		{name: "client-side", id: idOf("set1", "default", "Secret", ""), get: "secret/set1",
			svcNamespace: "default", args: []string{"--applyset=set1", "-n", "default"}},
		{name: "server-side", id: idOf("set2", "", "Set", "example.com"), get: "sets.example.com/set2",
			svcNamespace: "other", namespaces: "default,other", args: []string{"--applyset=sets.example.com/set2", "--server-side"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
			defer cancel()
			kubectlRun := kubectlUp(t, ctx)
			run := func(args ...string) string {
				t.Helper()
				out, err := kubectlRun(args...)
				require.NoError(t, err, "kubectl %s:\n%s", strings.Join(args, " "), out)
				return out
			}
			apply := func(dir string) string {
				t.Helper()
				return run(append([]string{"apply", "--prune", "-f", dir}, tc.args...)...)
			}
			parentMeta := func(field string) string {
				t.Helper()
				return run("get", tc.get, "-n", "default", "-o", `jsonpath={.metadata.`+field+`}`)
			}
			svc := strings.Replace(pruneService, "namespace: other", "namespace: "+tc.svcNamespace, 1)
			if tc.svcNamespace == "other" {
				run("create", "namespace", "other")
				// kubectl creates only a Secret parent: a custom one must
				// exist, with the id label, kubectl's tooling annotation and
				// the contains-group-kinds annotation.
				run("apply", "-f", writeSet(t, setsCRD))
				run("wait", "--for=condition=Established", "crd/sets.example.com")
				require.Eventually(t, func() bool {
					_, err := kubectlRun("apply", "-f", writeSet(t, "apiVersion: example.com/v1\nkind: Set\nmetadata:\n  name: set2\n"+
						"  labels: {applyset.kubernetes.io/id: "+tc.id+"}\n  annotations: {applyset.kubernetes.io/tooling: kubectl/v1.32.0, applyset.kubernetes.io/contains-group-kinds: \"\"}\n"))
					return err == nil
				}, 20*time.Second, 100*time.Millisecond)
			}

			all := writeSet(t, pruneDeployment, pruneConfigMap, svc)
			out := apply(all)
			require.Contains(t, out, "deployment.apps/web ")
			require.Contains(t, out, "configmap/cfg ")
			require.Contains(t, out, "service/svc ")

			require.Equal(t, tc.id, parentMeta(`labels.applyset\.kubernetes\.io/id`))
			require.Equal(t, "ConfigMap,Deployment.apps,Service", parentMeta(`annotations.applyset\.kubernetes\.io/contains-group-kinds`))
			require.Equal(t, tc.namespaces, parentMeta(`annotations.applyset\.kubernetes\.io/additional-namespaces`))
			require.True(t, strings.HasPrefix(parentMeta(`annotations.applyset\.kubernetes\.io/tooling`), "kubectl/v1."))
			for _, obj := range [][]string{{"deployment/web", "default"}, {"configmap/cfg", "default"}, {"service/svc", tc.svcNamespace}} {
				require.Equal(t, tc.id, run("get", obj[0], "-n", obj[1], "-o", `jsonpath={.metadata.labels.applyset\.kubernetes\.io/part-of}`), obj)
			}
			// Real sockets and controllers: a bounded poll for the pods.
			require.Eventually(t, func() bool {
				out, err := kubectlRun("get", "pods", "-n", "default", "-l", "app=web", "-o", "name")
				return err == nil && strings.Count(out, "pod/") == 2
			}, 30*time.Second, 100*time.Millisecond)

			// The same set again: nothing pruned.
			require.NotContains(t, apply(all), "pruned")

			// Without the Deployment: pruned with its pods; the rest kept.
			out = apply(writeSet(t, pruneConfigMap, svc))
			require.Contains(t, out, "deployment.apps/web pruned")
			require.NotContains(t, out, "configmap/cfg pruned")
			require.NotContains(t, out, "service/svc pruned")
			require.Eventually(t, func() bool {
				out, err := kubectlRun("get", "deployments,replicasets,pods", "-n", "default", "-o", "name")
				return err == nil && strings.TrimSpace(out) == ""
			}, 30*time.Second, 100*time.Millisecond)
			run("get", "configmap", "cfg", "-n", "default")
			run("get", "service", "svc", "-n", tc.svcNamespace)
			require.Equal(t, "ConfigMap,Service", parentMeta(`annotations.applyset\.kubernetes\.io/contains-group-kinds`))
			require.Equal(t, tc.id, parentMeta(`labels.applyset\.kubernetes\.io/id`))

			// Without the Service: pruned, in its namespace; the ConfigMap,
			// relabelled into another set, is left though not applied.
			run("label", "configmap", "cfg", "-n", "default", "--overwrite", "applyset.kubernetes.io/part-of=applyset-other-v1")
			out = apply(writeSet(t, strings.Replace(pruneConfigMap, "name: cfg", "name: cfg2", 1)))
			require.Contains(t, out, "service/svc pruned")
			require.NotContains(t, out, "configmap/cfg pruned")
			run("get", "configmap", "cfg", "-n", "default")
			_, err := kubectlRun("get", "service", "svc", "-n", tc.svcNamespace)
			require.Error(t, err)
			require.Equal(t, "ConfigMap", parentMeta(`annotations.applyset\.kubernetes\.io/contains-group-kinds`))
		})
	}
}

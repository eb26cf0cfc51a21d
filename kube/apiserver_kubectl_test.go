package kube_test

import (
	"bufio"
	"context"
	"github.com/ctrlkit/ctrlkit/internal/kubectltest"
	"io/fs"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/manifests"
)

// kubectlPath returns the kubectl on PATH; without one the test fails
// under CI=true and is skipped elsewhere.
func kubectlPath(t *testing.T) string {
	t.Helper()
	p := kubectltest.Path(t)
	return p
}

// startServed starts a control plane of two nodes in real time, serves its
// API on a loopback port and returns a kubeconfig for it.
func startServed(t *testing.T, ctx context.Context) (*controlplane.ControlPlane, string) {
	t.Helper()
	cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 2})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, cp.Stop()) })
	srv, err := apiserver.New(cp.Cluster, apiserver.Options{})
	require.NoError(t, err)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kc, []byte(`apiVersion: v1
kind: Config
clusters:
- name: ctrlkit
  cluster: {server: "`+ts.URL+`"}
contexts:
- name: ctrlkit
  context: {cluster: ctrlkit, user: nobody}
current-context: ctrlkit
users:
- name: nobody
  user: {}
`), 0o600))
	return cp, kc
}

// The manifests (examples from Kubernetes' documentation) through a real kubectl: apply, get -o wide, get -w,
// scale, rollout status, get endpoints, a cascading delete.
func TestKubectlAgainstServedAPI(t *testing.T) {
	kubectl := kubectlPath(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	_, kc := startServed(t, ctx)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", kc}, args...)...)
		began := time.Now()
		out, err := cmd.CombinedOutput()
		t.Logf("kubectl %s: %v", strings.Join(args, " "), time.Since(began).Round(time.Millisecond))
		require.NoError(t, err, "kubectl %s:\n%s", strings.Join(args, " "), out)
		return string(out)
	}

	// The demo set as shipped, with one change: the Deployment's pods stop
	// 1 s after being asked to (the simulated kubelet's stop-after), not
	// at the end of their 30 s grace period, to keep the test short.
	dir := t.TempDir()
	entries, err := fs.ReadDir(manifests.FS, ".")
	require.NoError(t, err)
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".yaml") && !strings.HasSuffix(name, ".json") {
			continue
		}
		b, err := fs.ReadFile(manifests.FS, name)
		require.NoError(t, err)
		if name == "web-deployment.yaml" {
			const tmpl = "  template:\n    metadata:\n"
			require.Contains(t, string(b), tmpl)
			b = []byte(strings.Replace(string(b), tmpl, tmpl+"      annotations: {sim.ctrlkit.io/stop-after: 1s}\n", 1))
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o600))
	}
	out := run("apply", "-f", dir)
	for _, want := range []string{"namespace/demo created", "resourcequota/compute created", "pod/toolbox created",
		"deployment.apps/hello-web created", "service/hello-web created", "statefulset.apps/cache created",
		"daemonset.apps/node-agent created", "job.batch/checksum created", "cronjob.batch/heartbeat created",
		"service/cache created", "node/edge-1 created"} {
		require.Contains(t, out, want)
	}
	require.Contains(t, run("apply", "-f", filepath.Join(dir, "web-deployment.yaml")), "deployment.apps/hello-web unchanged")
	require.Contains(t, run("rollout", "status", "deployment/hello-web", "--timeout=20s"), `deployment "hello-web" successfully rolled out`)

	// get pods -o wide: the wide columns, three running pods on the nodes.
	lines := strings.Split(strings.TrimSpace(run("get", "pods", "-l", "app=hello-web", "-o", "wide")), "\n")
	require.Regexp(t, `^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$`, lines[0])
	require.Len(t, lines, 4, "%s", strings.Join(lines, "\n"))
	for _, l := range lines[1:] {
		require.Regexp(t, `^hello-web-\S+\s+1/1\s+Running\s+0\s+\S+\s+10\.244\.\d+\.\d+\s+node-[12]\s+<none>\s+<none>$`, l)
	}

	// get -w sees the pods a scale-up adds.
	wctx, wcancel := context.WithCancel(ctx)
	defer wcancel()
	watch := exec.CommandContext(wctx, kubectl, "--kubeconfig", kc, "get", "pods", "-l", "app=hello-web", "-w", "--output-watch-events")
	stdout, err := watch.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, watch.Start())
	defer watch.Wait()
	events := make(chan string)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			events <- sc.Text()
		}
	}()
	next := func() string {
		t.Helper()
		select {
		case l, ok := <-events:
			require.True(t, ok, "kubectl get -w ended")
			return l
		case <-ctx.Done():
			t.Fatal("no event from kubectl get -w")
		}
		return ""
	}
	require.Regexp(t, `^EVENT\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$`, next())
	for range 3 {
		require.Regexp(t, `^ADDED\s+hello-web-\S+\s+1/1\s+Running`, next())
	}
	require.Contains(t, run("scale", "deployment", "hello-web", "--replicas=5"), "deployment.apps/hello-web scaled")
	added := map[string]bool{}
	for len(added) < 2 {
		l := next()
		if f := strings.Fields(l); len(f) > 1 && f[0] == "ADDED" {
			added[f[1]] = true
		} else {
			require.Regexp(t, `^MODIFIED\s+hello-web-`, l)
		}
	}
	wcancel()
	require.Contains(t, run("rollout", "status", "deployment/hello-web", "--timeout=20s"), "successfully rolled out")
	require.Regexp(t, `hello-web\s+5/5\s+5\s+5\s`, run("get", "deployment", "hello-web"))

	// get endpoints: the five ready pods behind the service.
	ep := run("get", "endpoints", "hello-web")
	require.Regexp(t, `(?m)^NAME\s+ENDPOINTS\s+AGE$`, ep)
	require.Regexp(t, `(?m)^hello-web\s+10\.244\.\d+\.\d+:80,10\.244\.\d+\.\d+:80,10\.244\.\d+\.\d+:80 \+ 2 more\.\.\.\s+\S+$`, ep)

	// A foreground delete takes the ReplicaSet and the pods with it.
	require.Contains(t, run("delete", "deployment", "hello-web", "--cascade=foreground"), `deployment.apps "hello-web" deleted`)
	for {
		pods := run("get", "pods,replicasets", "-l", "app=hello-web")
		if strings.Contains(pods, "No resources found") {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the deployment's pods are not gone:\n%s", pods)
		case <-time.After(200 * time.Millisecond):
		}
	}
	_, err = exec.CommandContext(ctx, kubectl, "--kubeconfig", kc, "get", "deployment", "hello-web").CombinedOutput()
	require.Error(t, err)
	out2, _ := exec.CommandContext(ctx, kubectl, "--kubeconfig", kc, "get", "deployment", "hello-web").CombinedOutput()
	require.Contains(t, string(out2), `deployments.apps "hello-web" not found`)
}

// kubectl explain reads the OpenAPI v3 documents the server builds from
// the Go types and their doc comments (a built-in kind's field, a whole
// kind recursively, a CustomResourceDefinition's kind from its schema);
// kubectl apply, which validates by default, sends fieldValidation=Strict
// and gets the server's 400 for a manifest with an unknown field, also
// with --validate=true and strict.
func TestKubectlExplainAndValidation(t *testing.T) {
	kubectl := kubectlPath(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	_, kc := startServed(t, ctx)
	exec1 := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", kc}, args...)...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	run := func(args ...string) string {
		t.Helper()
		out, err := exec1(args...)
		require.NoError(t, err, "kubectl %s:\n%s", strings.Join(args, " "), out)
		return out
	}

	out := run("explain", "deployment.spec.strategy")
	require.Regexp(t, `(?m)^GROUP:\s+apps$`, out)
	require.Regexp(t, `(?m)^KIND:\s+Deployment$`, out)
	require.Regexp(t, `(?m)^VERSION:\s+v1$`, out)
	require.Regexp(t, `(?m)^FIELD: strategy <DeploymentStrategy>$`, out)
	require.Contains(t, out, "Strategy replaces old pods with new ones.")
	require.Regexp(t, `(?m)^\s+rollingUpdate\s+<RollingUpdateDeployment>$`, out)
	require.Regexp(t, `(?m)^\s+type\s+<string>$`, out)

	out = run("explain", "pods", "--recursive")
	require.Regexp(t, `(?m)^KIND:\s+Pod$`, out)
	require.Regexp(t, `(?m)^\s+metadata\s+<ObjectMeta>$`, out)
	require.Regexp(t, `(?m)^\s+containers\s+<\[\]Container>`, out)
	require.Regexp(t, `(?m)^\s+image\s+<string>$`, out)
	require.Regexp(t, `(?m)^\s+nodeName\s+<string>$`, out)

	dir := t.TempDir()
	crd := filepath.Join(dir, "crd.yaml")
	require.NoError(t, os.WriteFile(crd, []byte(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab, shortNames: [ct]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: Spec is when and what the cron tab runs.
            properties:
              cronSpec: {type: string, description: CronSpec is the schedule in cron syntax.}
              replicas: {type: integer}
`), 0o600))
	run("apply", "-f", crd)
	run("wait", "--for=condition=Established", "crd/crontabs.stable.example.com", "--timeout=20s")
	var explained string
	require.Eventually(t, func() bool { // discovery caches refresh
		explained, _ = exec1("explain", "crontab.spec")
		return strings.Contains(explained, "CronSpec is the schedule in cron syntax.")
	}, 20*time.Second, 200*time.Millisecond, "%s", explained)
	require.Regexp(t, `(?m)^KIND:\s+CronTab$`, explained)
	require.Regexp(t, `(?m)^FIELD: spec <Object>$`, explained)
	require.Regexp(t, `(?m)^\s+cronSpec\s+<string>$`, explained)

	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte(`apiVersion: v1
kind: ConfigMap
metadata: {name: bad, namespace: default}
data: {a: b}
colour: red
`), 0o600))
	for _, flags := range [][]string{nil, {"--validate=true"}, {"--validate=strict"}} {
		out, err := exec1(append([]string{"apply", "-f", bad}, flags...)...)
		require.Error(t, err, "%v: %s", flags, out)
		require.Contains(t, out, `Error from server (BadRequest)`, "%v", flags)
		require.Contains(t, out, `unknown field "colour"`, "%v", flags)
	}
	out, err := exec1("get", "configmap", "bad", "-n", "default")
	require.Error(t, err, out)
	require.Contains(t, out, `configmaps "bad" not found`)
	good := filepath.Join(dir, "good.yaml")
	require.NoError(t, os.WriteFile(good, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: good, namespace: default}\ndata: {a: b}\n"), 0o600))
	require.Contains(t, run("apply", "--validate=true", "-f", good), "configmap/good created")
	out = run("apply", "-f", good)
	require.Contains(t, out, "configmap/good unchanged")
	require.NotContains(t, out, "warning", "the patch is computed from the v3 schemas without error")
}

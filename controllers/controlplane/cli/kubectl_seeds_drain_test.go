package cli_test

import (
	"context"
	"github.com/ctrlkit/ctrlkit/internal/kubectltest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/internal/sharedtest"
)

// seedsDB is what issue 31 adds to the seeds' manifests: a StatefulSet
// whose claims the default StorageClass (kind's `standard`, a
// WaitForFirstConsumer local-path class) provisions on its pods' nodes,
// one pod per node, and a budget allowing one of them down.
const seedsDB = `apiVersion: v1
kind: Service
metadata: {name: db, namespace: default}
spec:
  clusterIP: None
  selector: {app: db}
  ports: [{port: 5432}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      terminationGracePeriodSeconds: 0
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {matchLabels: {app: db}}
            topologyKey: kubernetes.io/hostname
      containers:
      - name: pg
        image: postgres:16
        volumeMounts: [{name: data, mountPath: /var/lib/postgresql/data}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: db, namespace: default}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: db}}
`

// Issue 31, "done when": `ctrlkit up` on the seeds' manifests (the shared
// folder, read in place, the removed batch/v1beta1 CronJob accepted), a
// StatefulSet with claim templates and a PodDisruptionBudget converges,
// and so does a drained node. As on a kind cluster: the evicted database
// pod comes back Pending — its claim's volume is pinned to the cordoned
// node (local-path), which the scheduler says — while the budget allows
// no further disruption; uncordoned, the node takes it back and
// everything runs again.
func TestKubectlSeedsStatefulSetDrain(t *testing.T) {
	kubectl := kubectltest.Path(t)
	seeds := sharedtest.Dir(t, "manifests")
	dir := t.TempDir()
	ns := filepath.Join(dir, "ns.yaml")
	require.NoError(t, os.WriteFile(ns, []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: demo}\n"), 0o600))
	db := filepath.Join(dir, "db.yaml")
	require.NoError(t, os.WriteFile(db, []byte(seedsDB), 0o600))
	kc := filepath.Join(dir, "kubeconfig")
	_, stderr, _ := upServing(t, "--nodes", "3", "--kubeconfig", kc, "--accept-removed-versions", "-f", ns, "-f", seeds, "-f", db)
	ctx, cancel := context.WithTimeout(t.Context(), 55*time.Second)
	defer cancel()
	cache := t.TempDir()
	command := func(args ...string) *exec.Cmd {
		return exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", kc, "--cache-dir", cache}, args...)...)
	}
	run := func(args ...string) string {
		t.Helper()
		out, err := command(args...).CombinedOutput()
		require.NoError(t, err, "kubectl %s:\n%s\nctrlkit: %s", strings.Join(args, " "), out, stderr)
		return string(out)
	}
	get := func(args ...string) string {
		out, err := command(append([]string{"get"}, args...)...).CombinedOutput()
		if err != nil {
			return "error: " + string(out)
		}
		return strings.TrimSpace(string(out))
	}
	converged := func() string {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"statefulset", "web", "db", "-o", "jsonpath={.items[*].status.readyReplicas}"}, "2 2"},
			{[]string{"pvc", "-l", "app=db", "-o", "jsonpath={.items[*].status.phase}"}, "Bound Bound"},
			{[]string{"job", "pi", "-o", "jsonpath={.status.succeeded}"}, "1"},
			{[]string{"pod", "demo-pod", "-n", "demo", "-o", "jsonpath={.status.phase}"}, "Running"},
			// One daemon per simulated node; node.json's node has no kubelet.
			{[]string{"daemonset", "-n", "kube-system", "fluentd-elasticsearch", "-o", "jsonpath={.status.numberReady}"}, "3"},
			{[]string{"endpoints", "nginx", "-o", "jsonpath={.subsets[*].addresses[*].hostname}"}, "web-0 web-1"},
			{[]string{"pdb", "db", "-o", "jsonpath={.status.currentHealthy}/{.status.desiredHealthy} {.status.disruptionsAllowed}"}, "2/1 1"},
		} {
			got := get(c.args...)
			if strings.Contains(c.args[len(c.args)-1], "[*]") { // a set: any order
				f := strings.Fields(got)
				slices.Sort(f)
				got = strings.Join(f, " ")
			}
			if got != c.want {
				return "kubectl get " + strings.Join(c.args, " ") + ": " + got + ", want " + c.want
			}
		}
		return ""
	}
	require.EventuallyWithT(t, func(c *assert.CollectT) { assert.Empty(c, converged(), "not converged") }, 30*time.Second, 250*time.Millisecond)
	// Each claim was provisioned on the node its pod was scheduled to.
	for _, ord := range []string{"0", "1"} {
		node := get("pod", "db-"+ord, "-o", "jsonpath={.spec.nodeName}")
		require.Equal(t, node, get("pvc", "data-db-"+ord, "-o", `jsonpath={.metadata.annotations.volume\.kubernetes\.io/selected-node}`))
	}

	// Drain the node of db-0: the budget allows its eviction.
	node := get("pod", "db-0", "-o", "jsonpath={.spec.nodeName}")
	uid := get("pod", "db-0", "-o", "jsonpath={.metadata.uid}")
	out := run("drain", node, "--ignore-daemonsets", "--delete-emptydir-data", "--force", "--timeout=40s")
	require.Contains(t, out, "node/"+node+" cordoned")
	require.Contains(t, out, "pod/db-0 evicted")
	require.Contains(t, out, "node/"+node+" drained")

	// db-0 is back, with its claim, and cannot run anywhere: its volume is
	// on the cordoned node, the other nodes' are the wrong nodes. The
	// budget allows no more disruption. Everything else runs.
	pending := func() string {
		if got := get("pod", "db-0", "-o", "jsonpath={.metadata.uid} {.status.phase} {.spec.nodeName}"); strings.HasPrefix(got, uid) || !strings.HasSuffix(got, " Pending") {
			return "db-0: " + got
		}
		events := get("events", "--field-selector", "involvedObject.name=db-0,reason=FailedScheduling", "-o", "jsonpath={.items[*].message}")
		if !regexp.MustCompile(`0/4 nodes are available: .*1 node\(s\) were unschedulable`).MatchString(events) ||
			!strings.Contains(events, "node(s) didn't match PersistentVolume's node affinity") {
			return "FailedScheduling: " + events
		}
		if got := get("pdb", "db", "-o", "jsonpath={.status.currentHealthy} {.status.disruptionsAllowed}"); got != "1 0" {
			return "pdb: " + got
		}
		if got := get("statefulset", "web", "-o", "jsonpath={.status.readyReplicas}"); got != "2" {
			return "web: " + got
		}
		if got := get("pods", "-A", "--field-selector", "spec.nodeName="+node, "-o", "jsonpath={.items[*].metadata.name}"); !regexp.MustCompile(`^fluentd-elasticsearch-[a-z0-9]+$`).MatchString(got) {
			return "pods left on " + node + ": " + got
		}
		return ""
	}
	require.EventuallyWithT(t, func(c *assert.CollectT) { assert.Empty(c, pending(), "not as expected after the drain") }, 20*time.Second, 250*time.Millisecond)

	// Uncordoned, the node takes db-0 back: converged again.
	run("uncordon", node)
	require.EventuallyWithT(t, func(c *assert.CollectT) { assert.Empty(c, converged(), "not converged after uncordon") }, 20*time.Second, 250*time.Millisecond)
	require.Equal(t, node, get("pod", "db-0", "-o", "jsonpath={.spec.nodeName}"))
}

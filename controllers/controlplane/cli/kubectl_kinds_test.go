package cli_test

import (
	"context"
	"github.com/ctrlkit/ctrlkit/internal/kubectltest"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// kindsManifest holds one object of each kind served without a
// controller.
const kindsManifest = `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: default}
spec:
  minAvailable: 50%
  selector: {matchLabels: {app: web}}
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: nginx}
spec:
  controller: k8s.io/ingress-nginx
  parameters: {apiGroup: k8s.example.com, kind: IngressParameters, name: external-lb}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: default}
spec:
  ingressClassName: nginx
  tls: [{hosts: [shop.example.com], secretName: shop-tls}]
  rules:
  - host: shop.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: web, namespace: default}
spec:
  podSelector: {matchLabels: {app: web}}
  egress: [{ports: [{port: 53, protocol: UDP}]}]
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
description: important pods
---
apiVersion: v1
kind: LimitRange
metadata: {name: limits, namespace: default}
spec:
  limits:
  - type: Container
    default: {cpu: 500m, memory: 256Mi}
    defaultRequest: {cpu: 100m, memory: 128Mi}
    max: {cpu: "1"}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-abc, namespace: default, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
endpoints: [{addresses: [10.0.0.1]}, {addresses: [10.0.0.2]}]
ports: [{name: http, port: 80}]
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: hostpath.csi.k8s.io}
spec: {podInfoOnMount: true}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: node-1}
spec:
  drivers: [{name: hostpath.csi.k8s.io, nodeID: node-1}]
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: va-1}
spec:
  attacher: hostpath.csi.k8s.io
  nodeName: node-1
  source: {persistentVolumeName: pv-1}
`

// A real kubectl applies one object of each kind served without a
// controller, lists them with kube's columns (short names included),
// sees LimitRange defaults and PriorityClass resolution on a pod, and
// is refused an invalid object (422) and a pod over the LimitRange's
// max (403) with kube-apiserver's messages.
func TestKubectlKinds(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	kubectl := kubectltest.Path(t)
	lr, pr := admission.NewLimitRanger(), admission.NewPriority()
	c, err := cluster.New(ctx, cluster.Options{Mutating: []admission.MutatingFunc{lr.Admit, pr.Admit},
		Admission: []admission.ValidatingFunc{lr.Validate, pr.Validate}})
	require.NoError(t, err)
	require.NoError(t, lr.SetClient(c))
	require.NoError(t, pr.SetClient(c))
	require.NoError(t, admission.EnsureSystemPriorityClasses(ctx, c))
	srv, err := apiserver.New(c, apiserver.Options{})
	require.NoError(t, err)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	kc := writeKubeconfig(t, ts.URL)
	cache := t.TempDir()
	kubectlRun := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", kc, "--cache-dir", cache}, args...)...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	run := func(args ...string) string {
		t.Helper()
		out, err := kubectlRun(args...)
		require.NoError(t, err, "kubectl %s:\n%s", strings.Join(args, " "), out)
		return out
	}
	dir := t.TempDir()
	manifest := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	out := run("apply", "-f", manifest("kinds.yaml", kindsManifest))
	for _, want := range []string{"poddisruptionbudget.policy/web created", "ingressclass.networking.k8s.io/nginx created",
		"ingress.networking.k8s.io/web created", "networkpolicy.networking.k8s.io/web created", "priorityclass.scheduling.k8s.io/high created",
		"limitrange/limits created", "endpointslice.discovery.k8s.io/web-abc created", "csidriver.storage.k8s.io/hostpath.csi.k8s.io created",
		"csinode.storage.k8s.io/node-1 created", "volumeattachment.storage.k8s.io/va-1 created"} {
		require.Contains(t, out, want)
	}
	// header and row of each table, columns separated by 2+ spaces.
	table := func(args ...string) [][]string {
		t.Helper()
		var rows [][]string
		for _, line := range strings.Split(strings.TrimSpace(run(append([]string{"get"}, args...)...)), "\n") {
			rows = append(rows, regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1))
		}
		return rows
	}
	check := func(rows [][]string, header, row []string) {
		t.Helper()
		require.Equal(t, header, rows[0])
		for _, r := range rows[1:] {
			if r[0] == row[0] {
				// Age and Created At vary: compare the others. An
				// empty cell (an ingress's address) collapses into the
				// spaces around it, so such a row ends with its age.
				for i, h := range header {
					if (h == "AGE" || h == "CREATED AT") && len(r) == len(header) && len(row) == len(header) {
						r[i], row[i] = "", ""
					}
				}
				if len(r) < len(header) {
					r[len(r)-1] = ""
				}
				require.Equal(t, row, r)
				return
			}
		}
		t.Fatalf("no row %s in %v", row[0], rows)
	}
	check(table("pdb"), []string{"NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"}, []string{"web", "50%", "N/A", "0", ""})
	check(table("ing"), []string{"NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"}, []string{"web", "nginx", "shop.example.com", "80, 443", ""})
	check(table("ingressclasses"), []string{"NAME", "CONTROLLER", "PARAMETERS", "AGE"},
		[]string{"nginx", "k8s.io/ingress-nginx", "IngressParameters.k8s.example.com/external-lb", ""})
	check(table("netpol"), []string{"NAME", "POD-SELECTOR", "AGE"}, []string{"web", "app=web", ""})
	check(table("pc"), []string{"NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"}, []string{"high", "1000", "false", "", "PreemptLowerPriority"})
	check(table("pc"), []string{"NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"},
		[]string{"system-node-critical", "2000001000", "false", "", "PreemptLowerPriority"})
	check(table("limits"), []string{"NAME", "CREATED AT"}, []string{"limits", ""})
	check(table("endpointslices"), []string{"NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"}, []string{"web-abc", "IPv4", "80", "10.0.0.1,10.0.0.2", ""})
	check(table("csidrivers"), []string{"NAME", "ATTACHREQUIRED", "PODINFOONMOUNT", "STORAGECAPACITY", "TOKENREQUESTS", "REQUIRESREPUBLISH", "MODES", "AGE"},
		[]string{"hostpath.csi.k8s.io", "true", "true", "false", "<unset>", "false", "Persistent", ""})
	check(table("csinodes"), []string{"NAME", "DRIVERS", "AGE"}, []string{"node-1", "1", ""})
	check(table("volumeattachments"), []string{"NAME", "ATTACHER", "PV", "NODE", "ATTACHED", "AGE"},
		[]string{"va-1", "hostpath.csi.k8s.io", "pv-1", "node-1", "false", ""})
	// NetworkPolicy's defaulted policyTypes.
	require.Equal(t, "Ingress Egress", run("get", "netpol", "web", "-o", "jsonpath={.spec.policyTypes[*]}"))

	// A pod gets the LimitRange's defaults and its class's priority.
	run("run", "app", "--image=nginx", "--overrides", `{"spec":{"priorityClassName":"high"}}`)
	require.Equal(t, "100m 500m 1000 PreemptLowerPriority", run("get", "pod", "app", "-o",
		"jsonpath={.spec.containers[0].resources.requests.cpu} {.spec.containers[0].resources.limits.cpu} {.spec.priority} {.spec.preemptionPolicy}"))

	// Refusals: 422 for an invalid object, 403 from admission.
	out, err = kubectlRun("apply", "-f", manifest("bad-pdb.yaml", `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: bad, namespace: default}
spec: {minAvailable: 1, maxUnavailable: 1}
`))
	require.Error(t, err)
	require.Contains(t, out, `The PodDisruptionBudget "bad" is invalid: spec: Invalid value: minAvailable and maxUnavailable cannot be both set`)
	out, err = kubectlRun("run", "big", "--image=nginx", "--overrides", `{"spec":{"containers":[{"name":"big","image":"nginx","resources":{"limits":{"cpu":"2"}}}]}}`)
	require.Error(t, err)
	require.Contains(t, out, `pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2`)
	out, err = kubectlRun("run", "lost", "--image=nginx", "--overrides", `{"spec":{"priorityClassName":"nope"}}`)
	require.Error(t, err)
	require.Contains(t, out, `pods "lost" is forbidden: no PriorityClass with name nope was found`)
}

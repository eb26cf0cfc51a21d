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

	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// kubectlOn returns a function running a real kubectl against the API
// server of a new cluster (no controllers), served in this process.
func kubectlOn(t *testing.T, ctx context.Context) func(args ...string) (string, error) {
	t.Helper()
	kubectl := kubectltest.Path(t)
	c, err := cluster.New(ctx, cluster.Options{})
	require.NoError(t, err)
	srv, err := apiserver.New(c, apiserver.Options{})
	require.NoError(t, err)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	kc := writeKubeconfig(t, ts.URL)
	cache := t.TempDir()
	return func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", kc, "--cache-dir", cache}, args...)...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
}

// A real kubectl applies a CustomResourceDefinition and uses its kind as
// on a real cluster: wait for Established, apply a custom resource, get
// it with the definition's printer columns and short name, see the
// schema's defaults and pruning, patch, scale, read it at another served
// version, and delete the definition with its objects.
func TestKubectlCRD(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	kubectlRun := kubectlOn(t, ctx)
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
	crd := manifest("crd.yaml", `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: shirts.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: shirts, singular: shirt, kind: Shirt, shortNames: [sh], categories: [all]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    additionalPrinterColumns:
    - {name: Color, type: string, jsonPath: .spec.color}
    - {name: Size, type: string, jsonPath: .spec.size}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              color: {type: string}
              size: {type: string, default: M}
              replicas: {type: integer}
          status:
            type: object
            properties:
              replicas: {type: integer}
  - name: v1beta1
    served: true
    storage: false
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`)
	require.Equal(t, "customresourcedefinition.apiextensions.k8s.io/shirts.stable.example.com created\n", run("apply", "-f", crd))
	require.Contains(t, run("wait", "--for", "condition=established", "--timeout=10s", "crd/shirts.stable.example.com"), "condition met")

	cr := manifest("shirt.yaml", `apiVersion: stable.example.com/v1
kind: Shirt
metadata: {name: tee}
spec: {color: red, replicas: 1}
`)
	require.Equal(t, "shirt.stable.example.com/tee created\n", run("apply", "-f", cr))
	out := run("get", "shirts")
	require.Regexp(t, regexp.MustCompile(`^NAME\s+COLOR\s+SIZE\s*\ntee\s+red\s+M?\s*\n$`), out)
	require.Contains(t, run("get", "sh"), "tee")
	require.Contains(t, run("get", "all"), "shirt.stable.example.com/tee")
	//TMP

	run("patch", "shirt", "tee", "--type=merge", "-p", `{"spec":{"color":"blue"}}`)
	require.Equal(t, "blue", run("get", "shirt", "tee", "-o", "jsonpath={.spec.color}"))
	require.Equal(t, "2", run("get", "shirt", "tee", "-o", "jsonpath={.metadata.generation}"))
	require.Equal(t, "shirt.stable.example.com/tee scaled\n", run("scale", "shirt", "tee", "--replicas=3"))
	require.Equal(t, "3", run("get", "shirt", "tee", "-o", "jsonpath={.spec.replicas}"))
	require.Equal(t, "stable.example.com/v1beta1", run("get", "shirts.v1beta1.stable.example.com", "tee", "-o", "jsonpath={.apiVersion}"))

	out, err := kubectlRun("patch", "shirt", "tee", "--type=strategic", "-p", `{"spec":{"color":"green"}}`)
	require.Error(t, err)
	require.Contains(t, out, "application/strategic-merge-patch+json is not supported by stable.example.com/v1, Kind=Shirt")

	desc := run("describe", "shirt", "tee")
	require.Regexp(t, `(?m)^Name:\s+tee$`, desc)
	require.Regexp(t, `(?m)^API Version:\s+stable.example.com/v1$`, desc)
	require.Regexp(t, `(?m)^\s+Color:\s+blue$`, desc)

	// Bad input gets kube-apiserver's answers: a field of the wrong type
	// (422), an unknown field under kubectl's strict validation (400), a
	// definition whose schema is not structural (422).
	out, err = kubectlRun("patch", "shirt", "tee", "--type=merge", "-p", `{"spec":{"replicas":"many"}}`)
	require.Error(t, err)
	require.Contains(t, out, `The Shirt "tee" is invalid: spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`)
	bad := manifest("bad.yaml", "apiVersion: stable.example.com/v1\nkind: Shirt\nmetadata: {name: bad}\nspec: {colour: red}\n")
	out, err = kubectlRun("apply", "-f", bad)
	require.Error(t, err)
	require.Contains(t, out, `strict decoding error: unknown field "spec.colour"`)
	nonStructural := manifest("ns.yaml", `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: hats.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: hats, kind: Hat}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {properties: {size: {type: integer}}}
`)
	out, err = kubectlRun("apply", "-f", nonStructural)
	require.Error(t, err)
	require.Contains(t, out, `The CustomResourceDefinition "hats.stable.example.com" is invalid: spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields`)

	require.Contains(t, run("delete", "crd", "shirts.stable.example.com"), "deleted")
	out, err = kubectlRun("get", "shirts")
	require.Error(t, err, out)
	// kubectl's discovery cache may still list the resource for a moment.
	require.Regexp(t, `the server doesn't have a resource type "shirts"|Resource=shirts": the server could not find the requested resource`, out)
}

// sharedCRDDir is the folder of real CustomResourceDefinitions of popular
// operators beside the checkout (../shared/crds from the repository root,
// as in CI), or $CTRLKIT_SHARED/crds. The test fails, not skips, when it
// is missing: the CRDs are part of its input.
func sharedCRDDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "..", "shared", "crds")
	if s := os.Getenv("CTRLKIT_SHARED"); s != "" {
		dir = filepath.Join(s, "crds")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in %s (the shared folder must be beside the checkout, or CTRLKIT_SHARED name it): %v", dir, err)
	}
	return dir
}

// The six real CRDs of ../shared/crds (cert-manager, prometheus-operator,
// Gateway API, Argo Rollouts) install with kubectl and serve their kinds
// as on a real cluster: Established, an object of each created, listed
// with the definition's printer columns (conditions picked by JSONPath
// filters, the Rollout's replica counts), scaled through the Rollout's
// scale subresource, and refused with kube's 422 when it breaks the
// schema.
func TestKubectlSharedCRDs(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	kubectlRun := kubectlOn(t, ctx)
	run := func(args ...string) string {
		t.Helper()
		out, err := kubectlRun(args...)
		require.NoError(t, err, "kubectl %s:\n%s", strings.Join(args, " "), out)
		return out
	}
	dir := sharedCRDDir(t)
	for _, f := range []string{"cert-manager.io_certificates.yaml", "monitoring.coreos.com_servicemonitors.yaml",
		"monitoring.coreos.com_prometheusrules.yaml", "gateway.networking.k8s.io_gatewayclasses.yaml",
		"gateway.networking.k8s.io_gateways.yaml", "argoproj.io_rollouts.yaml"} {
		// kubectl create, as these CRDs' projects advise: a client-side
		// apply's last-applied annotation of the largest would pass the
		// 256 KiB annotation limit.
		out := run("create", "-f", filepath.Join(dir, f))
		require.Contains(t, out, "created")
		if strings.HasPrefix(f, "gateway.networking.k8s.io_gateways") {
			// Gateway API checks its objects with CEL rules, which this
			// server does not evaluate, and says so.
			require.Regexp(t, `Warning: spec.versions\[0\].schema.openAPIV3Schema: \d+ x-kubernetes-validations rules \(CEL\) are not evaluated by this server`, out)
		}
	}
	run("wait", "--for", "condition=established", "--timeout=10s", "crd/certificates.cert-manager.io",
		"crd/servicemonitors.monitoring.coreos.com", "crd/prometheusrules.monitoring.coreos.com",
		"crd/gatewayclasses.gateway.networking.k8s.io", "crd/gateways.gateway.networking.k8s.io", "crd/rollouts.argoproj.io")

	objs := filepath.Join(t.TempDir(), "objects.yaml")
	require.NoError(t, os.WriteFile(objs, []byte(`apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web}
spec:
  secretName: web-tls
  dnsNames: [web.example.com]
  issuerRef: {name: letsencrypt, kind: ClusterIssuer}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  endpoints: [{port: metrics, interval: 30s}]
---
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata: {name: web}
spec:
  groups:
  - name: web
    rules:
    - alert: WebDown
      expr: up{job="web"} == 0
      for: 5m
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: example}
spec: {controllerName: example.com/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web}
spec:
  gatewayClassName: example
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.27}]
  strategy:
    canary:
      steps: [{setWeight: 20}, {pause: {duration: 1h}}]
`), 0o600))
	out := run("create", "-f", objs)
	for _, want := range []string{"certificate.cert-manager.io/web created", "servicemonitor.monitoring.coreos.com/web created",
		"prometheusrule.monitoring.coreos.com/web created", "gatewayclass.gateway.networking.k8s.io/example created",
		"gateway.gateway.networking.k8s.io/web created", "rollout.argoproj.io/web created"} {
		require.Contains(t, out, want)
	}

	run("patch", "certificate", "web", "--subresource=status", "--type=merge", "-p",
		`{"status":{"conditions":[{"type":"Ready","status":"True","reason":"Ready","message":"Certificate is up to date and has not expired"}]}}`)
	require.Regexp(t, `^NAME\s+READY\s+SECRET\s+AGE\s*\nweb\s+True\s+web-tls\s+\d+s\s*\n$`, run("get", "certificates"))
	require.Regexp(t, `(?m)^NAME\s+READY\s+SECRET\s+ISSUER\s+STATUS\s+EXPIRATION\s+AGE$`, run("get", "certificates", "-o", "wide"))
	require.Regexp(t, `^NAME\s+AGE\s*\nweb\s+\d+s\s*\n$`, run("get", "servicemonitors"))
	require.Regexp(t, `^NAME\s+AGE\s*\nweb\s+\d+s\s*\n$`, run("get", "prometheusrules"))
	require.Regexp(t, `^NAME\s+CONTROLLER\s+ACCEPTED\s+AGE\s*\nexample\s+example.com/gateway-controller\s+Unknown\s+\d+s\s*\n$`, run("get", "gatewayclasses"))
	run("patch", "gateway", "web", "--subresource=status", "--type=merge", "-p",
		`{"status":{"addresses":[{"type":"IPAddress","value":"10.0.0.7"}],"conditions":[{"type":"Programmed","status":"True","reason":"Programmed","message":"ok","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`)
	require.Regexp(t, `^NAME\s+CLASS\s+ADDRESS\s+PROGRAMMED\s+AGE\s*\nweb\s+example\s+10.0.0.7\s+True\s+\d+s\s*\n$`, run("get", "gateways"))
	require.Regexp(t, `^NAME\s+DESIRED\s+CURRENT\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s*\nweb\s+2\s+\s+\s+\s+\d+s\s*\n$`, run("get", "rollouts"))
	require.Equal(t, "rollout.argoproj.io/web scaled\n", run("scale", "rollout", "web", "--replicas=4"))
	require.Equal(t, "4", run("get", "rollout", "web", "-o", "jsonpath={.spec.replicas}"))
	// The GatewayClass defaulted its description-less status by the
	// schema: the Accepted condition a real server adds on create.
	require.Contains(t, run("get", "gatewayclass", "example", "-o", "jsonpath={.status.conditions[0].type}"), "Accepted")

	// The schema checks: a listener port out of range, a protocol of the
	// wrong type.
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte(`apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: bad}
spec:
  gatewayClassName: example
  listeners: [{name: http, port: 70000, protocol: HTTP}]
`), 0o600))
	out, err := kubectlRun("create", "-f", bad)
	require.Error(t, err, out)
	require.Contains(t, out, `The Gateway "bad" is invalid: spec.listeners[0].port: Invalid value: 70000: spec.listeners[0].port in body should be less than or equal to 65535`)

	run("delete", "crd", "rollouts.argoproj.io")
	out, err = kubectlRun("get", "rollout", "web")
	require.Error(t, err, out)
}

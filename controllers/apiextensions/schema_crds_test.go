package apiextensions_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiextensions"
)

// sharedCRDDir is the folder of real CustomResourceDefinitions:
// $CTRLKIT_SHARED/crds when that is set, else ../shared/crds beside the
// repository root (the directory of the core module's go.mod), as in CI.
// The CRDs are read in place, never copied into the project.
func sharedCRDDir(t testing.TB) string {
	t.Helper()
	if s := os.Getenv("CTRLKIT_SHARED"); s != "" {
		return filepath.Join(s, "crds")
	}
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(b, []byte("module github.com/ctrlkit/ctrlkit\n")) {
			return filepath.Join(filepath.Dir(dir), "shared", "crds")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("apiextensions test: no go.mod of github.com/ctrlkit/ctrlkit above the test")
		}
		dir = parent
	}
}

// The six CRDs of the shared folder, by file.
var realCRDs = []string{
	"cert-manager.io_certificates.yaml",
	"monitoring.coreos.com_servicemonitors.yaml",
	"monitoring.coreos.com_prometheusrules.yaml",
	"gateway.networking.k8s.io_gatewayclasses.yaml",
	"gateway.networking.k8s.io_gateways.yaml",
	"argoproj.io_rollouts.yaml",
}

func loadCRD(t testing.TB, file string) *api.CustomResourceDefinition {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedCRDDir(t), file))
	if err != nil {
		t.Fatalf("read %s (the shared folder must be beside the checkout, or CTRLKIT_SHARED name it): %v", file, err)
	}
	crd := new(api.CustomResourceDefinition)
	if err := yaml.Unmarshal(b, crd); err != nil {
		t.Fatalf("decode %s: %v", file, err)
	}
	return crd
}

// compileVersion compiles the schema of the CRD's version v.
func compileVersion(t testing.TB, file, v string) *apiextensions.Schema {
	t.Helper()
	crd := loadCRD(t, file)
	for _, ver := range crd.Spec.Versions {
		if ver.Name == v {
			s, err := apiextensions.Compile(ver.Schema.OpenAPIV3Schema)
			if err != nil {
				t.Fatalf("%s %s: %v", file, v, err)
			}
			return s
		}
	}
	t.Fatalf("%s has no version %s", file, v)
	return nil
}

// Every version schema of the six real CRDs is structural and compiles.
func TestRealCRDsAreStructural(t *testing.T) {
	for _, file := range realCRDs {
		crd := loadCRD(t, file)
		if len(crd.Spec.Versions) == 0 {
			t.Fatalf("%s: no versions", file)
		}
		for i, v := range crd.Spec.Versions {
			if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				t.Fatalf("%s %s: no schema", file, v.Name)
			}
			path := "spec.versions[" + string(rune('0'+i)) + "].schema.openAPIV3Schema"
			if errs := apiextensions.CheckStructural(v.Schema.OpenAPIV3Schema, path); len(errs) > 0 {
				t.Errorf("%s %s: not structural: %v", file, v.Name, errs)
			}
			if _, err := apiextensions.Compile(v.Schema.OpenAPIV3Schema); err != nil {
				t.Errorf("%s %s: %v", file, v.Name, err)
			}
		}
	}
}

// Sensible objects of each real CRD validate clean; objects with mistakes
// fail at the fields kube-apiserver names; pruning and defaulting do what
// the CRDs' authors rely on.
func TestRealCRDObjects(t *testing.T) {
	tests := []struct {
		file, version, name, obj string
		fields                   []string // fields of the errors, sorted
	}{
		{"cert-manager.io_certificates.yaml", "v1", "valid", `
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web}
spec:
  secretName: web-tls
  dnsNames: [example.com]
  issuerRef: {name: letsencrypt, kind: ClusterIssuer}
  privateKey: {algorithm: ECDSA, size: 256}
`, nil},
		{"cert-manager.io_certificates.yaml", "v1", "invalid", `
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web}
spec:
  issuerRef: {kind: Issuer}
  privateKey: {algorithm: DSA}
  renewBeforePercentage: 3000000000
status:
  conditions: [{type: Ready, status: "True"}, {type: Ready, status: "False"}]
`, []string{"spec.issuerRef.name", "spec.privateKey.algorithm", "spec.renewBeforePercentage", "spec.secretName", "status.conditions[1]"}},
		{"monitoring.coreos.com_servicemonitors.yaml", "v1", "valid", `
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: app}
spec:
  selector: {matchLabels: {app: web}}
  endpoints: [{port: http, interval: 30s, targetPort: 8080}]
`, nil},
		{"monitoring.coreos.com_servicemonitors.yaml", "v1", "invalid", `
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: app}
spec:
  endpoints: [{interval: soon, scheme: gopher}]
  scrapeProtocols: [PrometheusProto, PrometheusProto]
  sampleLimit: -1
`, []string{"spec.endpoints[0].interval", "spec.endpoints[0].scheme", "spec.sampleLimit", "spec.scrapeProtocols[1]", "spec.selector"}},
		{"monitoring.coreos.com_prometheusrules.yaml", "v1", "valid", `
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata: {name: r}
spec:
  groups: [{name: g, rules: [{alert: A, expr: up == 0, for: 5m}, {record: r, expr: 1}]}]
`, nil},
		{"monitoring.coreos.com_prometheusrules.yaml", "v1", "invalid", `
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata: {name: r}
spec:
  groups: [{name: g, rules: [{alert: A}]}, {name: g}]
`, []string{"spec.groups[0].rules[0].expr", "spec.groups[1]"}},
		{"gateway.networking.k8s.io_gatewayclasses.yaml", "v1", "valid", `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: gc}
spec: {controllerName: example.com/gateway}
`, nil},
		{"gateway.networking.k8s.io_gatewayclasses.yaml", "v1", "invalid", `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: gc}
spec: {controllerName: no-slash}
`, []string{"spec.controllerName"}},
		{"gateway.networking.k8s.io_gateways.yaml", "v1", "valid", `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw}
spec:
  gatewayClassName: gc
  listeners: [{name: http, port: 80, protocol: HTTP}]
`, nil},
		{"gateway.networking.k8s.io_gateways.yaml", "v1", "invalid", `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw}
spec:
  gatewayClassName: gc
  listeners: [{name: http, port: 0, protocol: HTTP}, {name: http, port: 80}]
`, []string{"spec.listeners[0].port", "spec.listeners[1]", "spec.listeners[1].protocol"}},
		{"argoproj.io_rollouts.yaml", "v1alpha1", "valid", `
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: r}
spec:
  replicas: 3
  selector: {matchLabels: {app: r}}
  strategy: {canary: {maxSurge: 25%, steps: [{setWeight: 20}, {pause: {}}]}}
  template:
    metadata: {labels: {app: r}}
    spec: {containers: [{name: app, image: nginx}]}
`, nil},
		{"argoproj.io_rollouts.yaml", "v1alpha1", "invalid", `
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: r}
spec:
  replicas: three
  template:
    spec: {containers: [{image: nginx}]}
`, []string{"spec.replicas", "spec.template.spec.containers[0].name"}},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.name, func(t *testing.T) {
			s := compileVersion(t, tt.file, tt.version)
			errs := s.Validate(object(t, tt.obj))
			var fields []string
			for _, e := range errs {
				fields = append(fields, e.Field)
			}
			slices.Sort(fields)
			fields = slices.Compact(fields)
			if !slices.Equal(fields, tt.fields) {
				t.Errorf("error fields = %q, want %q\n%v", fields, tt.fields, errs)
			}
		})
	}
}

// The Gateway's nested defaults and the ServiceMonitor's relabeling default
// apply; the Rollout's pod template is pruned but keeps what is under
// x-kubernetes-preserve-unknown-fields.
func TestRealCRDDefaultsAndPruning(t *testing.T) {
	gw := compileVersion(t, "gateway.networking.k8s.io_gateways.yaml", "v1")
	obj := object(t, `{spec: {gatewayClassName: gc, listeners: [{name: https, port: 443, protocol: HTTPS, tls: {certificateRefs: [{name: c}]}}]}}`)
	gw.Default(obj)
	l := obj["spec"].(map[string]any)["listeners"].([]any)[0].(map[string]any)
	if got := l["allowedRoutes"]; !reflect.DeepEqual(got, map[string]any{"namespaces": map[string]any{"from": "Same"}}) {
		t.Errorf("allowedRoutes = %v", got)
	}
	tls := l["tls"].(map[string]any)
	if tls["mode"] != "Terminate" {
		t.Errorf("tls.mode = %v", tls["mode"])
	}
	ref := tls["certificateRefs"].([]any)[0].(map[string]any)
	if ref["group"] != "" || ref["kind"] != "Secret" {
		t.Errorf("certificateRef = %v", ref)
	}

	sm := compileVersion(t, "monitoring.coreos.com_servicemonitors.yaml", "v1")
	obj = object(t, `{spec: {selector: {}, endpoints: [{relabelings: [{targetLabel: x}]}]}}`)
	sm.Default(obj)
	rl := obj["spec"].(map[string]any)["endpoints"].([]any)[0].(map[string]any)["relabelings"].([]any)[0].(map[string]any)
	if rl["action"] != "replace" {
		t.Errorf("relabeling action = %v", rl["action"])
	}

	ro := compileVersion(t, "argoproj.io_rollouts.yaml", "v1alpha1")
	obj = object(t, `{apiVersion: argoproj.io/v1alpha1, kind: Rollout, metadata: {name: r, x: 1}, spec: {bogus: 1, template: {spec: {containers: [{name: a, image: b, bogus: 2}]}}}}`)
	removed := ro.Prune(obj)
	if want := []string{"spec.bogus", "spec.template.spec.containers[0].bogus"}; !slices.Equal(removed, want) {
		t.Errorf("Prune = %q, want %q", removed, want)
	}
	if obj["metadata"].(map[string]any)["x"] != int64(1) {
		t.Error("metadata was pruned")
	}
}

// BenchmarkRollout measures the work of one write of an Argo Rollout (the
// largest of the six schemas): default, prune and validate.
func BenchmarkRollout(b *testing.B) {
	s := compileVersion(b, "argoproj.io_rollouts.yaml", "v1alpha1")
	doc := `
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: r}
spec:
  replicas: 3
  selector: {matchLabels: {app: r}}
  strategy: {canary: {maxSurge: 25%, steps: [{setWeight: 20}, {pause: {}}]}}
  template:
    metadata: {labels: {app: r}}
    spec: {containers: [{name: app, image: nginx, ports: [{containerPort: 80}], resources: {limits: {cpu: "1"}}}]}
`
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		obj := object(b, doc)
		b.StartTimer()
		s.Default(obj)
		s.Prune(obj)
		if errs := s.Validate(obj); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

// BenchmarkCompileRollout measures checking and compiling the Rollout's
// 574 kB CRD schema, once per CRD version when it is applied.
func BenchmarkCompileRollout(b *testing.B) {
	crd := loadCRD(b, "argoproj.io_rollouts.yaml")
	for b.Loop() {
		if _, err := apiextensions.Compile(crd.Spec.Versions[0].Schema.OpenAPIV3Schema); err != nil {
			b.Fatal(err)
		}
	}
}

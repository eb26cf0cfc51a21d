package realkube_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	apiextinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiextensions"
)

// The differential test of controllers/apiextensions: for the six real CRDs
// of the shared folder and a corpus of objects, ctrlkit's structural-schema
// check, validation, pruning and defaulting must give what
// apiextensions-apiserver gives (its structural schema, pruning, defaulting,
// listtype and objectmeta validation, and validation.NewSchemaValidator),
// without a server.

// crdDir is $CTRLKIT_SHARED/crds, else ../shared/crds beside the repository
// root (the parent of this module).
func crdDir(t testing.TB) string {
	if s := os.Getenv("CTRLKIT_SHARED"); s != "" {
		return filepath.Join(s, "crds")
	}
	return filepath.Join("..", "..", "shared", "crds")
}

type crdVersion struct {
	file, version string
	ours          *apiextensions.Schema
	upstream      *structuralschema.Structural
	validator     apiservervalidation.SchemaValidator
	oursProps     *api.JSONSchemaProps
	internalProps *apiextinternal.JSONSchemaProps
}

func loadVersions(t testing.TB, file string) []*crdVersion {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(crdDir(t), file))
	if err != nil {
		t.Fatalf("read %s (the shared folder must be beside the checkout, or CTRLKIT_SHARED name it): %v", file, err)
	}
	var ours api.CustomResourceDefinition
	if err := yaml.Unmarshal(b, &ours); err != nil {
		t.Fatal(err)
	}
	var theirs apiextv1.CustomResourceDefinition
	if err := yaml.Unmarshal(b, &theirs); err != nil {
		t.Fatal(err)
	}
	var out []*crdVersion
	for i, v := range theirs.Spec.Versions {
		internal := new(apiextinternal.JSONSchemaProps)
		if err := apiextv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, internal, nil); err != nil {
			t.Fatal(err)
		}
		ss, err := structuralschema.NewStructural(internal)
		if err != nil {
			t.Fatalf("%s %s: upstream structural: %v", file, v.Name, err)
		}
		validator, _, err := apiservervalidation.NewSchemaValidator(internal)
		if err != nil {
			t.Fatal(err)
		}
		s, err := apiextensions.Compile(ours.Spec.Versions[i].Schema.OpenAPIV3Schema)
		if err != nil {
			t.Fatalf("%s %s: %v", file, v.Name, err)
		}
		out = append(out, &crdVersion{file: file, version: v.Name, ours: s, upstream: ss, validator: validator,
			oursProps: ours.Spec.Versions[i].Schema.OpenAPIV3Schema, internalProps: internal})
	}
	return out
}

// decode decodes YAML as kube's unstructured decoding does (int64 for
// integers): once for each side, so neither sees the other's changes.
func decode(t testing.TB, doc string) map[string]any {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := utiljson.Unmarshal(j, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// upstreamErrors is what kube-apiserver's custom resource strategy reports
// for the schema: kube-openapi validation, list sets and maps, embedded
// resources.
func (v *crdVersion) upstreamErrors(obj map[string]any) field.ErrorList {
	errs := apiservervalidation.ValidateCustomResource(nil, obj, v.validator)
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, v.upstream, obj)...)
	errs = append(errs, schemaobjectmeta.Validate(context.Background(), nil, obj, v.upstream, false)...)
	return errs
}

// errorKey is what the comparison looks at: type, field and detail. Kube
// reports composite and range errors at "<nil>"; ctrlkit at the field named
// in the message, which the key recovers from the message.
func upstreamKey(e *field.Error) string {
	f := e.Field
	if f == "<nil>" {
		f = fieldInMessage(e.Detail)
	}
	return fmt.Sprintf("%s|%s|%s", e.Type, f, e.Detail)
}

func fieldInMessage(msg string) string {
	if strings.HasPrefix(msg, `"`) {
		return strings.TrimPrefix(strings.SplitN(msg[1:], `"`, 2)[0], ".")
	}
	if i := strings.LastIndex(msg, " in "); i >= 0 {
		return strings.TrimPrefix(msg[i+4:], ".")
	}
	return ""
}

func oursKey(e api.FieldError) string {
	return fmt.Sprintf("%s|%s|%s", e.Type, e.Field, e.Detail)
}

func keys[E any](errs []E, key func(E) string) []string {
	var out []string
	for _, e := range errs {
		out = append(out, key(e))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// corpus: objects for each CRD, valid ones and ones with each kind of
// mistake.
var crdSchemaCorpus = []struct {
	file, version, name, doc string
}{
	// cert-manager Certificate
	{"cert-manager.io_certificates.yaml", "v1", "valid", `
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web, namespace: default}
spec:
  secretName: web-tls
  dnsNames: [example.com, www.example.com]
  duration: 2160h
  issuerRef: {name: letsencrypt, kind: ClusterIssuer}
  privateKey: {algorithm: ECDSA, size: 256, rotationPolicy: Always}
  renewBeforePercentage: 30
status:
  conditions:
  - {type: Ready, status: "True", reason: Issued}
`},
	{"cert-manager.io_certificates.yaml", "v1", "missing required", `
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web}
spec:
  dnsNames: [example.com]
  issuerRef: {kind: Issuer}
`},
	{"cert-manager.io_certificates.yaml", "v1", "enum and types", `
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web}
spec:
  secretName: 7
  isCA: "yes"
  issuerRef: {name: x}
  privateKey: {algorithm: DSA, size: "big", encoding: PKCS8}
  signatureAlgorithm: MD5
  renewBeforePercentage: 3000000000
  revisionHistoryLimit: 1.5
  dnsNames: example.com
`},
	{"cert-manager.io_certificates.yaml", "v1", "unknown fields and list-map duplicates", `
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web, labels: {a: b}}
spec:
  secretName: s
  issuerRef: {name: x, color: blue}
  bogus: 1
  privateKey: {algorithm: RSA, extra: {deep: true}}
status:
  conditions:
  - {type: Ready, status: "True"}
  - {type: Ready, status: "Maybe"}
  - {type: Issuing, status: "False"}
  notAfter: 2026-01-01T00:00:00Z
  unknownStatus: x
`},
	{"cert-manager.io_certificates.yaml", "v1", "nulls", `
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web}
spec:
  secretName: null
  issuerRef: {name: x, group: null}
  dnsNames: [a, null]
  privateKey: null
`},
	// prometheus-operator ServiceMonitor
	{"monitoring.coreos.com_servicemonitors.yaml", "v1", "valid with defaults", `
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: app}
spec:
  selector: {matchLabels: {app: web}}
  endpoints:
  - port: http
    interval: 30s
    scheme: https
    targetPort: 8080
    relabelings:
    - {sourceLabels: [__name__], targetLabel: x}
    - {action: drop, regex: foo}
    bearerTokenSecret: {key: token}
    params: {target: [a, b]}
  - targetPort: metrics
  scrapeProtocols: [PrometheusProto, OpenMetricsText1.0.0]
  sampleLimit: 1000
  nativeHistogramMinBucketFactor: "1.1"
`},
	{"monitoring.coreos.com_servicemonitors.yaml", "v1", "patterns bounds sets", `
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: app}
spec:
  endpoints:
  - interval: 30 seconds
    scrapeTimeout: 10s
    proxyUrl: ftp://proxy
    scheme: gopher
    targetPort: true
    relabelings:
    - {action: explode, modulus: -1}
    bearerTokenSecret: {name: s}
    params: {target: [1, b], other: notalist}
  scrapeProtocols: [PrometheusProto, PrometheusProto, OpenMetricsText1.0.0, OpenMetricsText1.0.0]
  sampleLimit: -5
  labelLimit: 2.5
  scrapeClass: ""
  bodySizeLimit: 10XB
  nativeHistogramMinBucketFactor: abc
  selector: []
`},
	{"monitoring.coreos.com_servicemonitors.yaml", "v1", "unknown fields deep", `
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: app}
spec:
  selector: {matchLabels: {app: web}, matchExpressions: [{key: a, operator: In, values: [b], junk: 1}]}
  endpoints:
  - port: http
    junk: true
    relabelings: [{action: keep, what: ever}]
    tlsConfig: {ca: {secret: {key: k, name: n, extra: 1}}, insecureSkipVerify: true, nope: 2}
  extra: {a: 1}
`},
	// prometheus-operator PrometheusRule
	{"monitoring.coreos.com_prometheusrules.yaml", "v1", "valid", `
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata: {name: rules}
spec:
  groups:
  - name: web
    interval: 1m
    rules:
    - alert: High
      expr: rate(x[5m]) > 1
      for: 5m
      labels: {severity: page}
    - record: job:x
      expr: 1
  - name: other
    partial_response_strategy: WARN
    rules: []
`},
	{"monitoring.coreos.com_prometheusrules.yaml", "v1", "duplicate keys and mistakes", `
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata: {name: rules}
spec:
  groups:
  - name: web
    rules:
    - alert: High
      for: forever
      labels: {severity: 1}
    - expr: [not, valid]
      keep_firing_for: ""
  - name: web
    interval: 1x
    limit: ten
  - name: ""
    partial_response_strategy: panic
  - rules: [{expr: up}]
  - rules: [{expr: up}]
`},
	{"monitoring.coreos.com_prometheusrules.yaml", "v1", "not an array", `
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata: {name: rules}
spec:
  groups: {name: web}
`},
	{"monitoring.coreos.com_prometheusrules.yaml", "v1", "list-map item not an object", `
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata: {name: rules}
spec:
  groups: [{name: a}, web, {name: a}]
`},
	// Gateway API GatewayClass
	{"gateway.networking.k8s.io_gatewayclasses.yaml", "v1", "valid", `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: gc}
spec:
  controllerName: example.com/gateway-controller
  description: a class
  parametersRef: {group: example.com, kind: Config, name: cfg, namespace: default}
`},
	{"gateway.networking.k8s.io_gatewayclasses.yaml", "v1beta1", "bad controller and lengths", `
apiVersion: gateway.networking.k8s.io/v1beta1
kind: GatewayClass
metadata: {name: gc}
spec:
  controllerName: no-slash
  description: "0123456789012345678901234567890123456789012345678901234567890123456789"
  parametersRef: {group: "Bad_Group", kind: "9kind", name: ""}
status:
  conditions: [{type: Accepted}]
`},
	{"gateway.networking.k8s.io_gatewayclasses.yaml", "v1", "no spec", `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: gc}
`},
	// Gateway API Gateway
	{"gateway.networking.k8s.io_gateways.yaml", "v1", "valid with nested defaults", `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw}
spec:
  gatewayClassName: gc
  listeners:
  - {name: http, port: 80, protocol: HTTP}
  - name: https
    port: 443
    protocol: HTTPS
    hostname: "*.example.com"
    tls:
      certificateRefs: [{name: cert}]
    allowedRoutes: {namespaces: {}}
  addresses: [{type: IPAddress, value: 10.0.0.1}]
`},
	{"gateway.networking.k8s.io_gateways.yaml", "v1", "listener mistakes", `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw}
spec:
  gatewayClassName: ""
  listeners:
  - {name: http, port: 0, protocol: HTTP}
  - {name: http, port: 70000, protocol: "HT TP"}
  - {name: UPPER, port: "80"}
  - name: tls
    port: 443
    protocol: TLS
    tls: {mode: Bridge, options: {a: "1", b: "2", c: "3", d: "4", e: "5", f: "6", g: "7", h: "8", i: "9", j: "10", k: "11", l: "12", m: "13", n: "14", o: "15", p: "16", q: "17"}}
    allowedRoutes: {namespaces: {from: Everywhere}, kinds: [{kind: HTTPRoute}, {group: "x", kind: ""}]}
`},
	{"gateway.networking.k8s.io_gateways.yaml", "v1", "empty listeners", `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw}
spec:
  gatewayClassName: gc
  listeners: []
`},
	// Argo Rollouts Rollout
	{"argoproj.io_rollouts.yaml", "v1alpha1", "valid", `
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: r}
spec:
  replicas: 5
  selector: {matchLabels: {app: r}}
  restartAt: "2026-01-02T03:04:05Z"
  strategy:
    canary:
      maxSurge: 25%
      maxUnavailable: 0
      steps: [{setWeight: 20}, {pause: {duration: 1h}}, {setWeight: 50}, {pause: {}}]
  template:
    metadata: {labels: {app: r}}
    spec:
      containers:
      - name: app
        image: nginx
        ports: [{containerPort: 80}]
        resources: {limits: {cpu: 500m, memory: 1Gi}}
status:
  HPAReplicas: 5
  selector: app=r
`},
	{"argoproj.io_rollouts.yaml", "v1alpha1", "mistakes", `
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: r}
spec:
  replicas: "five"
  restartAt: yesterday
  strategy:
    canary:
      maxSurge: 1.5
      maxUnavailable: [1]
      steps: [{setWeight: "x"}, {pause: {duration: 10}}]
  template:
    metadata: {labels: {app: 1}}
    spec:
      containers:
      - {image: nginx, ports: [{containerPort: "80"}]}
      unknownPodField: 1
status:
  HPAReplicas: 2147483648
`},
	{"argoproj.io_rollouts.yaml", "v1alpha1", "pruning inside the template", `
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: r}
spec:
  selector: {matchLabels: {app: r}}
  template:
    metadata: {labels: {app: r}, bogus: 1}
    spec:
      containers: [{name: a, image: b, bogus: true, securityContext: {runAsUser: 1, nope: 2}}]
      volumes: [{name: v, emptyDir: {}, bogus: 3}]
  strategy: {blueGreen: {activeService: a, bogus: 4}}
`},
}

func TestCRDSchemaDifferential(t *testing.T) {
	versions := map[string]*crdVersion{}
	for _, file := range []string{
		"cert-manager.io_certificates.yaml",
		"monitoring.coreos.com_servicemonitors.yaml",
		"monitoring.coreos.com_prometheusrules.yaml",
		"gateway.networking.k8s.io_gatewayclasses.yaml",
		"gateway.networking.k8s.io_gateways.yaml",
		"argoproj.io_rollouts.yaml",
	} {
		for _, v := range loadVersions(t, file) {
			versions[file+" "+v.version] = v
			if errs := apiextensions.CheckStructural(v.oursProps, "openAPIV3Schema"); len(errs) > 0 {
				t.Errorf("%s %s: not structural for ctrlkit: %v", file, v.version, errs)
			}
			if errs := structuralschema.ValidateStructural(nil, v.upstream); len(errs) > 0 {
				t.Errorf("%s %s: not structural upstream: %v", file, v.version, errs)
			}
			var v1 apiextv1.JSONSchemaProps
			if err := apiextv1.Convert_apiextensions_JSONSchemaProps_To_v1_JSONSchemaProps(v.internalProps, &v1, nil); err != nil {
				t.Fatal(err)
			}
			if errs := upstreamSchemaErrors(t, &v1); len(errs) > 0 {
				t.Errorf("%s %s: kube's CRD validation rejects the schema: %v", file, v.version, errs)
			}
			if got := v.ours.HasValidationRules(); got != hasRules(v.internalProps) {
				t.Errorf("%s %s: HasValidationRules = %v", file, v.version, got)
			}
		}
	}
	for _, c := range crdSchemaCorpus {
		t.Run(c.file+"/"+c.version+"/"+c.name, func(t *testing.T) {
			v := versions[c.file+" "+c.version]
			if v == nil {
				t.Fatalf("no version %s of %s", c.version, c.file)
			}
			compareObject(t, v, c.doc)
		})
	}
}

func hasRules(s *apiextinternal.JSONSchemaProps) bool {
	if s == nil {
		return false
	}
	if len(s.XValidations) > 0 {
		return true
	}
	if s.Items != nil && hasRules(s.Items.Schema) {
		return true
	}
	if s.AdditionalProperties != nil && hasRules(s.AdditionalProperties.Schema) {
		return true
	}
	for _, p := range s.Properties {
		if hasRules(&p) {
			return true
		}
	}
	for _, l := range [][]apiextinternal.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range l {
			if hasRules(&l[i]) {
				return true
			}
		}
	}
	return hasRules(s.Not)
}

// compareObject compares validation, pruning and defaulting of one object.
func compareObject(t *testing.T, v *crdVersion, doc string) {
	t.Helper()
	// Validate.
	want := keys(v.upstreamErrors(decode(t, doc)), upstreamKey)
	got := keys(v.ours.Validate(decode(t, doc)), oursKey)
	if !slices.Equal(got, want) {
		t.Errorf("Validate differs from kube:\n only ctrlkit: %q\n only kube:    %q", minus(got, want), minus(want, got))
	}
	t.Logf("%d errors: %q", len(got), got)

	// Prune.
	theirs := decode(t, doc)
	wantPaths := pruning.PruneWithOptions(theirs, v.upstream, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	ours := decode(t, doc)
	gotPaths := v.ours.Prune(ours)
	t.Logf("pruned %q", gotPaths)
	if !slices.Equal(gotPaths, wantPaths) {
		t.Errorf("Prune paths: ctrlkit %q, kube %q", gotPaths, wantPaths)
	}
	if !reflect.DeepEqual(ours, theirs) {
		t.Errorf("Prune result differs:\n ctrlkit %s\n kube    %s", js(ours), js(theirs))
	}

	// Default (on the pruned object, as the server does).
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(theirs, v.upstream)
	structuraldefaulting.Default(theirs, v.upstream)
	v.ours.Default(ours)
	if !reflect.DeepEqual(ours, theirs) {
		t.Errorf("Default result differs:\n ctrlkit %s\n kube    %s", js(ours), js(theirs))
	}
	// Default on the raw object too (defaults under unknown fields).
	theirs, ours = decode(t, doc), decode(t, doc)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(theirs, v.upstream)
	structuraldefaulting.Default(theirs, v.upstream)
	v.ours.Default(ours)
	if !reflect.DeepEqual(ours, theirs) {
		t.Errorf("Default (unpruned) result differs:\n ctrlkit %s\n kube    %s", js(ours), js(theirs))
	}
}

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func js(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSpace(b.String())
}

// Schemas that are not structural, or break a CRD schema rule, get the
// errors kube-apiserver's CRD validation gives (those under the schema).
var badSchemas = []struct{ name, schema string }{
	{"no type for a field", `{type: object, properties: {spec: {properties: {a: {type: string}}}}}`},
	{"array without items", `{type: object, properties: {spec: {type: object, properties: {list: {type: array}}}}}`},
	{"type in anyOf", `{type: object, properties: {spec: {type: object, anyOf: [{type: object}, {required: [a]}]}}}`},
	{"anyOf names an unspecified field", `{type: object, properties: {spec: {type: object, anyOf: [{required: [a]}, {properties: {b: {minLength: 1}}}]}}}`},
	{"metadata restricted", `{type: object, properties: {metadata: {type: object, properties: {labels: {type: object}}}}}`},
	{"metadata name only", `{type: object, properties: {metadata: {type: object, properties: {name: {type: string, maxLength: 5}}}}}`},
	{"additionalProperties at root", `{type: object, additionalProperties: {type: string}}`},
	{"root not object", `{type: string}`},
	{"$ref", `{type: object, properties: {spec: {$ref: "#/definitions/x"}}}`},
	{"uniqueItems and additionalItems", `{type: object, properties: {spec: {type: array, items: {type: string}, uniqueItems: true}}}`},
	{"preserve false", `{type: object, properties: {spec: {type: object, x-kubernetes-preserve-unknown-fields: false}}}`},
	{"int-or-string wrong", `{type: object, properties: {spec: {type: object, properties: {port: {x-kubernetes-int-or-string: true, x-kubernetes-preserve-unknown-fields: true}}}}}`},
	{"int-or-string fine", `{type: object, properties: {spec: {type: object, properties: {port: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}}}}}`},
	{"embedded resource", `{type: object, properties: {spec: {type: object, properties: {tpl: {type: string, x-kubernetes-embedded-resource: true}, tpl2: {type: object, x-kubernetes-embedded-resource: true}}}}}`},
	{"list-type rules", `{type: object, properties: {spec: {type: object, properties: {a: {type: object, x-kubernetes-list-type: set}, b: {type: array, items: {type: object, properties: {k: {type: object}}}, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [k, missing]}, c: {type: array, items: {type: string}, x-kubernetes-list-map-keys: [x]}, d: {type: array, items: {type: string}, x-kubernetes-list-type: bag}}}}}`},
	{"map-type rules", `{type: object, properties: {spec: {type: string, x-kubernetes-map-type: granularish}}}`},
	{"bad pattern", `{type: object, properties: {spec: {type: string, pattern: "(a"}}}`},
	{"default does not validate", `{type: object, properties: {spec: {type: object, properties: {n: {type: integer, maximum: 3, default: 5}, s: {type: string, default: 1}, o: {type: object, properties: {a: {type: string}}, default: {a: x, b: y}}}}}}`},
	{"default in metadata", `{type: object, properties: {metadata: {type: object, default: {name: x}}, spec: {type: object}}}`},
	{"nested metadata and forbidden in value validations", `{type: object, properties: {spec: {type: object, properties: {a: {type: string}}, allOf: [{properties: {metadata: {type: object}, a: {description: x, nullable: true, default: "y"}}}]}}}`},
	{"nullable root", `{type: object, nullable: true}`},
	{"null type and unknown type", `{type: object, properties: {spec: {type: object, properties: {a: {type: "null"}, b: {type: float}}}}}`},
	{"CEL rule shapes", `{type: object, properties: {spec: {type: object, x-kubernetes-validations: [{rule: " "}, {rule: "self.a > 0", message: " "}, {rule: "self.a > 0", message: "two\nlines"}, {rule: "self.a >\n 0"}, {rule: "self.a > 0", messageExpression: "'x'"}], properties: {a: {type: integer}}}}}`},
	{"lookahead pattern", `{type: object, properties: {spec: {type: string, pattern: "^(?=a)"}}}`},
	{"defaults in items and embedded", `{type: object, properties: {spec: {type: object, properties: {l: {type: array, items: {type: object, properties: {a: {type: integer, minimum: 2, default: 1}}}}, e: {type: object, x-kubernetes-embedded-resource: true, properties: {spec: {type: object, default: {z: 1}}}}, m: {type: object, additionalProperties: {type: string, default: 5}}}}}}`},
	{"list set of non-atomic objects", `{type: object, properties: {spec: {type: object, properties: {s: {type: array, x-kubernetes-list-type: set, items: {type: object, properties: {a: {type: string}}}}, t: {type: array, x-kubernetes-list-type: set, items: {type: array, items: {type: string}, x-kubernetes-list-type: map}}}}}}`},
	{"nullable list-map items", `{type: object, properties: {spec: {type: object, properties: {l: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [k], items: {type: object, nullable: true, required: [k], properties: {k: {type: string, nullable: true}}}}}}}}`},
	{"embedded inside metadata and meta types", `{type: object, properties: {apiVersion: {type: integer}, kind: {type: object}, spec: {type: object, properties: {e: {type: object, x-kubernetes-embedded-resource: true, properties: {metadata: {type: string}, kind: {type: integer}}}}}}}`},
	{"properties with additionalProperties", `{type: object, properties: {spec: {type: object, properties: {a: {type: string}}, additionalProperties: {type: string}}}}`},
}

func TestCRDSchemaDifferentialCheckStructural(t *testing.T) {
	for _, c := range badSchemas {
		t.Run(c.name, func(t *testing.T) {
			j, err := yaml.YAMLToJSON([]byte(c.schema))
			if err != nil {
				t.Fatal(err)
			}
			var ours api.JSONSchemaProps
			if err := json.Unmarshal(j, &ours); err != nil {
				t.Fatal(err)
			}
			var v1 apiextv1.JSONSchemaProps
			if err := json.Unmarshal(j, &v1); err != nil {
				t.Fatal(err)
			}
			got := keys(apiextensions.CheckStructural(&ours, "openAPIV3Schema"), oursKey)
			want := keys(upstreamSchemaErrors(t, &v1), func(e *field.Error) string {
				return fmt.Sprintf("%s|%s|%s", e.Type, e.Field, e.Detail)
			})
			t.Logf("kube: %q", want)
			if !slices.Equal(got, want) {
				t.Errorf("CheckStructural differs from kube:\n only ctrlkit: %q\n only kube:    %q", minus(got, want), minus(want, got))
			}
			if len(want) == 0 {
				if _, err := apiextensions.Compile(&ours); err != nil {
					t.Errorf("Compile: %v", err)
				}
			} else if _, err := apiextensions.Compile(&ours); err == nil {
				t.Errorf("Compile accepted a schema kube rejects")
			}
		})
	}
}

// upstreamSchemaErrors validates a whole CRD around s with kube's CRD
// validation and keeps the errors under its schema, paths starting at
// "openAPIV3Schema".
func upstreamSchemaErrors(t *testing.T, s *apiextv1.JSONSchemaProps) field.ErrorList {
	t.Helper()
	crd := &apiextv1.CustomResourceDefinition{}
	crd.Name = "widgets.example.com"
	crd.Spec = apiextv1.CustomResourceDefinitionSpec{
		Group: "example.com",
		Names: apiextv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
		Scope: apiextv1.NamespaceScoped,
		Versions: []apiextv1.CustomResourceDefinitionVersion{{
			Name: "v1", Served: true, Storage: true,
			Schema: &apiextv1.CustomResourceValidation{OpenAPIV3Schema: s},
		}},
	}
	crd.Status.StoredVersions = []string{"v1"}
	internal := new(apiextinternal.CustomResourceDefinition)
	if err := apiextv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, internal, nil); err != nil {
		t.Fatal(err)
	}
	var out field.ErrorList
	for _, e := range crdvalidation.ValidateCustomResourceDefinition(context.Background(), internal) {
		if i := strings.Index(e.Field, "openAPIV3Schema"); i >= 0 {
			e.Field = e.Field[i:]
			out = append(out, e)
		}
	}
	return out
}

// A schema of one's own that uses what the six CRDs do not: value
// validations under allOf/anyOf/oneOf/not, formats, number formats and
// bounds, nullable, defaults under items and additionalProperties, embedded
// resources, list-type set of objects, maps of lists.
const ownSchema = `
type: object
properties:
  apiVersion: {type: string}
  kind: {type: string}
  metadata: {type: object}
  spec:
    type: object
    required: [size]
    anyOf: [{required: [a]}, {required: [b]}]
    not: {required: [forbidden]}
    properties:
      a: {type: string}
      b: {type: string}
      forbidden: {type: string}
      size: {type: integer, format: int32, minimum: -5, exclusiveMinimum: true, maximum: 10, multipleOf: 2}
      big: {type: integer, format: int64, maximum: 1.5}
      ratio: {type: number, format: float, multipleOf: 0.25, minimum: 0.5}
      dbl: {type: number, format: double}
      choice: {type: string, oneOf: [{pattern: "^a"}, {pattern: "b$"}]}
      all: {type: string, allOf: [{minLength: 2}, {maxLength: 4}, {pattern: "^x"}]}
      nums: {type: array, items: {type: integer, enum: [1, 2, 3]}}
      when: {type: string, format: date-time}
      day: {type: string, format: date}
      ip: {type: string, format: ipv4}
      id: {type: string, format: uuid}
      host: {type: string, format: hostname}
      data: {type: string, format: byte}
      mail: {type: string, format: email}
      ttl: {type: string, format: duration}
      mac: {type: string, format: mac}
      net: {type: string, format: cidr}
      odd: {type: string, format: made-up}
      fmtarr: {type: array, items: {type: string}, format: date}
      nn: {type: string, nullable: true, enum: [x, "y"]}
      ne: {type: string, nullable: true, enum: [x, null]}
      nums2: {type: array, items: {type: number, enum: [1.5, 2]}}
      nd: {type: string, default: d}
      ndn: {type: string, nullable: true, default: d}
      nod: {type: integer}
      objs: {type: array, x-kubernetes-list-type: set, items: {type: object, x-kubernetes-map-type: atomic, properties: {k: {type: string}}}}
      composite:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name, proto]
        items:
          type: object
          required: [name]
          properties:
            name: {type: string}
            proto: {type: string, default: TCP}
            port: {type: integer}
      listmap:
        type: object
        additionalProperties: {type: array, items: {type: object, default: {v: 1}, properties: {v: {type: integer}, w: {type: integer, default: 7}}}}
      strmap: {type: object, additionalProperties: {type: string, default: filled}, minProperties: 1}
      props: {type: object, minProperties: 2, maxProperties: 3, x-kubernetes-preserve-unknown-fields: true}
      items: {type: array, minItems: 2, maxItems: 3, items: {type: string}}
      embedded:
        type: object
        x-kubernetes-embedded-resource: true
        properties:
          spec: {type: object, properties: {x: {type: integer, default: 3}}}
      rawembedded: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
      embeddedlist: {type: array, items: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}}
      ios: {x-kubernetes-int-or-string: true}
      free: {x-kubernetes-preserve-unknown-fields: true}
`

var ownObjects = []struct{ name, doc string }{
	{"valid", `{apiVersion: x/v1, kind: Own, metadata: {name: o}, spec: {a: s, size: 4, big: 1, ratio: 0.75, choice: abc, all: xyz, nums: [1, 3], when: "2026-01-01T00:00:00Z", day: "2026-01-01", ip: 1.2.3.4, id: 123e4567-e89b-12d3-a456-426614174000, host: example.com, data: aGk=, mail: a@b.c, ttl: 5m, mac: "01:23:45:67:89:ab", net: 10.0.0.0/8, odd: whatever, nn: null, ios: 5, free: {anything: [1, {x: y}]}, embedded: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}, spec: {}}, rawembedded: {apiVersion: apps/v1, kind: Deployment, spec: {replicas: 1}}, props: {p: 1, q: 2}, items: [a, b]}}`},
	{"anyOf none and not", `{spec: {size: 2, forbidden: yes}}`},
	{"number bounds and formats", `{spec: {a: s, size: -5, big: 2, ratio: 0.3, dbl: 1e300}}`},
	{"size edges", `{spec: {b: s, size: 11}}`},
	{"odd size", `{spec: {b: s, size: 3}}`},
	{"float for int32", `{spec: {b: s, size: 2.5}}`},
	{"integral float for integer", `{spec: {b: s, size: 4.0}}`},
	{"huge integer", `{spec: {b: s, size: 2, big: 99999999999999999999}}`},
	{"oneOf both and none", `{spec: {a: s, size: 2, choice: ab}}`},
	{"oneOf none", `{spec: {a: s, size: 2, choice: zzz}}`},
	{"allOf", `{spec: {a: s, size: 2, all: abcdef}}`},
	{"enum in items", `{spec: {a: s, size: 2, nums: [1, 4, "1", 2.0]}}`},
	{"bad formats", `{spec: {a: s, size: 2, when: "2026-01-01", day: "2026-02-30", ip: "1.2.3", id: nope, host: "-x-", data: "!!", mail: nope, ttl: soon, mac: "01:23", net: "10.0.0.0", odd: 5}}`},
	{"format on an array node", `{spec: {a: s, size: 2, fmtarr: [not-a-date], when: [1], day: 5}}`},
	{"nullable enum null", `{spec: {a: s, size: 2, nn: null, nd: null, ndn: null, nod: null}}`},
	{"nullable enum bad", `{spec: {a: s, size: 2, nn: z}}`},
	{"enum with null", `{spec: {a: s, size: 2, ne: null, nums2: [1.5, 2, 2.0, 3, "2"]}}`},
	{"enum with null, value", `{spec: {a: s, size: 2, ne: x}}`},
	{"set of objects", `{spec: {a: s, size: 2, objs: [{k: a}, {k: b}, {k: a}, {k: a}]}}`},
	{"composite keys", `{spec: {a: s, size: 2, composite: [{name: a, proto: TCP}, {name: a, proto: UDP}, {name: a, proto: TCP, port: 1}, {name: b}, {name: b}, {proto: TCP}]}}`},
	{"defaults under additionalProperties and items", `{spec: {a: s, size: 2, listmap: {one: [{}, null, {v: 2}], two: []}, strmap: {k: null, j: s}}}`},
	{"min max properties and items", `{spec: {a: s, size: 2, props: {p: 1}, items: [a], strmap: {}}}`},
	{"too many", `{spec: {a: s, size: 2, props: {p: 1, q: 2, r: 3, s: 4}, items: [a, b, c, d]}}`},
	{"embedded resources", `{spec: {a: s, size: 2, embedded: {kind: "", metadata: {name: "..", labels: {a: b}}, spec: {}, junk: 1}, rawembedded: {apiVersion: "", kind: 5}, embeddedlist: [{apiVersion: v1, kind: Pod}, {kind: Bad_Kind}, {apiVersion: v1, kind: X, metadata: {name: "a%b"}}]}}`},
	{"embedded metadata not an object", `{spec: {a: s, size: 2, rawembedded: {apiVersion: v1, kind: X, metadata: [1]}}}`},
	{"embedded metadata fields", `{spec: {a: s, size: 2, embeddedlist: [{apiVersion: v1, kind: X, metadata: {name: 5}}, {apiVersion: v1, kind: X, metadata: {labels: {"bad key!": x, ok: "bad value!", fine: "yes"}, annotations: {"a/b/c": x}, namespace: "Bad_NS", generateName: "x/"}}, {apiVersion: v1, kind: X, metadata: {labels: {a: 1}}}]}}`},
	{"embedded metadata more", `{spec: {a: s, size: 2, embeddedlist: [{apiVersion: v1, kind: X, metadata: {generation: 1.5}}, {apiVersion: v1, kind: X, metadata: {finalizers: [a, 1]}}, {apiVersion: v1, kind: X, metadata: {namespace: a.b, labels: {"example.com/ok": v, "/x": y, "Bad_Prefix/x": z, "x": "0123456789012345678901234567890123456789012345678901234567890123456789"}}}, {apiVersion: v1, kind: X, metadata: {labels: [a]}}, {apiVersion: v1, kind: X, metadata: "m"}, {apiVersion: v1, kind: X, metadata: {name: 1, labels: 2}}]}}`},
	{"int-or-string and free", `{spec: {a: s, size: 2, ios: 1.5, free: null}}`},
	{"wrong types everywhere", `{spec: {a: 1, b: true, size: "2", items: {a: 1}, strmap: [1], listmap: {x: {v: 1}}, embedded: [], ios: {}}}`},
	{"spec null", `{spec: null}`},
	{"unknown everywhere", `{spec: {a: s, size: 2, junk: 1, embedded: {apiVersion: v1, kind: K, metadata: {anything: 1}, spec: {x: 1, y: 2}, other: 3}, composite: [{name: a, bogus: 1}]}, status: {x: 1}, extra: [1]}`},
}

func TestCRDSchemaDifferentialOwnSchema(t *testing.T) {
	j, err := yaml.YAMLToJSON([]byte(ownSchema))
	if err != nil {
		t.Fatal(err)
	}
	var ours api.JSONSchemaProps
	if err := json.Unmarshal(j, &ours); err != nil {
		t.Fatal(err)
	}
	var v1 apiextv1.JSONSchemaProps
	if err := json.Unmarshal(j, &v1); err != nil {
		t.Fatal(err)
	}
	if errs := upstreamSchemaErrors(t, &v1); len(errs) > 0 {
		t.Fatalf("kube rejects the schema: %v", errs)
	}
	internal := new(apiextinternal.JSONSchemaProps)
	if err := apiextv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, internal, nil); err != nil {
		t.Fatal(err)
	}
	ss, err := structuralschema.NewStructural(internal)
	if err != nil {
		t.Fatal(err)
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(internal)
	if err != nil {
		t.Fatal(err)
	}
	s, err := apiextensions.Compile(&ours)
	if err != nil {
		t.Fatal(err)
	}
	v := &crdVersion{file: "own", version: "v1", ours: s, upstream: ss, validator: validator, oursProps: &ours, internalProps: internal}
	for _, o := range ownObjects {
		t.Run(o.name, func(t *testing.T) { compareObject(t, v, o.doc) })
	}
}

// BenchmarkCRDSchemaRollout compares one write of a Rollout (default, prune,
// validate) with ctrlkit and with apiextensions-apiserver.
func BenchmarkCRDSchemaRollout(b *testing.B) {
	v := loadVersions(b, "argoproj.io_rollouts.yaml")[0]
	var doc string
	for _, c := range crdSchemaCorpus {
		if c.file == "argoproj.io_rollouts.yaml" && c.name == "valid" {
			doc = c.doc
		}
	}
	b.Run("ctrlkit", func(b *testing.B) {
		for b.Loop() {
			obj := decode(b, doc)
			v.ours.Default(obj)
			v.ours.Prune(obj)
			if errs := v.ours.Validate(obj); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
	b.Run("kube", func(b *testing.B) {
		for b.Loop() {
			obj := decode(b, doc)
			structuraldefaulting.Default(obj, v.upstream)
			pruning.Prune(obj, v.upstream, true)
			structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, v.upstream)
			if errs := v.upstreamErrors(obj); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
}

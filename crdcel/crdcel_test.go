package crdcel_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/crdcel"
)

// sharedCRD reads a CustomResourceDefinition of the shared folder in
// place: $CTRLKIT_SHARED/crds, else ../../shared/crds (the shared folder
// beside the repository checkout, as in CI). The test fails, not skips,
// when it is missing: it is part of its input.
func sharedCRD(t testing.TB, file string) *api.CustomResourceDefinition {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "crds")
	if s := os.Getenv("CTRLKIT_SHARED"); s != "" {
		dir = filepath.Join(s, "crds")
	}
	objs, err := api.DecodeFile(filepath.Join(dir, file), api.DecodeOptions{})
	if err != nil {
		t.Fatalf("%v (the shared folder must be beside the checkout, or CTRLKIT_SHARED name it)", err)
	}
	crd, ok := objs[0].(*api.CustomResourceDefinition)
	if len(objs) != 1 || !ok {
		t.Fatalf("%s: not one CustomResourceDefinition", file)
	}
	return crd
}

func newCluster(t *testing.T) *cluster.Cluster {
	t.Helper()
	c, err := cluster.New(t.Context(), cluster.Options{ValidationRules: crdcel.Rules})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func createCRD(t *testing.T, c *cluster.Cluster, crd *api.CustomResourceDefinition) error {
	t.Helper()
	crds, err := client.For[*api.CustomResourceDefinition](c)
	if err != nil {
		t.Fatal(err)
	}
	_, err = crds.Create(t.Context(), crd)
	return err
}

func decodeCRD(t *testing.T, doc string) *api.CustomResourceDefinition {
	t.Helper()
	objs, err := api.Decode([]byte(doc), api.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return objs[0].(*api.CustomResourceDefinition)
}

func gateway(name string, listeners ...map[string]any) *api.Unstructured {
	ls := make([]any, len(listeners))
	for i, l := range listeners {
		ls[i] = l
	}
	return &api.Unstructured{
		TypeMeta:   api.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "Gateway"},
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name},
		Content:    map[string]any{"spec": map[string]any{"gatewayClassName": "eg", "listeners": ls}},
	}
}

// The real Gateway API Gateway definition, whose listeners carry six
// x-kubernetes-validations rules, installs, and its Gateways are checked
// against them as kube-apiserver checks them.
func TestGatewayRules(t *testing.T) {
	ctx := t.Context()
	c := newCluster(t)
	if err := createCRD(t, c, sharedCRD(t, "gateway.networking.k8s.io_gateways.yaml")); err != nil {
		t.Fatalf("the Gateway definition: %v", err)
	}
	st, ok := c.DynamicStore(api.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "Gateway"})
	if !ok {
		t.Fatal("Gateway is not served")
	}
	http := map[string]any{"name": "http", "port": int64(80), "protocol": "HTTP"}
	if _, err := st.Create(ctx, gateway("good", http)); err != nil {
		t.Fatalf("a valid Gateway: %v", err)
	}
	tests := []struct {
		name      string
		listeners []map[string]any
		want      string
	}{
		{
			"HTTP with tls",
			[]map[string]any{{"name": "http", "port": int64(80), "protocol": "HTTP", "tls": map[string]any{"mode": "Terminate"}}},
			`spec.listeners: Invalid value: tls must not be specified for protocols ['HTTP', 'TCP', 'UDP']`,
		},
		{
			"TCP with a hostname",
			[]map[string]any{{"name": "tcp", "port": int64(9000), "protocol": "TCP", "hostname": "a.example.com"}},
			`spec.listeners: Invalid value: hostname must not be specified for protocols ['TCP', 'UDP']`,
		},
		{
			"same port, protocol and hostname",
			[]map[string]any{http, {"name": "http2", "port": int64(80), "protocol": "HTTP"}},
			`spec.listeners: Invalid value: Combination of port, protocol and hostname must be unique for each listener`,
		},
		{
			"TLS without a mode",
			[]map[string]any{{"name": "tls", "port": int64(443), "protocol": "TLS"}},
			`spec.listeners: Invalid value: tls mode must be set for protocol TLS`,
		},
	}
	for _, tt := range tests {
		_, err := st.Create(ctx, gateway("bad", tt.listeners...))
		if !errors.Is(err, cluster.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %s", tt.name, err, tt.want)
		}
	}
	// Two listeners on one port with different hostnames are fine.
	a := map[string]any{"name": "a", "port": int64(80), "protocol": "HTTP", "hostname": "a.example.com"}
	b := map[string]any{"name": "b", "port": int64(80), "protocol": "HTTP", "hostname": "b.example.com"}
	if _, err := st.Create(ctx, gateway("hosts", a, b)); err != nil {
		t.Fatalf("listeners differing in hostname: %v", err)
	}
}

// Every real definition of the shared folder installs with its rules
// compiled (kube-apiserver accepts them all).
func TestSharedCRDsInstall(t *testing.T) {
	c := newCluster(t)
	for _, file := range []string{
		"argoproj.io_rollouts.yaml",
		"cert-manager.io_certificates.yaml",
		"gateway.networking.k8s.io_gatewayclasses.yaml",
		"gateway.networking.k8s.io_gateways.yaml",
		"monitoring.coreos.com_prometheusrules.yaml",
		"monitoring.coreos.com_servicemonitors.yaml",
	} {
		crd := sharedCRD(t, file)
		for _, v := range crd.Spec.Versions {
			if _, errs := crdcel.Rules(v.Schema.OpenAPIV3Schema); len(errs) > 0 {
				t.Errorf("%s version %s: %v", file, v.Name, errs)
			}
		}
		if err := createCRD(t, c, crd); err != nil {
			t.Errorf("%s: %v", file, err)
		}
	}
}

// widgetsCRD has a transition rule on spec.size and a plain rule on
// spec.
const widgetsCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
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
            x-kubernetes-validations:
            - rule: "self.replicas <= 10"
              message: at most 10 replicas
            properties:
              replicas: {type: integer}
              size:
                type: string
                x-kubernetes-validations:
                - rule: "self == oldSelf"
                  message: size is immutable
`

func widget(name string, replicas int64, size string) *api.Unstructured {
	return &api.Unstructured{
		TypeMeta:   api.TypeMeta{APIVersion: "example.com/v1", Kind: "Widget"},
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name},
		Content:    map[string]any{"spec": map[string]any{"replicas": replicas, "size": size}},
	}
}

// A transition rule (oldSelf) is checked on updates only; a plain rule on
// every write.
func TestTransitionRule(t *testing.T) {
	ctx := t.Context()
	c := newCluster(t)
	if err := createCRD(t, c, decodeCRD(t, widgetsCRD)); err != nil {
		t.Fatal(err)
	}
	st, _ := c.DynamicStore(api.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"})
	if _, err := st.Create(ctx, widget("big", 11, "L")); !errors.Is(err, cluster.ErrInvalid) ||
		!strings.Contains(err.Error(), "spec: Invalid value: at most 10 replicas") {
		t.Fatalf("create breaking a rule: %v", err)
	}
	w := widget("w", 1, "S")
	if _, err := st.Create(ctx, w); err != nil {
		t.Fatalf("create (the transition rule must not run): %v", err)
	}
	w.Content["spec"].(map[string]any)["replicas"] = int64(3)
	if _, err := st.Update(ctx, w, ""); err != nil {
		t.Fatalf("update keeping size: %v", err)
	}
	w.Content["spec"].(map[string]any)["size"] = "M"
	_, err := st.Update(ctx, w, "")
	if want := `spec.size: Invalid value: "M": size is immutable`; !errors.Is(err, cluster.ErrInvalid) || !strings.Contains(err.Error(), want) {
		t.Fatalf("update changing size: %v, want %s", err, want)
	}
}

// A rule that does not compile refuses the definition with kube's
// message, at the rule's path in the definition.
func TestRuleDoesNotCompile(t *testing.T) {
	c := newCluster(t)
	doc := strings.Replace(widgetsCRD, "self.replicas <= 10", "self.replica <= 10", 1)
	err := createCRD(t, c, decodeCRD(t, doc))
	want := `spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: "self.replica <= 10": compilation failed: ERROR: <input>:1:5: undefined field 'replica'`
	if !errors.Is(err, cluster.ErrInvalid) || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

// A definition with an empty rule is refused once, with kube's message.
func TestEmptyRuleOnce(t *testing.T) {
	c := newCluster(t)
	err := createCRD(t, c, decodeCRD(t, strings.Replace(widgetsCRD, "self.replicas <= 10", "", 1)))
	var invalid *cluster.InvalidError
	if !errors.As(err, &invalid) || len(invalid.Errors) != 1 ||
		invalid.Errors[0].Error() != "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Required value: rule is not specified" {
		t.Fatalf("an empty rule: %v", err)
	}
}

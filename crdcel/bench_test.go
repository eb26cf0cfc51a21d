package crdcel_test

import (
	"testing"

	"github.com/ctrlkit/ctrlkit/crdcel"
)

// BenchmarkGatewayRules compiles the rules of the real Gateway
// definition's v1 schema (kube's definition validation, then the
// validator): about 40 ms on a 2-core CI machine.
func BenchmarkGatewayRules(b *testing.B) {
	crd := sharedCRD(b, "gateway.networking.k8s.io_gateways.yaml")
	for b.Loop() {
		if _, errs := crdcel.Rules(crd.Spec.Versions[0].Schema.OpenAPIV3Schema); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

// BenchmarkGatewayCheck checks a Gateway of two listeners against its
// rules: about 0.4 ms.
func BenchmarkGatewayCheck(b *testing.B) {
	crd := sharedCRD(b, "gateway.networking.k8s.io_gateways.yaml")
	check, _ := crdcel.Rules(crd.Spec.Versions[0].Schema.OpenAPIV3Schema)
	g := gateway("g",
		map[string]any{"name": "a", "port": int64(80), "protocol": "HTTP", "hostname": "a.example.com"},
		map[string]any{"name": "b", "port": int64(443), "protocol": "HTTPS", "tls": map[string]any{"mode": "Terminate", "certificateRefs": []any{map[string]any{"name": "c"}}}})
	obj := map[string]any{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
		"metadata": map[string]any{"name": "g", "namespace": "default"}, "spec": g.Content["spec"]}
	for b.Loop() {
		if errs := check(b.Context(), obj, nil); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

package apiextensions

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// metav1NameDescription is metav1.ObjectMeta's name documentation
// (k8s.io/apimachinery v0.37.2 types_swagger_doc_generated.go), the Name
// column's description.
const metav1NameDescription = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"

var tableNow = time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)

// Cell values per column type, ported from apiextensions-apiserver
// pkg/registry/customresource/tableconvertor/tableconvertor_test.go
// (Test_cellForJSONValue; its string cases as ConvertToTable renders
// them, through client-go's printer, not cellForJSONValue).
func TestTableCellTypes(t *testing.T) {
	tests := []struct {
		typ   string
		value any
		want  any
	}{
		{"integer", int64(42), int64(42)},
		{"integer", 3.14, int64(3)},
		{"integer", true, nil},
		{"integer", "foo", nil},

		{"number", int64(42), float64(42)},
		{"number", 3.14, 3.14},
		{"number", true, nil},
		{"number", "foo", nil},

		{"boolean", int64(42), nil},
		{"boolean", 3.14, nil},
		{"boolean", true, true},
		{"boolean", "foo", nil},

		{"string", int64(42), "42"},
		{"string", 3.14, "3.14"},
		{"string", true, "true"},
		{"string", "foo", "foo"},
		{"string", nil, "<no value>"},
		{"string", map[string]any{"b": int64(1), "a": "x"}, `{"a":"x","b":1}`},
		{"string", []any{"x", int64(2)}, `["x",2]`},

		{"date", int64(42), nil},
		{"date", 3.14, nil},
		{"date", true, nil},
		{"date", tableNow.Add(-12*time.Hour - 30*time.Minute).Format(time.RFC3339), "12h"},
		{"date", tableNow.Add(-3*time.Minute - 5*time.Second).Format(time.RFC3339), "3m5s"},
		{"date", tableNow.Add(12*time.Hour + 30*time.Minute).Format(time.RFC3339), "<invalid>"},
		{"date", "", "<unknown>"},
		{"date", "yesterday", "<invalid>"},

		{"integer", nil, nil},
		{"unknown", "foo", nil},
	}
	for _, tt := range tests {
		tab, err := NewTable([]api.CustomResourceColumnDefinition{{Name: "V", Type: tt.typ, JSONPath: ".spec.v"}})
		if err != nil {
			t.Fatal(err)
		}
		obj := map[string]any{"metadata": map[string]any{"name": "o"}, "spec": map[string]any{"v": tt.value}}
		cells := tab.Cells(obj, tableNow)
		if len(cells) != 2 || cells[0] != "o" {
			t.Fatalf("cells %v", cells)
		}
		if !reflect.DeepEqual(cells[1], tt.want) {
			t.Errorf("%s %#v: cell %#v, want %#v", tt.typ, tt.value, cells[1], tt.want)
		}
	}
}

// Several values selected: the first one is the cell. Ported from
// tableconvertor_test.go (Test_convertor_ConvertToTable, the "multiple
// string values" and "multiple integer values" cases).
func TestTableFirstValue(t *testing.T) {
	cols := func(typ string) []api.CustomResourceColumnDefinition {
		return []api.CustomResourceColumnDefinition{
			{Name: "valueOnly", Type: typ, JSONPath: ".spec.foo[0].bar[0]"},
			{Name: "single1", Type: typ, JSONPath: ".spec.foo[0].bar"},
			{Name: "single2", Type: typ, JSONPath: ".spec.foo[1].bar"},
			{Name: "multi", Type: typ, JSONPath: ".spec.foo[*].bar"},
		}
	}
	strs := cvObject(t, `{"metadata": {"name": "blah"}, "spec": {"foo": [{"bar": ["foo"]}, {"bar": ["bar", "baz"]}]}}`)
	ints := cvObject(t, `{"metadata": {"name": "blah"}, "spec": {"foo": [{"bar": [1]}, {"bar": [2, 3]}]}}`)
	for _, tt := range []struct {
		typ  string
		obj  map[string]any
		want []any
	}{
		{"string", strs, []any{"blah", "foo", `["foo"]`, `["bar","baz"]`, `["foo"]`}},
		{"string", ints, []any{"blah", "1", "[1]", "[2,3]", "[1]"}},
		{"integer", ints, []any{"blah", int64(1), nil, nil, nil}},
	} {
		tab, err := NewTable(cols(tt.typ))
		if err != nil {
			t.Fatal(err)
		}
		if got := tab.Cells(tt.obj, tableNow); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: cells %#v, want %#v", tt.typ, got, tt.want)
		}
	}
}

// A version without columns gets kube-apiserver's default Name and Age.
func TestTableDefaultColumns(t *testing.T) {
	tab, err := NewTable(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []api.Column{{Name: "Name", Type: "string"}, {Name: "Age", Type: "date"}}
	if got := tab.Columns(); !reflect.DeepEqual(got, want) {
		t.Errorf("Columns() = %v, want %v", got, want)
	}
	defs := tab.Definitions()
	if defs[0].Format != "name" || defs[0].Description != metav1NameDescription || defs[1].JSONPath != ".metadata.creationTimestamp" || !strings.HasPrefix(defs[1].Description, "CreationTimestamp is a timestamp") {
		t.Errorf("Definitions() = %+v", defs)
	}
	obj := map[string]any{"metadata": map[string]any{"name": "w", "creationTimestamp": "2026-12-06T11:00:00Z"}}
	if got := tab.Cells(obj, tableNow); !reflect.DeepEqual(got, []any{"w", "60m"}) {
		t.Errorf("Cells = %v", got)
	}
	if got := tab.Cells(map[string]any{}, tableNow); !reflect.DeepEqual(got, []any{"", nil}) {
		t.Errorf("Cells of an object without metadata = %#v", got)
	}
}

// A column without a description is described by its path, as kube does.
func TestTableDefinitions(t *testing.T) {
	tab, err := NewTable([]api.CustomResourceColumnDefinition{
		{Name: "A", Type: "integer", Format: "int32", Priority: 1, JSONPath: ".spec.a"},
		{Name: "B", Type: "string", Description: "the b", JSONPath: ".spec.b"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defs := tab.Definitions()
	if len(defs) != 3 || defs[1].Description != "Custom resource definition column (in JSONPath format): .spec.a" ||
		defs[2].Description != "the b" || defs[1].Format != "int32" {
		t.Errorf("Definitions() = %+v", defs)
	}
	want := []api.Column{{Name: "Name", Type: "string"}, {Name: "A", Type: "integer", Priority: 1}, {Name: "B", Type: "string"}}
	if got := tab.Columns(); !reflect.DeepEqual(got, want) {
		t.Errorf("Columns() = %v", got)
	}
}

// A column whose path does not parse stops the table, which keeps the
// columns before it (kube-apiserver's fallback).
func TestTableBadPath(t *testing.T) {
	tab, err := NewTable([]api.CustomResourceColumnDefinition{
		{Name: "Good", Type: "string", JSONPath: ".spec.good"},
		{Name: "Bad", Type: "string", JSONPath: ".spec.items[0"},
		{Name: "After", Type: "string", JSONPath: ".spec.after"},
	})
	if err == nil || !strings.Contains(err.Error(), `unrecognized column definition ".spec.items[0"`) ||
		!strings.HasSuffix(err.Error(), "unterminated array") {
		t.Fatalf("NewTable error = %v", err)
	}
	want := []api.Column{{Name: "Name", Type: "string"}, {Name: "Good", Type: "string"}}
	if got := tab.Columns(); !reflect.DeepEqual(got, want) {
		t.Errorf("Columns() = %v, want %v", got, want)
	}
	if got := tab.Cells(map[string]any{"spec": map[string]any{"good": "g"}}, tableNow); !reflect.DeepEqual(got, []any{"", "g"}) {
		t.Errorf("Cells = %v", got)
	}
}

// The printer columns of the published CRDs render sample objects as
// kubectl get shows them on a real cluster.
func TestSharedCRDTables(t *testing.T) {
	created := tableNow.Add(-90 * time.Minute).Format(time.RFC3339)
	tests := []struct {
		file    string
		obj     string
		columns []string
		want    []any
	}{{
		file: "cert-manager.io_certificates.yaml",
		obj: `{"metadata": {"name": "web", "creationTimestamp": "` + created + `"},
			"spec": {"secretName": "web-tls", "issuerRef": {"name": "letsencrypt"}},
			"status": {"notAfter": "2027-03-01T00:00:00Z", "conditions": [
				{"type": "Issuing", "status": "False", "message": "issued"},
				{"type": "Ready", "status": "True", "message": "Certificate is up to date and has not expired"}]}}`,
		columns: []string{"Name", "Ready", "Secret", "Issuer", "Status", "Expiration", "Age"},
		want:    []any{"web", "True", "web-tls", "letsencrypt", "Certificate is up to date and has not expired", "2027-03-01T00:00:00Z", "90m"},
	}, {
		file:    "cert-manager.io_certificates.yaml",
		obj:     `{"metadata": {"name": "new"}, "spec": {"secretName": "s", "issuerRef": {"name": "i"}}}`,
		columns: []string{"Name", "Ready", "Secret", "Issuer", "Status", "Expiration", "Age"},
		want:    []any{"new", nil, "s", "i", nil, nil, nil},
	}, {
		file: "argoproj.io_rollouts.yaml",
		obj: `{"metadata": {"name": "canary", "creationTimestamp": "` + created + `"},
			"spec": {"replicas": 5}, "status": {"replicas": 6, "updatedReplicas": 2, "availableReplicas": 4, "HPAReplicas": 6}}`,
		columns: []string{"Name", "Desired", "Current", "Up-to-date", "Available", "Age"},
		want:    []any{"canary", int64(5), int64(6), int64(2), int64(4), "90m"},
	}, {
		file: "gateway.networking.k8s.io_gateways.yaml",
		obj: `{"metadata": {"name": "gw", "creationTimestamp": "` + created + `"},
			"spec": {"gatewayClassName": "istio"},
			"status": {"addresses": [{"type": "IPAddress", "value": "10.0.0.7"}, {"value": "10.0.0.8"}],
				"conditions": [{"type": "Accepted", "status": "True"}, {"type": "Programmed", "status": "False"}]}}`,
		columns: []string{"Name", "Class", "Address", "Programmed", "Age"},
		want:    []any{"gw", "istio", "10.0.0.7", "False", "90m"},
	}, {
		file: "gateway.networking.k8s.io_gatewayclasses.yaml",
		obj: `{"metadata": {"name": "istio", "creationTimestamp": "` + created + `"},
			"spec": {"controllerName": "istio.io/gateway-controller", "description": "Istio"},
			"status": {"conditions": [{"type": "Accepted", "status": "True"}]}}`,
		columns: []string{"Name", "Controller", "Accepted", "Age", "Description"},
		want:    []any{"istio", "istio.io/gateway-controller", "True", "90m", "Istio"},
	}, {
		file:    "monitoring.coreos.com_servicemonitors.yaml",
		obj:     `{"metadata": {"name": "sm", "creationTimestamp": "` + created + `"}, "spec": {"endpoints": []}}`,
		columns: []string{"Name", "Age"},
		want:    []any{"sm", "90m"},
	}, {
		file:    "monitoring.coreos.com_prometheusrules.yaml",
		obj:     `{"metadata": {"name": "rules", "creationTimestamp": "` + created + `"}}`,
		columns: []string{"Name", "Age"},
		want:    []any{"rules", "90m"},
	}}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			crd := cvSharedCRD(t, tt.file)
			var v *api.CustomResourceDefinitionVersion
			for i := range crd.Spec.Versions {
				if crd.Spec.Versions[i].Storage {
					v = &crd.Spec.Versions[i]
				}
			}
			tab, err := NewTable(v.AdditionalPrinterColumns)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, c := range tab.Columns() {
				names = append(names, c.Name)
			}
			if !reflect.DeepEqual(names, tt.columns) {
				t.Errorf("columns %v, want %v", names, tt.columns)
			}
			if got := tab.Cells(cvObject(t, tt.obj), tableNow); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("cells %#v, want %#v", got, tt.want)
			}
		})
	}
}

// Rollout's scale subresource reads its replicas where the CRD says.
func TestSharedRolloutScalePaths(t *testing.T) {
	crd := cvSharedCRD(t, "argoproj.io_rollouts.yaml")
	sc := crd.Spec.Versions[0].Subresources.Scale
	obj := cvObject(t, `{"spec": {"replicas": 5}, "status": {"HPAReplicas": 6, "selector": "app=canary"}}`)
	spec, ok1 := ReadPath(obj, sc.SpecReplicasPath)
	status, ok2 := ReadPath(obj, sc.StatusReplicasPath)
	sel, ok3 := ReadPath(obj, *sc.LabelSelectorPath)
	if !ok1 || !ok2 || !ok3 || spec != int64(5) || status != int64(6) || sel != "app=canary" {
		t.Errorf("scale reads %v %v %v (%v %v %v)", spec, status, sel, ok1, ok2, ok3)
	}
	if err := WritePath(obj, sc.SpecReplicasPath, int64(7)); err != nil {
		t.Fatal(err)
	}
	if got, _ := ReadPath(obj, ".spec.replicas"); got != int64(7) {
		t.Errorf("spec.replicas after scale = %v", got)
	}
}

package apiextensions

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Descriptions of the columns kube-apiserver adds (metav1.ObjectMeta's
// field documentation).
const (
	nameDescription = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
	ageDescription  = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)

// Table renders objects of one version of a custom resource as rows of a
// printer table, as kube-apiserver's CRD table convertor does
// (apiextensions-apiserver pkg/registry/customresource/tableconvertor):
// the Name column, then the version's additionalPrinterColumns, or, when
// the version declares none, the Age column of .metadata.creationTimestamp
// that kube-apiserver serves by default. A Table is immutable and safe
// for concurrent use.
type Table struct {
	defs  []api.CustomResourceColumnDefinition // Name first
	paths []*JSONPath                          // of defs[1:]
}

// NewTable builds the table of columns, a CRD version's
// additionalPrinterColumns. A column whose jsonPath does not parse stops
// the build with an error; kube-apiserver then serves the table it has
// built so far, and so may the caller: the returned Table is never nil
// and holds the Name column and the columns before the bad one.
func NewTable(columns []api.CustomResourceColumnDefinition) (*Table, error) {
	t := &Table{defs: []api.CustomResourceColumnDefinition{
		{Name: "Name", Type: "string", Format: "name", Description: nameDescription},
	}}
	if len(columns) == 0 {
		columns = []api.CustomResourceColumnDefinition{
			{Name: "Age", Type: "date", Description: ageDescription, JSONPath: ".metadata.creationTimestamp"},
		}
	}
	for _, col := range columns {
		p, err := ParseJSONPath(col.JSONPath)
		if err != nil {
			return t, fmt.Errorf("apiextensions: unrecognized column definition %q: %w", col.JSONPath, err)
		}
		if col.Description == "" {
			col.Description = "Custom resource definition column (in JSONPath format): " + col.JSONPath
		}
		t.defs = append(t.defs, col)
		t.paths = append(t.paths, p)
	}
	return t, nil
}

// Columns returns the table's columns, Name first.
func (t *Table) Columns() []api.Column {
	out := make([]api.Column, len(t.defs))
	for i, d := range t.defs {
		out[i] = api.Column{Name: d.Name, Type: d.Type, Priority: d.Priority}
	}
	return out
}

// Definitions returns the definitions of the table's columns, Name first,
// with the format and description kube-apiserver serves (a column
// declared without a description is described by its jsonPath).
func (t *Table) Definitions() []api.CustomResourceColumnDefinition {
	return append([]api.CustomResourceColumnDefinition(nil), t.defs...)
}

// Cells returns obj's row, one cell per column of Columns: the name, then
// the first value each column's path selects, rendered for the column's
// type as kube-apiserver does:
//
//   - integer: an int64 (a float is truncated); number: a float64;
//     boolean: a bool; another JSON type: nil.
//   - string: the value as client-go's jsonpath prints it (a string as is,
//     a number or boolean in Go's %v form, a list or map as compact JSON,
//     null as "<no value>").
//   - date: an RFC 3339 string becomes its age at now ("5m", kubectl's
//     AGE), "" the age "<unknown>", another string "<invalid>".
//
// A cell whose path selects nothing, or whose evaluation fails, is nil.
func (t *Table) Cells(obj map[string]any, now time.Time) []any {
	cells := make([]any, 1, len(t.defs))
	cells[0] = tableNameOf(obj)
	for i, p := range t.paths {
		values, err := p.find(obj)
		if err != nil || len(values) == 0 {
			cells = append(cells, nil)
			continue
		}
		cells = append(cells, tableCell(t.defs[i+1].Type, values[0], now))
	}
	return cells
}

func tableNameOf(obj map[string]any) string {
	meta, _ := obj["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	return name
}

func tableCell(typ string, v any, now time.Time) any {
	if typ == "string" {
		return tablePrintValue(v)
	}
	if v == nil {
		return nil
	}
	switch typ {
	case "integer":
		switch v := v.(type) {
		case int64:
			return v
		case float64:
			return int64(v)
		}
	case "number":
		switch v := v.(type) {
		case int64:
			return float64(v)
		case float64:
			return v
		}
	case "boolean":
		if b, ok := v.(bool); ok {
			return b
		}
	case "date":
		if s, ok := v.(string); ok {
			return tableAge(s, now)
		}
	}
	return nil
}

// tablePrintValue prints v as client-go's JSONPath.PrintResults does.
func tablePrintValue(v any) any {
	switch v := v.(type) {
	case nil:
		return "<no value>"
	case string:
		return v
	case map[string]any, []any:
		b, err := json.Marshal(v)
		if err != nil {
			return nil
		}
		return string(b)
	}
	return fmt.Sprint(v)
}

// tableAge renders an RFC 3339 timestamp as metav1.Time's query-parameter
// parsing and the table's ConvertToHumanReadableDateType do.
func tableAge(s string, now time.Time) string {
	if s == "" || s == "null" {
		return "<unknown>"
	}
	ts, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return "<invalid>"
	}
	return api.HumanDuration(now.Sub(ts))
}

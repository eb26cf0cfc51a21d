package apiserver

import (
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// table is metav1.Table.
type table struct {
	api.TypeMeta      `json:",inline"`
	Metadata          ListMeta `json:"metadata"`
	ColumnDefinitions []column `json:"columnDefinitions"`
	Rows              []row    `json:"rows"`
}

// column is metav1.TableColumnDefinition.
type column struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	Priority    int32  `json:"priority"`
}

// row is metav1.TableRow.
type row struct {
	Cells  []any `json:"cells"`
	Object any   `json:"object,omitempty"`
}

// printer is the columns of one kind and the cells of one object.
type printer struct {
	columns []column
	cells   func(obj api.Object, now time.Time) []any
}

func col(name, typ string, priority int32) column {
	c := column{Name: name, Type: typ, Priority: priority, Description: name}
	if name == "Name" {
		c.Format = "name"
	}
	return c
}

func (h *typed[T]) table(req *request, objs []T, rv, cont string) table {
	p := h.res.printer
	include := req.r.URL.Query().Get("includeObject")
	t := table{TypeMeta: api.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "Table"},
		Metadata: ListMeta{ResourceVersion: rv, Continue: cont}, ColumnDefinitions: p.columns, Rows: []row{}}
	now := time.Now()
	for _, obj := range objs {
		r := row{Cells: p.cells(obj, now)}
		switch include {
		case "None":
		case "Object":
			r.Object, _ = h.served(obj)
		default: // Metadata, kube-apiserver's default
			r.Object = partialMetadata(obj)
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

// HumanDuration formats d as kubectl's AGE column does ("45s", "3m12s",
// "5h", "12d"): api.HumanDuration, which the tables of the kinds'
// registrations use.
func HumanDuration(d time.Duration) string { return api.HumanDuration(d) }

// defaultColumns are the columns of a kind registered without its own
// (api.KindInfo.Columns): kube-apiserver's default table.
var defaultColumns = []api.Column{{Name: "Name", Type: "string"}, {Name: "Age", Type: "string"}}

func defaultCells(o api.Object, now time.Time) []any {
	m := o.GetObjectMeta()
	age := "<unknown>"
	if !m.CreationTimestamp.IsZero() {
		age = api.HumanDuration(now.Sub(m.CreationTimestamp.Time))
	}
	return []any{m.Name, age}
}

// printerOf returns the columns and cells of the kind's tables, from its
// registration.
func printerOf(info *api.KindInfo) printer {
	if info.Columns == nil {
		return printer{columns: columnsOf(defaultColumns), cells: defaultCells}
	}
	return printer{columns: columnsOf(info.Columns), cells: info.Cells}
}

func columnsOf(cs []api.Column) []column {
	out := make([]column, len(cs))
	for i, c := range cs {
		out[i] = col(c.Name, c.Type, c.Priority)
	}
	return out
}

package protobuf

import (
	"slices"
	"sync"
)

// Type is the protobuf type of a field's values (of a map field: of its
// values).
type Type uint8

// The field types of Kubernetes' protobuf messages.
const (
	// String is a proto string (JSON string).
	String Type = iota + 1
	// Bytes is proto bytes (JSON base64 string).
	Bytes
	// Bool is a proto bool (varint; JSON true/false).
	Bool
	// Int32 is a proto int32 (varint; JSON number).
	Int32
	// Int64 is a proto int64 (varint; JSON number).
	Int64
	// Uint32 is a proto uint32 (varint; JSON number).
	Uint32
	// Uint64 is a proto uint64 (varint; JSON number).
	Uint64
	// Double is a proto double (fixed64; JSON number).
	Double
	// Float is a proto float (fixed32; JSON number).
	Float
	// Message is an embedded message (bytes; JSON as its Shape says).
	Message
)

// Shape is how a message appears in JSON: an object of its fields, or
// one of the custom-marshalled Kubernetes types.
type Shape uint8

// The JSON shapes of messages.
const (
	// Object is a JSON object keyed by the fields' JSON names.
	Object Shape = iota
	// Time is metav1.Time: {seconds=1, nanos=2} ↔ an RFC 3339 string.
	Time
	// MicroTime is metav1.MicroTime: as Time, with microseconds in JSON.
	MicroTime
	// Duration is metav1.Duration: {duration=1 nanoseconds} ↔ a Go
	// duration string ("1m30s").
	Duration
	// Quantity is resource.Quantity: {string=1} ↔ a JSON string.
	Quantity
	// IntOrString is intstr.IntOrString: {type=1, intVal=2, strVal=3} ↔
	// a JSON number or string.
	IntOrString
	// RawJSON is runtime.RawExtension and metav1.FieldsV1: {raw=1 bytes}
	// ↔ the JSON value those bytes hold.
	RawJSON
)

// Field is one field of a message.
type Field struct {
	// Num is the field number.
	Num uint32
	// Name is the JSON name of the field (of the Go field's json tag).
	Name string
	// Type is the type of the field's values.
	Type Type
	// Message names the message type of the values when Type is Message.
	Message string
	// Repeated is true for a repeated field (a JSON array).
	Repeated bool
	// Map is true for a map<string, Type> field (a JSON object).
	Map bool
	// Inline is true for an embedded message whose fields appear in the
	// JSON object of the enclosing message (json:",inline").
	Inline bool
	// Nullable is true for a field whose Go type in k8s.io/api is a
	// pointer: the generated code writes it only when set, so a zero
	// value is meaningful. A scalar field that is not nullable is
	// always written, zero or not; ToJSON leaves out its zero value, as
	// if absent (a JSON decoder then gives the zero value anyway, and a
	// field ctrlkit does not model, such as metadata.selfLink, is not
	// reported as unknown).
	Nullable bool
}

// MessageType describes one protobuf message.
type MessageType struct {
	// Shape is how the message appears in JSON.
	Shape Shape
	// Fields are the message's fields in field-number order.
	Fields []Field

	once   sync.Once
	byNum  map[uint32]*Field
	byName map[string]*Field
}

func (m *MessageType) index() {
	m.once.Do(func() {
		m.byNum = make(map[uint32]*Field, len(m.Fields))
		m.byName = make(map[string]*Field, len(m.Fields))
		for i := range m.Fields {
			f := &m.Fields[i]
			m.byNum[f.Num] = f
			if !f.Inline {
				m.byName[f.Name] = f
			}
		}
	})
}

// Kinds returns the apiVersion/kind pairs ("apps/v1/Deployment",
// "v1/PodList"; "*/Status" for meta/v1's, whatever their apiVersion)
// that have a protobuf form, sorted.
func Kinds() []string {
	out := make([]string, 0, len(kinds))
	for k := range kinds {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Has reports whether the kind apiVersion/kind has a protobuf form (a
// Kubernetes built-in kind, its list, or one of meta/v1's).
func Has(apiVersion, kind string) bool {
	return lookup(apiVersion, kind) != ""
}

// MessageFor returns the name of the protobuf message of apiVersion/kind
// ("k8s.io.api.core.v1.Pod"), or "". meta/v1's kinds (Status,
// DeleteOptions, WatchEvent) are found whatever their apiVersion.
func MessageFor(apiVersion, kind string) string {
	return lookup(apiVersion, kind)
}

package protobuf

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// MediaType is the media type of Kubernetes' protobuf encoding.
const MediaType = "application/vnd.kubernetes.protobuf"

// Magic is the 4 bytes that begin every Kubernetes protobuf document,
// before its runtime.Unknown envelope.
var Magic = [4]byte{'k', '8', 's', 0}

// MaxDepth is how deeply messages may nest in one document; deeper input
// is malformed.
const MaxDepth = 100

// ErrMalformed is wrapped by every error about input that is not valid
// Kubernetes protobuf (or JSON that does not fit a message).
var ErrMalformed = errors.New("malformed protobuf")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// wire types
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// message returns the descriptor of the message called name.
func message(name string) (*MessageType, error) {
	m := messages[name]
	if m == nil {
		return nil, fmt.Errorf("protobuf: no message %q", name)
	}
	m.index()
	return m, nil
}

// lookup returns the message of apiVersion/kind; meta/v1's kinds
// (Status, DeleteOptions, …) are found whatever their apiVersion.
func lookup(apiVersion, kind string) string {
	if m := kinds[apiVersion+"/"+kind]; m != "" {
		return m
	}
	return kinds["*/"+kind]
}

// field is one field as read off the wire.
type field struct {
	num  uint32
	wire int
	v    uint64 // varint, fixed64, fixed32
	b    []byte // bytes
}

// fields calls fn with each field of the message encoded in b.
func fields(b []byte, fn func(f field) error) error {
	for len(b) > 0 {
		tag, n := binary.Uvarint(b)
		if n <= 0 {
			return malformed("bad field tag")
		}
		b = b[n:]
		f := field{num: uint32(tag >> 3), wire: int(tag & 7)}
		if tag>>3 == 0 || tag>>3 > math.MaxInt32 {
			return malformed("bad field number %d", tag>>3)
		}
		switch f.wire {
		case wireVarint:
			f.v, n = binary.Uvarint(b)
			if n <= 0 {
				return malformed("bad varint in field %d", f.num)
			}
			b = b[n:]
		case wireFixed64:
			if len(b) < 8 {
				return malformed("truncated fixed64 in field %d", f.num)
			}
			f.v, b = binary.LittleEndian.Uint64(b), b[8:]
		case wireFixed32:
			if len(b) < 4 {
				return malformed("truncated fixed32 in field %d", f.num)
			}
			f.v, b = uint64(binary.LittleEndian.Uint32(b)), b[4:]
		case wireBytes:
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return malformed("truncated length-delimited field %d", f.num)
			}
			f.b, b = b[n:n+int(l)], b[n+int(l):]
		default:
			return malformed("unsupported wire type %d in field %d", f.wire, f.num)
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// ToJSON decodes b, an encoded message of the type called name, into
// its JSON value: map[string]any for an object (absent fields absent),
// or a string, number (int64, uint64, float64) or json.RawMessage for the
// custom-marshalled shapes; nil stands for JSON null. Unknown fields are
// skipped.
func ToJSON(name string, b []byte) (any, error) {
	return decodeMessage(name, b, 0)
}

func decodeMessage(name string, b []byte, depth int) (any, error) {
	if depth > MaxDepth {
		return nil, malformed("messages nested more than %d deep", MaxDepth)
	}
	m, err := message(name)
	if err != nil {
		return nil, err
	}
	if m.Shape != Object {
		return decodeShape(m.Shape, b)
	}
	out := map[string]any{}
	if err := decodeInto(out, m, b, depth); err != nil {
		return nil, err
	}
	return out, nil
}

func decodeInto(out map[string]any, m *MessageType, b []byte, depth int) error {
	return fields(b, func(w field) error {
		f := m.byNum[w.num]
		if f == nil {
			return nil // unknown field
		}
		if f.Inline {
			if w.wire != wireBytes {
				return malformed("field %s: wire type %d for a message", f.Name, w.wire)
			}
			if depth+1 > MaxDepth {
				return malformed("messages nested more than %d deep", MaxDepth)
			}
			sub, err := message(f.Message)
			if err != nil {
				return err
			}
			return decodeInto(out, sub, w.b, depth+1)
		}
		if f.Map {
			if w.wire != wireBytes {
				return malformed("field %s: wire type %d for a map entry", f.Name, w.wire)
			}
			k, v, err := decodeEntry(f, w.b, depth)
			if err != nil {
				return err
			}
			mv, _ := out[f.Name].(map[string]any)
			if mv == nil {
				mv = map[string]any{}
				out[f.Name] = mv
			}
			mv[k] = v
			return nil
		}
		if f.Repeated {
			arr, _ := out[f.Name].([]any)
			if w.wire == wireBytes && packable(f.Type) {
				vals, err := decodePacked(f, w.b)
				if err != nil {
					return err
				}
				out[f.Name] = append(arr, vals...)
				return nil
			}
			v, err := decodeValue(f, w, depth)
			if err != nil {
				return err
			}
			out[f.Name] = append(arr, v)
			return nil
		}
		v, err := decodeValue(f, w, depth)
		if err != nil {
			return err
		}
		if v == nil || !f.Nullable && zeroScalar(v) {
			delete(out, f.Name)
		} else {
			out[f.Name] = v
		}
		return nil
	})
}

// zeroScalar reports whether v is the zero value of a scalar field: "",
// false or 0 (what the generated code writes for an unset field that is
// not a pointer).
func zeroScalar(v any) bool {
	switch t := v.(type) {
	case string:
		return t == ""
	case bool:
		return !t
	case int64:
		return t == 0
	case uint64:
		return t == 0
	case float64:
		return t == 0
	}
	return false
}

func packable(t Type) bool { return t != String && t != Bytes && t != Message }

func decodePacked(f *Field, b []byte) ([]any, error) {
	var out []any
	for len(b) > 0 {
		w := field{num: f.Num}
		switch f.Type {
		case Double:
			if len(b) < 8 {
				return nil, malformed("field %s: truncated packed double", f.Name)
			}
			w.wire, w.v, b = wireFixed64, binary.LittleEndian.Uint64(b), b[8:]
		case Float:
			if len(b) < 4 {
				return nil, malformed("field %s: truncated packed float", f.Name)
			}
			w.wire, w.v, b = wireFixed32, uint64(binary.LittleEndian.Uint32(b)), b[4:]
		default:
			v, n := binary.Uvarint(b)
			if n <= 0 {
				return nil, malformed("field %s: bad packed varint", f.Name)
			}
			w.wire, w.v, b = wireVarint, v, b[n:]
		}
		v, err := decodeValue(f, w, 0)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// decodeEntry decodes a map entry {key=1, value=2}.
func decodeEntry(f *Field, b []byte, depth int) (string, any, error) {
	var key string
	var val any
	seen := false
	err := fields(b, func(w field) error {
		switch w.num {
		case 1:
			if w.wire != wireBytes {
				return malformed("field %s: map key of wire type %d", f.Name, w.wire)
			}
			key = string(w.b)
		case 2:
			v, err := decodeValue(f, w, depth)
			if err != nil {
				return err
			}
			val, seen = v, true
		}
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	if !seen { // an absent value is the zero value
		val, err = decodeValue(f, zeroField(f.Type), depth)
		if err != nil {
			return "", nil, err
		}
	}
	return key, val, nil
}

func zeroField(t Type) field {
	switch t {
	case String, Bytes, Message:
		return field{wire: wireBytes, b: []byte{}}
	case Double:
		return field{wire: wireFixed64}
	case Float:
		return field{wire: wireFixed32}
	}
	return field{wire: wireVarint}
}

func wireOf(t Type) int {
	switch t {
	case String, Bytes, Message:
		return wireBytes
	case Double:
		return wireFixed64
	case Float:
		return wireFixed32
	}
	return wireVarint
}

func decodeValue(f *Field, w field, depth int) (any, error) {
	if want := wireOf(f.Type); w.wire != want {
		return nil, malformed("field %s: wire type %d, want %d", f.Name, w.wire, want)
	}
	switch f.Type {
	case String:
		return string(w.b), nil
	case Bytes:
		return slices.Clone(w.b), nil
	case Bool:
		return w.v != 0, nil
	case Int32:
		return int64(int32(w.v)), nil
	case Int64:
		return int64(w.v), nil
	case Uint32:
		return uint64(uint32(w.v)), nil
	case Uint64:
		return w.v, nil
	case Double:
		return finite(f, math.Float64frombits(w.v))
	case Float:
		return finite(f, float64(math.Float32frombits(uint32(w.v))))
	case Message:
		return decodeMessage(f.Message, w.b, depth+1)
	}
	return nil, fmt.Errorf("protobuf: field %s has no type", f.Name)
}

func finite(f *Field, v float64) (any, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil, malformed("field %s: %v has no JSON form", f.Name, v)
	}
	return v, nil
}

// decodeShape decodes the custom-marshalled messages.
func decodeShape(s Shape, b []byte) (any, error) {
	var ints [4]int64
	var strs [4]string
	var raw []byte
	seen := false
	err := fields(b, func(w field) error {
		if w.num > 3 {
			return nil
		}
		seen = true
		switch w.wire {
		case wireVarint:
			ints[w.num] = int64(w.v)
		case wireBytes:
			strs[w.num] = string(w.b)
			raw = w.b
		default:
			return malformed("wire type %d in a custom-marshalled message", w.wire)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	switch s {
	case Time, MicroTime:
		if !seen {
			return nil, nil
		}
		if ints[2] < 0 || ints[2] >= 1e9 {
			return nil, malformed("timestamp nanos %d out of range", ints[2])
		}
		t := time.Unix(ints[1], ints[2]).UTC()
		if t.Year() < 0 || t.Year() > 9999 {
			return nil, malformed("timestamp %d out of range", ints[1])
		}
		if s == MicroTime {
			return t.Format("2006-01-02T15:04:05.000000Z07:00"), nil
		}
		return t.Format(time.RFC3339), nil
	case Duration:
		return time.Duration(ints[1]).String(), nil
	case Quantity:
		if strs[1] == "" {
			return "0", nil
		}
		return strs[1], nil
	case IntOrString:
		if ints[1] == 1 {
			return strs[3], nil
		}
		return int64(int32(ints[2])), nil
	case RawJSON:
		if len(raw) == 0 {
			return nil, nil
		}
		if !json.Valid(raw) {
			return nil, malformed("raw field does not hold JSON")
		}
		return json.RawMessage(slices.Clone(raw)), nil
	}
	return nil, fmt.Errorf("protobuf: unknown shape %d", s)
}

// FromJSON encodes v, a JSON value as json.Decoder with UseNumber
// decodes it (map[string]any, []any, string, json.Number, bool, nil),
// as a message of the type called name. JSON keys the message has no
// field for are skipped; null and absent fields are not encoded.
func FromJSON(name string, v any) ([]byte, error) {
	return encodeMessage(nil, name, v, 0)
}

func encodeMessage(buf []byte, name string, v any, depth int) ([]byte, error) {
	if depth > MaxDepth {
		return nil, malformed("objects nested more than %d deep", MaxDepth)
	}
	m, err := message(name)
	if err != nil {
		return nil, err
	}
	if m.Shape != Object {
		return encodeShape(buf, m.Shape, v)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, malformed("%s: want a JSON object, got %s", name, jsonKind(v))
	}
	return encodeFields(buf, m, obj, depth)
}

func encodeFields(buf []byte, m *MessageType, obj map[string]any, depth int) ([]byte, error) {
	var err error
	for i := range m.Fields {
		f := &m.Fields[i]
		if f.Inline {
			sub, err := message(f.Message)
			if err != nil {
				return nil, err
			}
			if depth+1 > MaxDepth {
				return nil, malformed("objects nested more than %d deep", MaxDepth)
			}
			b, err := encodeFields(nil, sub, obj, depth+1)
			if err != nil {
				return nil, err
			}
			buf = appendBytesField(buf, f.Num, b)
			continue
		}
		v, ok := obj[f.Name]
		if !ok || v == nil {
			continue
		}
		switch {
		case f.Map:
			mv, ok := v.(map[string]any)
			if !ok {
				return nil, malformed("field %s: want a JSON object, got %s", f.Name, jsonKind(v))
			}
			keys := make([]string, 0, len(mv))
			for k := range mv {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				entry := appendBytesField(nil, 1, []byte(k))
				if mv[k] != nil {
					if entry, err = encodeValue(entry, f, 2, mv[k], depth); err != nil {
						return nil, err
					}
				}
				buf = appendBytesField(buf, f.Num, entry)
			}
		case f.Repeated:
			arr, ok := v.([]any)
			if !ok {
				return nil, malformed("field %s: want a JSON array, got %s", f.Name, jsonKind(v))
			}
			for _, e := range arr {
				if e == nil {
					return nil, malformed("field %s: null in an array", f.Name)
				}
				if buf, err = encodeValue(buf, f, f.Num, e, depth); err != nil {
					return nil, err
				}
			}
		default:
			if buf, err = encodeValue(buf, f, f.Num, v, depth); err != nil {
				return nil, err
			}
		}
	}
	return buf, nil
}

func appendTag(buf []byte, num uint32, wire int) []byte {
	return binary.AppendUvarint(buf, uint64(num)<<3|uint64(wire))
}

func appendBytesField(buf []byte, num uint32, b []byte) []byte {
	buf = appendTag(buf, num, wireBytes)
	buf = binary.AppendUvarint(buf, uint64(len(b)))
	return append(buf, b...)
}

func appendVarintField(buf []byte, num uint32, v uint64) []byte {
	return binary.AppendUvarint(appendTag(buf, num, wireVarint), v)
}

// encodeValue appends v as field num of f's type.
func encodeValue(buf []byte, f *Field, num uint32, v any, depth int) ([]byte, error) {
	switch f.Type {
	case String:
		s, ok := v.(string)
		if !ok {
			return nil, malformed("field %s: want a string, got %s", f.Name, jsonKind(v))
		}
		return appendBytesField(buf, num, []byte(s)), nil
	case Bytes:
		s, ok := v.(string)
		if !ok {
			return nil, malformed("field %s: want a base64 string, got %s", f.Name, jsonKind(v))
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, malformed("field %s: %v", f.Name, err)
		}
		return appendBytesField(buf, num, b), nil
	case Bool:
		b, ok := v.(bool)
		if !ok {
			return nil, malformed("field %s: want true or false, got %s", f.Name, jsonKind(v))
		}
		var x uint64
		if b {
			x = 1
		}
		return appendVarintField(buf, num, x), nil
	case Int32, Int64:
		bits := 64
		if f.Type == Int32 {
			bits = 32
		}
		n, err := jsonInt(v, bits)
		if err != nil {
			return nil, malformed("field %s: %v", f.Name, err)
		}
		return appendVarintField(buf, num, uint64(n)), nil
	case Uint32, Uint64:
		bits := 64
		if f.Type == Uint32 {
			bits = 32
		}
		n, ok := v.(json.Number)
		if !ok {
			return nil, malformed("field %s: want a number, got %s", f.Name, jsonKind(v))
		}
		u, err := strconv.ParseUint(string(n), 10, bits)
		if err != nil {
			return nil, malformed("field %s: %v", f.Name, err)
		}
		return appendVarintField(buf, num, u), nil
	case Double, Float:
		n, ok := v.(json.Number)
		if !ok {
			return nil, malformed("field %s: want a number, got %s", f.Name, jsonKind(v))
		}
		x, err := strconv.ParseFloat(string(n), 64)
		if err != nil {
			return nil, malformed("field %s: %v", f.Name, err)
		}
		if f.Type == Float {
			return binary.LittleEndian.AppendUint32(appendTag(buf, num, wireFixed32), math.Float32bits(float32(x))), nil
		}
		return binary.LittleEndian.AppendUint64(appendTag(buf, num, wireFixed64), math.Float64bits(x)), nil
	case Message:
		b, err := encodeMessage(nil, f.Message, v, depth+1)
		if err != nil {
			return nil, err
		}
		return appendBytesField(buf, num, b), nil
	}
	return nil, fmt.Errorf("protobuf: field %s has no type", f.Name)
}

func jsonInt(v any, bits int) (int64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("want an integer, got %s", jsonKind(v))
	}
	i, err := strconv.ParseInt(string(n), 10, bits)
	if err == nil {
		return i, nil
	}
	// 1e3 and 2.0 are integers too, as encoding/json decodes them.
	f, ferr := strconv.ParseFloat(string(n), 64)
	if ferr != nil || f != math.Trunc(f) || f < -math.Ldexp(1, bits-1) || f >= math.Ldexp(1, bits-1) {
		return 0, fmt.Errorf("%s is not a %d-bit integer", n, bits)
	}
	return int64(f), nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number, float64, int64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

func encodeShape(buf []byte, s Shape, v any) ([]byte, error) {
	switch s {
	case Time, MicroTime:
		str, ok := v.(string)
		if !ok {
			return nil, malformed("want a timestamp string, got %s", jsonKind(v))
		}
		if str == "" {
			return buf, nil
		}
		t, err := time.Parse(time.RFC3339Nano, str)
		if err != nil {
			return nil, malformed("%v", err)
		}
		if s == Time {
			t = t.Truncate(time.Second)
		}
		if t.Unix() != 0 {
			buf = appendVarintField(buf, 1, uint64(t.Unix()))
		}
		if t.Nanosecond() != 0 {
			buf = appendVarintField(buf, 2, uint64(t.Nanosecond()))
		}
		return buf, nil
	case Duration:
		str, ok := v.(string)
		if !ok {
			return nil, malformed("want a duration string, got %s", jsonKind(v))
		}
		d, err := time.ParseDuration(str)
		if err != nil {
			return nil, malformed("%v", err)
		}
		return appendVarintField(buf, 1, uint64(d)), nil
	case Quantity:
		switch q := v.(type) {
		case string:
			return appendBytesField(buf, 1, []byte(q)), nil
		case json.Number:
			return appendBytesField(buf, 1, []byte(q)), nil
		}
		return nil, malformed("want a quantity, got %s", jsonKind(v))
	case IntOrString:
		switch x := v.(type) {
		case string:
			buf = appendVarintField(buf, 1, 1)
			buf = appendVarintField(buf, 2, 0)
			return appendBytesField(buf, 3, []byte(x)), nil
		case json.Number:
			n, err := jsonInt(x, 32)
			if err != nil {
				return nil, malformed("%v", err)
			}
			buf = appendVarintField(buf, 1, 0)
			buf = appendVarintField(buf, 2, uint64(n))
			return appendBytesField(buf, 3, nil), nil
		}
		return nil, malformed("want an integer or a string, got %s", jsonKind(v))
	case RawJSON:
		var b []byte
		if r, ok := v.(json.RawMessage); ok {
			b = r
		} else {
			var err error
			if b, err = json.Marshal(v); err != nil {
				return nil, malformed("%v", err)
			}
		}
		return appendBytesField(buf, 1, b), nil
	}
	return nil, fmt.Errorf("protobuf: unknown shape %d", s)
}

// Marshal encodes obj, a JSON object with apiVersion and kind, as a
// Kubernetes protobuf document: Magic then a runtime.Unknown whose
// typeMeta names the kind and whose raw is the kind's message.
func Marshal(obj []byte) ([]byte, error) {
	v, err := decodeJSON(obj)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, malformed("want a JSON object, got %s", jsonKind(v))
	}
	apiVersion, _ := m["apiVersion"].(string)
	kind, _ := m["kind"].(string)
	name := lookup(apiVersion, kind)
	if name == "" {
		return nil, fmt.Errorf("protobuf: %s, Kind=%s has no protobuf form", apiVersion, kind)
	}
	raw, err := FromJSON(name, m)
	if err != nil {
		return nil, err
	}
	return envelope(apiVersion, kind, raw), nil
}

func envelope(apiVersion, kind string, raw []byte) []byte {
	tm := appendBytesField(nil, 1, []byte(apiVersion))
	tm = appendBytesField(tm, 2, []byte(kind))
	out := make([]byte, 0, len(raw)+len(tm)+32)
	out = append(out, Magic[:]...)
	out = appendBytesField(out, 1, tm)
	out = appendBytesField(out, 2, raw)
	out = appendBytesField(out, 3, nil)
	return appendBytesField(out, 4, nil)
}

// Unwrap reads the envelope of data, a Kubernetes protobuf document,
// and returns the apiVersion and kind it names and the encoded message.
func Unwrap(data []byte) (apiVersion, kind string, raw []byte, err error) {
	if !bytes.HasPrefix(data, Magic[:]) {
		return "", "", nil, malformed("document does not begin with the Kubernetes protobuf prefix")
	}
	var typeMeta []byte
	var encoding string
	err = fields(data[len(Magic):], func(w field) error {
		if w.wire != wireBytes {
			return nil
		}
		switch w.num {
		case 1:
			typeMeta = w.b
		case 2:
			raw = w.b
		case 3:
			encoding = string(w.b)
		}
		return nil
	})
	if err != nil {
		return "", "", nil, err
	}
	if encoding != "" {
		return "", "", nil, malformed("content encoding %q is not supported", encoding)
	}
	err = fields(typeMeta, func(w field) error {
		if w.wire != wireBytes {
			return nil
		}
		switch w.num {
		case 1:
			apiVersion = string(w.b)
		case 2:
			kind = string(w.b)
		}
		return nil
	})
	if err == nil && (!utf8.ValidString(apiVersion) || !utf8.ValidString(kind)) {
		err = malformed("typeMeta is not UTF-8")
	}
	return apiVersion, kind, raw, err
}

// Unmarshal decodes data, a Kubernetes protobuf document, into a JSON
// object with apiVersion and kind set. An envelope that names no
// apiVersion or kind is taken to hold defAPIVersion, defKind (as
// kube-apiserver defaults them from the resource addressed).
func Unmarshal(data []byte, defAPIVersion, defKind string) ([]byte, error) {
	apiVersion, kind, raw, err := Unwrap(data)
	if err != nil {
		return nil, err
	}
	if apiVersion == "" {
		apiVersion = defAPIVersion
	}
	if kind == "" {
		kind = defKind
	}
	name := lookup(apiVersion, kind)
	if name == "" {
		return nil, fmt.Errorf("protobuf: %s, Kind=%s has no protobuf form", apiVersion, kind)
	}
	v, err := ToJSON(name, raw)
	if err != nil {
		return nil, err
	}
	m := v.(map[string]any)
	m["apiVersion"], m["kind"] = apiVersion, kind
	return json.Marshal(m)
}

func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, malformed("JSON: %v", err)
	}
	return v, nil
}

// MarshalWatchEvent returns one frame of a protobuf watch stream
// (application/vnd.kubernetes.protobuf;stream=watch): a 4-byte
// big-endian length, then a metav1.WatchEvent{type, object{raw}}, not
// enveloped (a watch stream's frames are raw messages), whose object's
// raw is obj, an enveloped object (Marshal's output).
func MarshalWatchEvent(eventType string, obj []byte) []byte {
	ev := appendBytesField(nil, 1, []byte(eventType))
	ev = appendBytesField(ev, 2, appendBytesField(nil, 1, obj))
	out := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(ev)), uint32(len(ev)))
	return append(out, ev...)
}

// UnmarshalWatchEvent decodes frame, one frame of a protobuf watch
// stream without its length, into the event's type and its object's
// enveloped protobuf.
func UnmarshalWatchEvent(frame []byte) (eventType string, obj []byte, err error) {
	err = fields(frame, func(w field) error {
		if w.wire != wireBytes {
			return nil
		}
		switch w.num {
		case 1:
			eventType = string(w.b)
		case 2:
			return fields(w.b, func(r field) error {
				if r.num == 1 && r.wire == wireBytes {
					obj = r.b
				}
				return nil
			})
		}
		return nil
	})
	return eventType, obj, err
}

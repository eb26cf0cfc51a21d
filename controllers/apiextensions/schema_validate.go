package apiextensions

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// fieldTooMany is kube's "Too many" field error type (maxItems,
// maxProperties), which api has no constant for.
const fieldTooMany api.FieldErrorType = "Too many"

// Validate checks obj against the schema as kube-apiserver does on create
// and update of a custom resource: kube-openapi's schema validation (types,
// required, enum, pattern, format, minimum/maximum/exclusive, multipleOf,
// min/max length, items, properties, min/max properties, uniqueItems,
// allOf/anyOf/oneOf/not, nullable, x-kubernetes-int-or-string), then the
// x-kubernetes-list-type set/map duplicates, then apiVersion, kind and
// metadata of x-kubernetes-embedded-resource objects. Errors carry kube's
// field paths, types and detail text, sorted by field then detail, e.g.
// `spec.replicas: Invalid value: "string": spec.replicas in body must be of
// type integer: "string"`.
//
// One deliberate difference: kube reports the anyOf/oneOf/allOf/not
// summaries and the "Checked value must be of type integer …" range errors
// at the field "<nil>"; Validate reports them at the field they are about.
func (s *Schema) Validate(obj map[string]any) []api.FieldError {
	errs, _ := validateValue(s.root, obj, "")
	errs = append(errs, listSetsAndMaps(s.root, obj, "")...)
	errs = append(errs, embeddedResources(s.root, obj, "")...)
	return sortErrors(errs)
}

// sortErrors drops repeated errors (kube-openapi keeps one of each message)
// and sorts by field, then type, then detail.
func sortErrors(errs []api.FieldError) []api.FieldError {
	slices.SortFunc(errs, func(a, b api.FieldError) int {
		if c := strings.Compare(a.Field, b.Field); c != 0 {
			return c
		}
		if c := strings.Compare(string(a.Type), string(b.Type)); c != 0 {
			return c
		}
		if c := strings.Compare(a.Detail, b.Detail); c != 0 {
			return c
		}
		return strings.Compare(a.Value, b.Value)
	})
	return slices.Compact(errs)
}

// fieldOf turns a kube-openapi value name (".spec" at the root) into a
// field path.
func fieldOf(name string) string { return strings.TrimPrefix(name, ".") }

// formatValue writes a value as kube prints a field error's bad value.
func formatValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case int:
		return strconv.Itoa(v)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func invalid(name string, value any, format string, args ...any) api.FieldError {
	return api.FieldError{Type: api.FieldInvalid, Field: fieldOf(name), Value: formatValue(value), BadValue: value, Detail: fmt.Sprintf(format, args...)}
}

// summary is a composite error (anyOf, oneOf, allOf, not, a range check):
// no value.
func summary(name string, format string, args ...any) api.FieldError {
	return api.FieldError{Type: api.FieldInvalid, Field: fieldOf(name), Detail: fmt.Sprintf(format, args...)}
}

func typeError(name, typ, got string) api.FieldError {
	return invalid(name, got, "%s in body must be of type %s: %q", name, typ, got)
}

// validateValue validates data at name against n as kube-openapi's
// SchemaValidator does, returning the errors and its match count (which
// picks the reported branch of a failed anyOf or oneOf).
func validateValue(n *node, data any, name string) ([]api.FieldError, int) {
	if n == nil {
		return nil, 0
	}
	var errs []api.FieldError
	if data == nil {
		e, c := checkType(n, nil, name)
		errs = append(errs, e...)
		errs = append(errs, checkEnum(n, nil, name)...)
		return errs, c
	}
	count := 0
	add := func(e []api.FieldError, c int) {
		errs = append(errs, e...)
		count += c + 1
	}
	if len(n.types) > 0 || n.format != "" {
		add(checkType(n, data, name))
	}
	add(checkCombinators(n, data, name))
	switch d := data.(type) {
	case string:
		add(checkString(n, d, name), 0)
		if check, ok := formatChecker(n.format); ok && n.format != "" {
			if !check(d) {
				add([]api.FieldError{invalid(name, d, "%s in body must be of type %s: %q", name, n.format, d)}, 0)
			} else {
				add(nil, 0)
			}
		}
	case int64, float64:
		add(checkNumber(n, data, name))
	case []any:
		add(checkArray(n, d, name))
	}
	add(checkEnum(n, data, name), 0)
	if m, ok := data.(map[string]any); ok {
		add(checkObject(n, m, name))
	}
	return errs, count + 1
}

func jsonType(data any) (typ, format string) {
	switch data.(type) {
	case bool:
		return "boolean", ""
	case string:
		return "string", ""
	case int64, int:
		return "integer", "int64"
	case float64:
		return "number", "float64"
	case []any:
		return "array", ""
	case map[string]any:
		return "object", ""
	}
	return "", ""
}

// checkType is kube-openapi's type validator, quirks included: a format on
// a non-numeric node lets strings and arrays through, and a format on a
// node names the expected type in the message.
func checkType(n *node, data any, name string) ([]api.FieldError, int) {
	if data == nil {
		if len(n.types) > 0 && !n.nullable {
			return []api.FieldError{typeError(name, strings.Join(n.types, ","), "null")}, 0
		}
		return nil, 1
	}
	typ, format := jsonType(data)
	stringOrArray := typ == "string" || typ == "array"
	numeric := slices.Contains(n.types, "number") || slices.Contains(n.types, "integer")
	f, isFloat := data.(float64)
	floatInt := isFloat && isJSONInteger(f) && slices.Contains(n.types, "integer")
	intFloat := typ == "integer" && slices.Contains(n.types, "number")
	if !stringOrArray && n.format != "" && !(slices.Contains(n.types, typ) || format == n.format || floatInt || intFloat) {
		return []api.FieldError{typeError(name, n.format, format)}, 0
	}
	if !numeric && n.format != "" && stringOrArray {
		return nil, 1
	}
	if !(slices.Contains(n.types, typ) || floatInt || intFloat) {
		return []api.FieldError{typeError(name, strings.Join(n.types, ","), typ)}, 0
	}
	return nil, 1
}

// isJSONInteger reports whether f is an integer within ±(2^53-1), allowing
// a relative error of 1e-9.
func isJSONInteger(f float64) bool {
	const max = 1<<53 - 1
	if math.IsNaN(f) || math.IsInf(f, 0) || f < -max || f > max {
		return false
	}
	if f == math.Trunc(f) {
		return true
	}
	r := math.Round(f)
	return math.Abs(f-r)/(math.Abs(f)+math.Abs(r)) < 1e-9
}

type branch struct {
	errs  []api.FieldError
	count int
}

// checkCombinators validates anyOf, oneOf, allOf and not.
func checkCombinators(n *node, data any, name string) ([]api.FieldError, int) {
	var errs []api.FieldError
	count := 0
	merge := func(b *branch) {
		errs = append(errs, b.errs...)
		count += b.count
	}
	if len(n.anyOf) > 0 {
		var best, first *branch
		ok := false
		for _, s := range n.anyOf {
			e, c := validateValue(s, data, name)
			if len(e) == 0 {
				best, ok, first = nil, true, &branch{e, c}
				break
			}
			if best == nil || c > best.count {
				best = &branch{e, c}
			}
		}
		if !ok {
			errs = append(errs, summary(name, "%q must validate at least one schema (anyOf)", name))
		}
		if best != nil {
			merge(best)
		} else if first != nil {
			merge(first)
		}
	}
	if len(n.oneOf) > 0 {
		var best, first *branch
		valid := 0
		for _, s := range n.oneOf {
			e, c := validateValue(s, data, name)
			if len(e) == 0 {
				valid++
				best = nil
				if first == nil {
					first = &branch{e, c}
				}
				continue
			}
			if valid == 0 && (best == nil || c > best.count) {
				best = &branch{e, c}
			}
		}
		if valid != 1 {
			more := "Found none valid"
			if valid > 1 {
				more = fmt.Sprintf("Found %d valid alternatives", valid)
			}
			errs = append(errs, summary(name, "%q must validate one and only one schema (oneOf). %s", name, more))
			if best != nil {
				merge(best)
			}
		} else if first != nil {
			merge(first)
		}
	}
	if len(n.allOf) > 0 {
		valid := 0
		for _, s := range n.allOf {
			e, c := validateValue(s, data, name)
			if len(e) == 0 {
				valid++
			}
			merge(&branch{e, c})
		}
		if valid != len(n.allOf) {
			more := ""
			if valid == 0 {
				more = ". None validated"
			}
			errs = append(errs, summary(name, "%q must validate all the schemas (allOf)%s", name, more))
		}
	}
	if n.not != nil {
		if e, _ := validateValue(n.not, data, name); len(e) == 0 {
			errs = append(errs, summary(name, "%q must not validate the schema (not)", name))
		}
	}
	return errs, count + 1
}

// checkString checks maxLength (in runes), then minLength, then pattern,
// reporting only the first failure, as kube-openapi does.
func checkString(n *node, s, name string) []api.FieldError {
	if n.maxLength != nil && int64(utf8.RuneCountInString(s)) > *n.maxLength {
		unit := "bytes"
		if *n.maxLength == 1 {
			unit = "byte"
		}
		return []api.FieldError{{Type: api.FieldTooLong, Field: fieldOf(name), Detail: fmt.Sprintf("may not be more than %d %s", *n.maxLength, unit)}}
	}
	if n.minLength != nil && int64(utf8.RuneCountInString(s)) < *n.minLength {
		return []api.FieldError{invalid(name, s, "%s in body should be at least %d chars long", name, *n.minLength)}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		return []api.FieldError{invalid(name, s, "%s in body should match '%s'", name, n.patternSrc)}
	}
	return nil
}

// numberKind is the type and format kube-openapi range-checks numbers
// against: only for a node with exactly one of integer or number.
func numberKind(n *node) (typ, format string) {
	if len(n.types) != 1 {
		return "", ""
	}
	switch n.types[0] {
	case "integer":
		if n.format == "int32" || n.format == "int64" {
			return "integer", n.format
		}
		return "integer", ""
	case "number":
		if n.format == "float" || n.format == "double" {
			return "number", n.format
		}
		return "number", ""
	}
	return "", ""
}

// inRange reports whether v fits the node's type and format, else the
// error kube-openapi's IsValueValidAgainstRange gives.
func inRange(v any, typ, format, prefix, name string) *api.FieldError {
	var rep string
	switch v := v.(type) {
	case int64:
		rep = strconv.FormatInt(v, 10)
	case float64:
		rep = strconv.FormatFloat(v, 'f', -1, 64)
	}
	var err error
	switch typ {
	case "integer":
		bits := 64
		if format == "int32" {
			bits = 32
		}
		_, err = strconv.ParseInt(rep, 10, bits)
	default:
		if format == "float" {
			_, err = strconv.ParseFloat(rep, 32)
		}
	}
	if err == nil {
		return nil
	}
	var e api.FieldError
	if format != "" {
		e = summary(name, "%s value must be of type %s with format %s in %s", prefix, typ, format, name)
	} else {
		e = summary(name, "%s value must be of type %s (default format) in %s", prefix, typ, name)
	}
	return &e
}

func asFloat(v any) float64 {
	switch v := v.(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	}
	return 0
}

// checkNumber checks the value's range for its format, multipleOf,
// maximum and minimum, comparing integers as integers.
func checkNumber(n *node, v any, name string) ([]api.FieldError, int) {
	typ, format := numberKind(n)
	var errs []api.FieldError
	if e := inRange(v, typ, format, "Checked", name); e != nil {
		errs = append(errs, *e)
	}
	i, isInt := v.(int64)
	f := asFloat(v)
	bound := func(b float64, prefix string) bool {
		e := inRange(b, typ, format, prefix, name)
		if e != nil {
			errs = append(errs, *e)
		}
		return e == nil && isInt
	}
	if n.multipleOf != nil {
		m := *n.multipleOf
		if bound(m, "MultipleOf") {
			if k := int64(m); k <= 0 {
				errs = append(errs, invalid(name, k, "factor MultipleOf declared for %s must be positive: %v", name, k))
			} else if i/k*k != i {
				errs = append(errs, invalid(name, i, "%s in body should be a multiple of %v", name, k))
			}
		} else if m <= 0 {
			errs = append(errs, invalid(name, m, "factor MultipleOf declared for %s must be positive: %v", name, m))
		} else {
			q := f / m
			if m < 1 {
				q = 1 / m * f
			}
			if !isJSONInteger(q) {
				errs = append(errs, invalid(name, v, "%s in body should be a multiple of %v", name, m))
			}
		}
	}
	if n.maximum != nil {
		m, x := *n.maximum, n.exclusiveMaximum
		word := "less than or equal to"
		if x {
			word = "less than"
		}
		if bound(m, "Maximum boundary") {
			if k := int64(m); (!x && i > k) || (x && i >= k) {
				errs = append(errs, invalid(name, i, "%s in body should be %s %v", name, word, k))
			}
		} else if (!x && f > m) || (x && f >= m) {
			errs = append(errs, invalid(name, v, "%s in body should be %s %v", name, word, m))
		}
	}
	if n.minimum != nil {
		m, x := *n.minimum, n.exclusiveMinimum
		word := "greater than or equal to"
		if x {
			word = "greater than"
		}
		if bound(m, "Minimum boundary") {
			if k := int64(m); (!x && i < k) || (x && i <= k) {
				errs = append(errs, invalid(name, i, "%s in body should be %s %v", name, word, k))
			}
		} else if (!x && f < m) || (x && f <= m) {
			errs = append(errs, invalid(name, v, "%s in body should be %s %v", name, word, m))
		}
	}
	return errs, 1
}

func checkArray(n *node, a []any, name string) ([]api.FieldError, int) {
	var errs []api.FieldError
	count := 0
	if n.items != nil {
		for i, v := range a {
			e, c := validateValue(n.items, v, fmt.Sprintf("%s[%d]", name, i))
			errs = append(errs, e...)
			count += c
		}
	}
	if n.minItems != nil && int64(len(a)) < *n.minItems {
		errs = append(errs, invalid(name, int64(len(a)), "%s in body should have at least %d items", name, *n.minItems))
	}
	if n.maxItems != nil && int64(len(a)) > *n.maxItems {
		errs = append(errs, tooMany(name, len(a), *n.maxItems))
	}
	if n.uniqueItems {
		for i := range a {
			if slices.ContainsFunc(a[i+1:], func(b any) bool { return reflect.DeepEqual(a[i], b) }) {
				errs = append(errs, summary(name, "%s in body shouldn't contain duplicates", name))
				break
			}
		}
	}
	return errs, count + 1
}

func tooMany(name string, actual int, max int64) api.FieldError {
	unit := "items"
	if max == 1 {
		unit = "item"
	}
	return api.FieldError{Type: fieldTooMany, Field: fieldOf(name), Value: strconv.Itoa(actual), Detail: fmt.Sprintf("must have at most %d %s", max, unit)}
}

// checkEnum: the value must equal one of the enum's (numbers compared
// after converting to the enum value's type; null never matches).
func checkEnum(n *node, data any, name string) []api.FieldError {
	if len(n.enum) == 0 {
		return nil
	}
	for _, e := range n.enum {
		if enumEqual(data, e) {
			return nil
		}
	}
	quoted := make([]string, len(n.enum))
	for i, e := range n.enum {
		s, ok := e.(string)
		if !ok {
			b, _ := json.Marshal(e)
			s = string(b)
		}
		quoted[i] = strconv.Quote(s)
	}
	return []api.FieldError{{Type: api.FieldUnsupported, Field: fieldOf(name), Value: formatValue(data), BadValue: data, Detail: "supported values: " + strings.Join(quoted, ", ")}}
}

func enumEqual(data, e any) bool {
	if data == nil || e == nil {
		return false
	}
	switch e := e.(type) {
	case int64:
		switch d := data.(type) {
		case int64:
			return d == e
		case float64:
			return int64(d) == e
		}
		return false
	case float64:
		switch d := data.(type) {
		case int64:
			return float64(d) == e
		case float64:
			return d == e
		}
		return false
	}
	return reflect.DeepEqual(data, e)
}

func checkObject(n *node, m map[string]any, name string) ([]api.FieldError, int) {
	var errs []api.FieldError
	count := 0
	size := int64(len(m))
	if n.minProperties != nil && size < *n.minProperties {
		errs = append(errs, invalid(name, size, "%s in body should have at least %d properties", name, *n.minProperties))
	}
	if n.maxProperties != nil && size > *n.maxProperties {
		errs = append(errs, tooMany(name, len(m), *n.maxProperties))
	}
	for _, k := range sortedKeys(m) {
		if _, ok := n.properties[k]; ok {
			continue
		}
		if n.noAdditional {
			errs = append(errs, summary(name, "%s.%s in body is a forbidden property", name, k))
		} else if n.additional != nil {
			e, c := validateValue(n.additional, m[k], name+"."+k)
			errs = append(errs, e...)
			count += c
		}
	}
	for k, p := range n.properties {
		v, ok := m[k]
		if !ok {
			continue
		}
		child := k
		if name != "" {
			child = name + "." + k
		}
		e, c := validateValue(p, v, child)
		errs = append(errs, e...)
		count += c
	}
	for _, k := range n.required {
		if _, ok := m[k]; !ok {
			errs = append(errs, api.FieldError{Type: api.FieldRequired, Field: fieldOf(name + "." + k)})
		}
	}
	return errs, count
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

package apiextensions

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Evaluation of a parsed JSONPath over JSON values, as client-go's
// JSONPath.FindResults evaluates its nodes.

// jpEvalSteps applies steps in turn to the values in.
func jpEvalSteps(in []any, steps []jpStep) ([]any, error) {
	cur := in
	for i := range steps {
		var err error
		if cur, err = jpEvalStep(cur, &steps[i]); err != nil {
			return nil, err
		}
	}
	return cur, nil
}

func jpEvalStep(in []any, s *jpStep) ([]any, error) {
	switch s.kind {
	case stepField:
		var out []any
		for _, v := range in {
			if m, ok := v.(map[string]any); ok {
				if x, ok := m[s.name]; ok {
					out = append(out, x)
				}
			}
		}
		return out, nil
	case stepWildcard:
		var out []any
		for _, v := range in {
			out = append(out, jpChildren(v)...)
		}
		return out, nil
	case stepRecursive:
		return jpRecurse(in), nil
	case stepSlice:
		return jpEvalSlice(in, s.slice)
	case stepUnion:
		var out []any
		for _, sub := range s.union {
			got, err := jpEvalSteps(in, sub)
			if err != nil {
				return nil, err
			}
			out = append(out, got...)
		}
		return out, nil
	case stepFilter:
		return jpEvalFilter(in, s)
	case stepLiteral:
		if _, ok := s.lit.(string); ok {
			// client-go's text node: one value, whatever the input.
			return []any{s.lit}, nil
		}
		out := make([]any, len(in))
		for i := range out {
			out[i] = s.lit
		}
		return out, nil
	default:
		return nil, fmt.Errorf("unrecognized identifier %v", s.name)
	}
}

// jpChildren returns a map's values (by sorted key), a list's items and a
// string's bytes.
func jpChildren(v any) []any {
	switch v := v.(type) {
	case map[string]any:
		out := make([]any, 0, len(v))
		for _, k := range slices.Sorted(maps.Keys(v)) {
			out = append(out, v[k])
		}
		return out
	case []any:
		return v
	case string:
		out := make([]any, len(v))
		for i := range len(v) {
			out[i] = int64(v[i])
		}
		return out
	}
	return nil
}

// jpRecurse returns each container of in that has children, each followed
// by its descendants, depth first.
func jpRecurse(in []any) []any {
	var out []any
	for _, v := range in {
		if c := jpChildren(v); len(c) > 0 {
			out = append(out, v)
			out = append(out, jpRecurse(c)...)
		}
	}
	return out
}

func jpEvalSlice(in []any, params [3]jpSliceParam) ([]any, error) {
	var out []any
	for _, v := range in {
		if v == nil {
			continue
		}
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%T is not array or slice", v)
		}
		n := len(list)
		start, end := params[0], params[1]
		if !start.known {
			start.value = 0
		}
		if start.value < 0 {
			start.value += n
		}
		if !end.known {
			end.value = n
		}
		if end.value < 0 || (end.value == 0 && end.derived) {
			end.value += n
		}
		if end.value == start.value {
			return out, nil // kube answers an empty range at once
		}
		switch {
		case start.value >= n || start.value < 0:
			return nil, fmt.Errorf("array index out of bounds: index %d, length %d", start.value, n)
		case end.value > n || end.value < 0:
			return nil, fmt.Errorf("array index out of bounds: index %d, length %d", end.value-1, n)
		case start.value > end.value:
			return nil, fmt.Errorf("starting index %d is greater than ending index %d", start.value, end.value)
		}
		stride := 1
		if params[2].known {
			if params[2].value <= 0 {
				return nil, errors.New("step must be > 0")
			}
			stride = params[2].value
		}
		for i := start.value; i < end.value; i += stride {
			out = append(out, list[i])
		}
	}
	return out, nil
}

func jpEvalFilter(in []any, s *jpStep) ([]any, error) {
	var out []any
	for _, v := range in {
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%v is not array or slice and cannot be filtered", v)
		}
		for _, item := range list {
			lefts, err := jpEvalSteps([]any{item}, s.left)
			if s.op == "exists" {
				if len(lefts) > 0 {
					out = append(out, item)
				}
				continue
			}
			if err != nil {
				return nil, err
			}
			if len(lefts) == 0 {
				continue
			} else if len(lefts) > 1 {
				return nil, errors.New("can only compare one element at a time")
			}
			rights, err := jpEvalSteps([]any{item}, s.right)
			if err != nil {
				return nil, err
			}
			if len(rights) == 0 {
				continue
			} else if len(rights) > 1 {
				return nil, errors.New("can only compare one element at a time")
			}
			pass, err := jpCompare(s.op, lefts[0], rights[0])
			if err != nil {
				return nil, err
			}
			if pass {
				out = append(out, item)
			}
		}
	}
	return out, nil
}

var (
	errBadComparisonType = errors.New("invalid type for comparison")
	errBadComparison     = errors.New("incompatible types for comparison")
)

// jpCompare applies a filter operator as Go templates' eq/lt do: both
// sides of the same basic kind (bool, integer, float, string), booleans
// only for == and !=.
func jpCompare(op string, a, b any) (bool, error) {
	ka, kb := jpBasicKind(a), jpBasicKind(b)
	if ka == 0 || kb == 0 {
		return false, errBadComparisonType
	}
	if ka != kb {
		return false, errBadComparison
	}
	var c int // -1, 0, 1 for ordered kinds
	switch x := a.(type) {
	case bool:
		eq := x == b.(bool)
		switch op {
		case "==":
			return eq, nil
		case "!=":
			return !eq, nil
		case "<", ">", "<=", ">=":
			return false, errBadComparisonType
		}
		return false, fmt.Errorf("unrecognized filter operator %s", op)
	case int64:
		c = jpCmp(x, b.(int64))
	case float64:
		c = jpCmp(x, b.(float64))
	case string:
		c = strings.Compare(x, b.(string))
	}
	switch op {
	case "==":
		return c == 0, nil
	case "!=":
		return c != 0, nil
	case "<":
		return c < 0, nil
	case ">":
		return c > 0, nil
	case "<=":
		return c <= 0, nil
	case ">=":
		return c >= 0, nil
	}
	return false, fmt.Errorf("unrecognized filter operator %s", op)
}

func jpCmp[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// jpBasicKind is 1 bool, 2 integer, 3 float, 4 string, 0 anything else.
func jpBasicKind(v any) int {
	switch v.(type) {
	case bool:
		return 1
	case int64:
		return 2
	case float64:
		return 3
	case string:
		return 4
	}
	return 0
}

package apiextensions

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// JSONPath is a parsed kube JSONPath expression, the language of printer
// columns and of kubectl -o jsonpath (k8s.io/client-go/util/jsonpath),
// written without braces: ".spec.replicas", ".spec.items[*].name",
// ".spec.items[0]", ".spec.items[-1:]", ".spec.items[0,2]",
// "..name" (recursive descent), ".metadata.labels['app']",
// `.status.conditions[?(@.type=="Ready")].status` (filters with == != <
// > <= >=, string, number and boolean literals, @-relative paths, and a
// bare path for "exists").
//
// One JSONPath is one expression: kubectl's templates of several
// {actions} with text between them, and range/end, are not JSONPaths.
// Missing keys select nothing (client-go's AllowMissingKeys(true), as the
// CRD table convertor sets it). A JSONPath is immutable and safe for
// concurrent use.
type JSONPath struct {
	src   string
	steps []jpStep
}

type jpStepKind uint8

const (
	stepField     jpStepKind = iota // a map key
	stepWildcard                    // every value of a map, every item of a list
	stepRecursive                   // the value and all its descendant containers
	stepSlice                       // [i], [i:j], [i:j:k]
	stepUnion                       // [a,b]
	stepFilter                      // [?(left op right)]
	stepLiteral                     // a string, number or boolean in a filter
	stepIdent                       // a bare identifier (range, end, …): an error when evaluated
)

type jpSliceParam struct {
	value   int
	known   bool
	derived bool // the end of [i], i+1: a negative i counts from the end
}

type jpStep struct {
	kind  jpStepKind
	name  string // stepField's key, stepIdent's word
	slice [3]jpSliceParam
	union [][]jpStep
	left  []jpStep
	right []jpStep
	op    string // stepFilter's operator; "exists" for a bare path
	lit   any    // stepLiteral's value: string, int64, float64 or bool
}

// ParseJSONPath parses path, written as a CRD's jsonPath (".spec.replicas")
// or in braces as kubectl takes it ("{.spec.replicas}"). Its error carries
// client-go's message for the syntax error ("unterminated array",
// "invalid array index x", "unrecognized character in action: U+0021
// '!'", …).
func ParseJSONPath(path string) (*JSONPath, error) {
	inner := path
	var steps []jpStep
	var err error
	if strings.HasPrefix(inner, "{") {
		if !strings.HasSuffix(inner, "}") {
			err = errors.New("unclosed action")
		}
		inner = strings.TrimSuffix(inner[1:], "}")
	}
	if err == nil {
		steps, err = jpParseAction(inner)
	}
	if err != nil {
		return nil, fmt.Errorf("apiextensions: jsonpath %q: %w", path, err)
	}
	return &JSONPath{src: path, steps: steps}, nil
}

// String returns the path as it was parsed.
func (p *JSONPath) String() string { return p.src }

// Find returns the values p selects in obj, in order, or none when it
// selects nothing. When client-go's evaluation fails (an index out of
// range, a filter comparing a string with a number, a filter on a
// non-list), Find returns none, as a printer cell shows nothing. The
// values of a map matched by a wildcard or recursive descent come in the
// order of their sorted keys (client-go's order is Go's map order).
func (p *JSONPath) Find(obj map[string]any) []any {
	out, err := p.find(obj)
	if err != nil {
		return nil
	}
	return out
}

func (p *JSONPath) find(obj map[string]any) ([]any, error) {
	return jpEvalSteps([]any{obj}, p.steps)
}

var (
	sliceRE  = regexp.MustCompile(`^(-?[\d]*)(:-?[\d]*)?(:-?[\d]*)?$`)
	dictRE   = regexp.MustCompile(`^'([^']*)'$`)
	filterRE = regexp.MustCompile(`^([^!<>=]+)([!<>=]+)(.+?)$`)
)

// jpParser scans one action (the text between client-go's braces).
type jpParser struct {
	in    string
	pos   int
	steps []jpStep
}

func jpParseAction(s string) ([]jpStep, error) {
	p := &jpParser{in: s}
	if err := p.run(); err != nil {
		return nil, err
	}
	return p.steps, nil
}

func (p *jpParser) rest() string { return p.in[p.pos:] }

func (p *jpParser) run() error {
	for p.pos < len(p.in) {
		switch rest := p.rest(); {
		case strings.HasPrefix(rest, "[?("):
			if err := p.filter(); err != nil {
				return err
			}
			continue
		case strings.HasPrefix(rest, ".."):
			if n := len(p.steps); n > 0 && p.steps[n-1].kind == stepRecursive {
				return errors.New("invalid multiple recursive descent")
			}
			p.pos += 2
			p.steps = append(p.steps, jpStep{kind: stepRecursive})
			if r, _ := utf8.DecodeRuneInString(p.rest()); isAlphaNumeric(r) {
				p.field()
			}
			continue
		}
		r, w := utf8.DecodeRuneInString(p.rest())
		switch {
		case r == '\r' || r == '\n':
			return errors.New("unclosed action")
		case r == ' ' || r == '@' || r == '$':
			p.pos += w
		case r == '[':
			if err := p.array(); err != nil {
				return err
			}
		case r == '"' || r == '\'':
			if err := p.quote(r); err != nil {
				return err
			}
		case r == '.':
			p.pos += w
			p.field()
		case r == '+' || r == '-' || unicode.IsDigit(r):
			if err := p.number(); err != nil {
				return err
			}
		case isAlphaNumeric(r):
			start := p.pos
			p.skipToTerminator()
			word := p.in[start:p.pos]
			if word == "true" || word == "false" {
				p.steps = append(p.steps, jpStep{kind: stepLiteral, lit: word == "true"})
			} else {
				p.steps = append(p.steps, jpStep{kind: stepIdent, name: word})
			}
		default:
			return fmt.Errorf("unrecognized character in action: %#U", r)
		}
	}
	return nil
}

// field scans a key up to the next unescaped terminator; "*" is the
// wildcard and backslashes escape.
func (p *jpParser) field() {
	start := p.pos
	for p.pos < len(p.in) {
		r, w := utf8.DecodeRuneInString(p.rest())
		if r == '\\' {
			p.pos += w
			if p.pos < len(p.in) {
				_, w2 := utf8.DecodeRuneInString(p.rest())
				p.pos += w2
			}
			continue
		}
		if isTerminator(r) {
			break
		}
		p.pos += w
	}
	key := p.in[start:p.pos]
	if key == "*" {
		p.steps = append(p.steps, jpStep{kind: stepWildcard})
		return
	}
	p.steps = append(p.steps, jpStep{kind: stepField, name: strings.ReplaceAll(key, `\`, "")})
}

func (p *jpParser) skipToTerminator() {
	for p.pos < len(p.in) {
		r, w := utf8.DecodeRuneInString(p.rest())
		if isTerminator(r) {
			return
		}
		p.pos += w
	}
}

func (p *jpParser) number() error {
	start := p.pos
	if c := p.in[p.pos]; c == '+' || c == '-' {
		p.pos++
	}
	for p.pos < len(p.in) && (p.in[p.pos] == '.' || unicode.IsDigit(rune(p.in[p.pos]))) {
		p.pos++
	}
	text := p.in[start:p.pos]
	if i, err := strconv.Atoi(text); err == nil {
		p.steps = append(p.steps, jpStep{kind: stepLiteral, lit: int64(i)})
		return nil
	}
	if f, err := strconv.ParseFloat(text, 64); err == nil {
		p.steps = append(p.steps, jpStep{kind: stepLiteral, lit: f})
		return nil
	}
	return fmt.Errorf("cannot parse number %s", text)
}

func (p *jpParser) quote(q rune) error {
	start := p.pos
	p.pos++
	for {
		if p.pos >= len(p.in) || p.in[p.pos] == '\n' {
			return errors.New("unterminated quoted string")
		}
		c := p.in[p.pos]
		p.pos++
		if rune(c) == q && p.in[p.pos-2] != '\\' {
			break
		}
	}
	text := p.in[start:p.pos]
	s, err := jpUnquote(text)
	if err != nil {
		return fmt.Errorf("unquote string %s error %v", text, err)
	}
	p.steps = append(p.steps, jpStep{kind: stepLiteral, lit: s})
	return nil
}

// jpUnquote undoes the Go escapes of a single- or double-quoted string.
func jpUnquote(s string) (string, error) {
	q := s[0]
	body := s[1 : len(s)-1]
	var b strings.Builder
	for len(body) > 0 {
		r, multibyte, tail, err := strconv.UnquoteChar(body, q)
		if err != nil {
			return "", errors.New("invalid syntax")
		}
		body = tail
		if r < utf8.RuneSelf || !multibyte {
			b.WriteByte(byte(r))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String(), nil
}

func (p *jpParser) array() error {
	end := strings.IndexAny(p.rest(), "]\n")
	if end < 0 || p.rest()[end] == '\n' {
		return errors.New("unterminated array")
	}
	text := p.in[p.pos+1 : p.pos+end]
	p.pos += end + 1
	if text == "*" {
		text = ":"
	}
	if parts := strings.Split(text, ","); len(parts) > 1 {
		u := jpStep{kind: stepUnion}
		for _, part := range parts {
			sub, err := jpParseAction("[" + strings.Trim(part, " ") + "]")
			if err != nil {
				return err
			}
			u.union = append(u.union, sub)
		}
		p.steps = append(p.steps, u)
		return nil
	}
	if m := dictRE.FindStringSubmatch(text); m != nil {
		sub, err := jpParseAction("." + m[1])
		if err != nil {
			return err
		}
		p.steps = append(p.steps, sub...)
		return nil
	}
	m := sliceRE.FindStringSubmatch(text)
	if m == nil {
		return fmt.Errorf("invalid array index %s", text)
	}
	var params [3]jpSliceParam
	for i, v := range m[1:] {
		switch {
		case v == "" && i == 1:
			params[1] = jpSliceParam{value: params[0].value + 1, known: true, derived: true}
		case v == "":
		case i > 0 && v[1:] == "":
		default:
			if i > 0 {
				v = v[1:]
			}
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("array index %s is not a number", v)
			}
			params[i] = jpSliceParam{value: n, known: true}
		}
	}
	p.steps = append(p.steps, jpStep{kind: stepSlice, slice: params})
	return nil
}

func (p *jpParser) filter() error {
	p.pos += len("[?(")
	start := p.pos
	begun, ended := false, false
	var pair byte
	for {
		if p.pos >= len(p.in) || p.in[p.pos] == '\n' {
			return errors.New("unterminated filter")
		}
		c := p.in[p.pos]
		p.pos++
		switch c {
		case '"', '\'':
			if !begun {
				begun, pair = true, c
			} else if c == pair && p.in[p.pos-2] != '\\' {
				ended = true
			}
		case ')':
			if begun != ended {
				continue
			}
		default:
			continue
		}
		if c == ')' {
			break
		}
	}
	if p.pos >= len(p.in) || p.in[p.pos] != ']' {
		return errors.New("unclosed array expect ]")
	}
	text := p.in[start : p.pos-1]
	p.pos++
	m := filterRE.FindStringSubmatch(text)
	if m == nil {
		left, err := jpParseAction(text)
		if err != nil {
			return err
		}
		p.steps = append(p.steps, jpStep{kind: stepFilter, left: left, op: "exists"})
		return nil
	}
	left, err := jpParseAction(m[1])
	if err != nil {
		return err
	}
	right, err := jpParseAction(m[3])
	if err != nil {
		return err
	}
	p.steps = append(p.steps, jpStep{kind: stepFilter, left: left, right: right, op: m[2]})
	return nil
}

func isTerminator(r rune) bool {
	switch r {
	case ' ', '\t', '\r', '\n', '.', ',', '[', ']', '$', '@', '{', '}':
		return true
	}
	return false
}

func isAlphaNumeric(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

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

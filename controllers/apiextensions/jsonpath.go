package apiextensions

import (
	"errors"
	"fmt"
	"regexp"
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

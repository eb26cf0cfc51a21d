package api

import (
	"fmt"
	"strings"
)

// ParseSelector parses the string form of a label selector, as
// `kubectl get -l` takes it: comma-separated requirements, each one of
//
//	key=value  key==value  key!=value       equality
//	key in (v1,v2)  key notin (v1,v2)       set membership
//	key  !key                               existence
//	key>5  key<5                            integer comparison
//
// Whitespace between tokens (space, tab, CR, LF, as apimachinery's lexer)
// is ignored; a value may be empty ("key="). "==" is kept as
// SelectionDoubleEquals, so that String prints it back as kube does.
// The empty string gives Everything. Errors name the offending position.
func ParseSelector(s string) (Selector, error) {
	p := selectorParser{src: s}
	var reqs []Requirement
	p.skipSpace()
	if p.pos == len(s) {
		return Everything(), nil
	}
	for {
		r, err := p.requirement()
		if err != nil {
			return Selector{}, fmt.Errorf("api: parse selector %q: %w", s, err)
		}
		reqs = append(reqs, r)
		p.skipSpace()
		if p.pos == len(s) {
			break
		}
		if s[p.pos] != ',' {
			return Selector{}, fmt.Errorf("api: parse selector %q: at %d: expected ',' after requirement, found %q", s, p.pos, p.rest())
		}
		p.pos++
	}
	return Everything().Add(reqs...), nil
}

type selectorParser struct {
	src string
	pos int
}

func (p *selectorParser) skipSpace() {
	for p.pos < len(p.src) && isSelectorSpace(p.src[p.pos]) {
		p.pos++
	}
}

func (p *selectorParser) rest() string {
	r := p.src[p.pos:]
	if len(r) > 12 {
		r = r[:12] + "…"
	}
	return r
}

// isSelectorSpace is apimachinery's isWhitespace: space, tab, CR, LF.
func isSelectorSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func isSelectorSpecial(c byte) bool {
	return isSelectorSpace(c) || strings.IndexByte(",()=!<>", c) >= 0
}

// word reads an identifier (possibly empty).
func (p *selectorParser) word() string {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.src) && !isSelectorSpecial(p.src[p.pos]) {
		p.pos++
	}
	return p.src[start:p.pos]
}

func (p *selectorParser) requirement() (Requirement, error) {
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == '!' {
		p.pos++
		at := p.pos
		key := p.word()
		if key == "" {
			return Requirement{}, fmt.Errorf("at %d: expected a key after '!'", at)
		}
		p.skipSpace()
		if p.pos < len(p.src) && p.src[p.pos] != ',' {
			return Requirement{}, fmt.Errorf("at %d: '!%s' takes no operator, found %q", p.pos, key, p.rest())
		}
		return NewRequirement(key, SelectionDoesNotExist)
	}
	at := p.pos
	key := p.word()
	if key == "" {
		return Requirement{}, fmt.Errorf("at %d: expected a key, found %q", at, p.rest())
	}
	p.skipSpace()
	if p.pos == len(p.src) || p.src[p.pos] == ',' {
		return NewRequirement(key, SelectionExists)
	}
	var op SelectionOperator
	switch c := p.src[p.pos]; {
	case strings.HasPrefix(p.src[p.pos:], "=="):
		op, p.pos = SelectionDoubleEquals, p.pos+2
	case c == '=':
		op, p.pos = SelectionEquals, p.pos+1
	case strings.HasPrefix(p.src[p.pos:], "!="):
		op, p.pos = SelectionNotEquals, p.pos+2
	case c == '>':
		op, p.pos = SelectionGreaterThan, p.pos+1
	case c == '<':
		op, p.pos = SelectionLessThan, p.pos+1
	default:
		at := p.pos
		switch w := p.word(); w {
		case "in":
			op = SelectionIn
		case "notin":
			op = SelectionNotIn
		default:
			return Requirement{}, fmt.Errorf("at %d: expected an operator (=, ==, !=, in, notin, >, <) after key %q, found %q", at, key, p.src[at:])
		}
		values, err := p.valueList()
		if err != nil {
			return Requirement{}, err
		}
		return NewRequirement(key, op, values...)
	}
	value := p.word()
	if p.pos < len(p.src) && p.src[p.pos] != ',' && !isSelectorSpace(p.src[p.pos]) {
		return Requirement{}, fmt.Errorf("at %d: unexpected %q in the value of %q", p.pos, p.rest(), key)
	}
	return NewRequirement(key, op, value)
}

func (p *selectorParser) valueList() ([]string, error) {
	p.skipSpace()
	if p.pos == len(p.src) || p.src[p.pos] != '(' {
		return nil, fmt.Errorf("at %d: expected '(' to open a value list, found %q", p.pos, p.rest())
	}
	p.pos++
	var values []string
	for {
		values = append(values, p.word())
		p.skipSpace()
		if p.pos == len(p.src) {
			return nil, fmt.Errorf("at %d: unterminated value list, expected ')'", p.pos)
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case ')':
			p.pos++ // "()" is the single empty value, as in Kubernetes
			return values, nil
		default:
			return nil, fmt.Errorf("at %d: expected ',' or ')' in value list, found %q", p.pos, p.rest())
		}
	}
}

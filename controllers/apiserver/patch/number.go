package patch

import (
	"encoding/json"
	"strconv"
	"strings"
)

// canonicalNumber returns a form of the JSON number n shared by every
// number of the same value ("1", "1.0", "10e-1" and "0.1e1" all give
// "+1e0"), in time linear in len(n). math/big would take tens of
// milliseconds for "1e1000000", and a patch may hold thousands of them.
// A number whose exponent does not fit an int64 is its own text.
func canonicalNumber(n string) string {
	s := n
	sign := "+"
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	mant, expText, hasExp := strings.Cut(strings.ToLower(s), "e")
	var exp int64
	if hasExp {
		e, err := strconv.ParseInt(strings.TrimPrefix(expText, "+"), 10, 64)
		if err != nil || e > 1<<60 || e < -(1<<60) {
			return "t" + n
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= int64(len(frac))
	if digits == "" {
		return "+0e0"
	}
	trimmed := strings.TrimRight(digits, "0")
	exp += int64(len(digits) - len(trimmed))
	return sign + trimmed + "e" + strconv.FormatInt(exp, 10)
}

// scalarKey returns a string equal for two scalars exactly when equal
// reports them equal, so that lists of scalars are searched through maps.
func scalarKey(v value) (string, bool) {
	switch v := v.(type) {
	case string:
		return "s" + v, true
	case json.Number:
		return "n" + canonicalNumber(string(v)), true
	case bool:
		if v {
			return "b1", true
		}
		return "b0", true
	case nil:
		return "z", true
	default:
		return "", false
	}
}

package api

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// IntOrStringType says which of IntOrString's fields holds the value.
type IntOrStringType int

// The IntOrString types.
const (
	TypeInt    IntOrStringType = iota // IntVal holds the value
	TypeString                        // StrVal holds the value
)

// IntOrString holds either an int32 or a string, and encodes as a JSON
// number or a JSON string accordingly (Kubernetes' intstr.IntOrString): a
// Service's targetPort ("http" or 8080), a Deployment's maxSurge ("25%" or 1).
// The zero value is the integer 0.
type IntOrString struct {
	// Type selects IntVal or StrVal.
	Type IntOrStringType
	// IntVal is the value when Type is Int.
	IntVal int32
	// StrVal is the value when Type is String.
	StrVal string
}

// FromInt32 returns an IntOrString holding i.
func FromInt32(i int32) IntOrString { return IntOrString{Type: TypeInt, IntVal: i} }

// FromString returns an IntOrString holding s.
func FromString(s string) IntOrString { return IntOrString{Type: TypeString, StrVal: s} }

// String returns the string value, or the integer formatted in decimal.
func (v IntOrString) String() string {
	if v.Type == TypeString {
		return v.StrVal
	}
	return strconv.Itoa(int(v.IntVal))
}

// IntValue returns the integer value, or the string parsed as an integer
// (0 if it does not parse).
func (v IntOrString) IntValue() int {
	if v.Type == TypeString {
		i, _ := strconv.Atoi(v.StrVal)
		return i
	}
	return int(v.IntVal)
}

// MarshalJSON encodes v as a JSON number or string.
func (v IntOrString) MarshalJSON() ([]byte, error) {
	if v.Type == TypeString {
		return json.Marshal(v.StrVal)
	}
	return json.Marshal(v.IntVal)
}

// UnmarshalJSON accepts a JSON string or an integer that fits in int32.
func (v *IntOrString) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*v = FromString(s)
		return nil
	}
	var i int32
	if err := json.Unmarshal(b, &i); err != nil {
		return fmt.Errorf("api: int-or-string must be a string or an int32: %s", b)
	}
	*v = FromInt32(i)
	return nil
}

// ScaledValue resolves v against total, as Kubernetes'
// GetScaledValueFromIntOrPercent does for maxSurge and maxUnavailable: an
// integer is returned as is; a percentage "N%" is N*total/100, rounded up
// when roundUp is true and down otherwise (computed in integers, no floats).
// A string that is not a percentage is an error.
func (v IntOrString) ScaledValue(total int, roundUp bool) (int, error) {
	if v.Type != TypeString {
		return int(v.IntVal), nil
	}
	s, ok := strings.CutSuffix(v.StrVal, "%")
	if !ok {
		return 0, fmt.Errorf("api: invalid int-or-percent %q: not a percentage", v.StrVal)
	}
	p, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("api: invalid int-or-percent %q: %w", v.StrVal, err)
	}
	prod := int64(p) * int64(total)
	if prod > math.MaxInt32*100 || prod < -math.MaxInt32*100 {
		return 0, fmt.Errorf("api: int-or-percent %q of %d overflows", v.StrVal, total)
	}
	q, r := prod/100, prod%100
	if roundUp && r > 0 {
		q++
	} else if !roundUp && r < 0 {
		q--
	}
	return int(q), nil
}

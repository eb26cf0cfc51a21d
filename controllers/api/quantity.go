package api

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Format is the notation a Quantity was written in; String keeps it.
type Format string

// The quantity formats.
const (
	// DecimalExponent is "12e6": a mantissa and a power of ten.
	DecimalExponent Format = "DecimalExponent"
	// BinarySI is "12Mi": powers of 1024 (Ki, Mi, Gi, Ti, Pi, Ei).
	BinarySI Format = "BinarySI"
	// DecimalSI is "12M": powers of 1000 (n, u, m, "", k, M, G, T, P, E).
	DecimalSI Format = "DecimalSI"
)

// ErrInvalidQuantity is wrapped by every error ParseQuantity returns.
var ErrInvalidQuantity = errors.New("invalid quantity")

// Quantity is an exact fixed-point number with a unit suffix: "500m" CPUs,
// "512Mi" bytes, "10" pods (Kubernetes' resource.Quantity).
//
// Representation: the value is an integer count of nano-units (10^-9) in a
// math/big.Int. Parsing rounds finer input up (away from zero) to the next
// nano-unit, exactly as Kubernetes does, so every Kubernetes quantity is
// representable; big.Int makes Add and Sub exact with no overflow (int64
// milli-units would overflow at 9.2P and could not hold "1n" or "3Ei"), and
// no float is ever used. As in Kubernetes, parsing caps a BinarySI value at
// ±(2^63-1) ("8Ei", "16Ei"), while arithmetic is exact beyond it (8 x 2Ei
// is 16Ei); Value, MilliValue and ScaledValue saturate to the int64 range
// where apimachinery's would wrap. A Quantity is immutable: Add, Sub and Neg return new values and
// no method changes the big.Int it holds, so copying a Quantity by
// assignment is a deep copy and Quantities may be shared between goroutines.
//
// The zero value is 0. Compare with Cmp or Equal, not ==.
type Quantity struct {
	nano *big.Int // nil for zero; never mutated once set
	// Format is the notation String uses. Parsing sets it from the suffix.
	Format Format
}

var (
	bigZero   = new(big.Int)
	bigOne    = big.NewInt(1)
	bigNano   = big.NewInt(1e9)
	bigMicro  = big.NewInt(1e6) // nano-units per milli-unit
	big1024   = big.NewInt(1024)
	bigTen    = big.NewInt(10)
	bigThou   = big.NewInt(1000)
	bigMaxI64 = big.NewInt(math.MaxInt64)
	bigMinI64 = big.NewInt(math.MinInt64)
	// bigMaxNano is 2^63-1 whole units, in nano-units: the BinarySI cap.
	bigMaxNano = new(big.Int).Mul(bigMaxI64, bigNano)
)

// maxDecimalShift bounds the power of ten a quantity may carry, so that
// "1e999999999" is rejected instead of allocating a huge number.
const maxDecimalShift = 400

func newQuantity(n *big.Int, f Format) Quantity {
	if n.Sign() == 0 {
		return Quantity{Format: f}
	}
	return Quantity{nano: n, Format: f}
}

func (q Quantity) val() *big.Int {
	if q.nano == nil {
		return bigZero
	}
	return q.nano
}

// NewQuantity returns the quantity value (whole units) in format f.
func NewQuantity(value int64, f Format) Quantity {
	return newQuantity(new(big.Int).Mul(big.NewInt(value), bigNano), f)
}

// NewMilliQuantity returns the quantity milli/1000 in format f.
func NewMilliQuantity(milli int64, f Format) Quantity {
	return newQuantity(new(big.Int).Mul(big.NewInt(milli), bigMicro), f)
}

// MustParse is ParseQuantity that panics on error, for constants in code and tests.
func MustParse(s string) Quantity {
	q, err := ParseQuantity(s)
	if err != nil {
		panic(err)
	}
	return q
}

func quantityError(s, why string) error {
	return fmt.Errorf("api: quantity %q: %w: %s", s, ErrInvalidQuantity, why)
}

// ParseQuantity parses the forms Kubernetes accepts: an optional sign, a
// decimal number ("1", "1.5", ".5", "1."), and an optional suffix — binary
// (Ki Mi Gi Ti Pi Ei), decimal SI (n u m k M G T P E) or an exponent
// (e3, E-6, e+2). The format is the suffix's; a BinarySI value between 0
// and 1 becomes DecimalSI. Input finer than 1n rounds up to the next
// nano-unit. Whitespace is not allowed, nor an exponent beyond ±400.
// Errors wrap ErrInvalidQuantity.
// A BinarySI value beyond 2^63-1 units saturates at ±(2^63-1), as
// apimachinery's maxAllowed cap ("8Ei", "9223372036854775807Ki").
// Unlike Kubernetes, a suffix with no digits ("k") is rejected.
func ParseQuantity(s string) (Quantity, error) {
	if s == "" {
		return Quantity{}, quantityError(s, "empty string")
	}
	pos := 0
	neg := false
	switch s[0] {
	case '-':
		neg = true
		pos++
	case '+':
		pos++
	}
	start := pos
	for pos < len(s) && isDigit(s[pos]) {
		pos++
	}
	intPart := s[start:pos]
	frac := ""
	if pos < len(s) && s[pos] == '.' {
		pos++
		fs := pos
		for pos < len(s) && isDigit(s[pos]) {
			pos++
		}
		frac = s[fs:pos]
	}
	if intPart == "" && frac == "" {
		return Quantity{}, quantityError(s, "no digits")
	}
	base, exp, f, ok := interpretSuffix(s[pos:])
	if !ok {
		return Quantity{}, quantityError(s, fmt.Sprintf("unknown suffix %q", s[pos:]))
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return Quantity{Format: f}, nil
	}
	n, _ := new(big.Int).SetString(digits, 10)
	e10 := -len(frac)
	if base == 2 {
		n.Lsh(n, uint(exp))
	} else {
		e10 += exp
	}
	shift := e10 + 9
	switch {
	case shift > maxDecimalShift:
		return Quantity{}, quantityError(s, "exponent out of range")
	case shift >= 0:
		n.Mul(n, pow10(shift))
	case -shift > len(n.String()):
		n.SetInt64(1) // a non-zero value below 1n rounds up to 1n
	default:
		var r big.Int
		n.QuoRem(n, pow10(-shift), &r)
		if r.Sign() != 0 {
			n.Add(n, bigOne)
		}
	}
	// apimachinery caps a BinarySI quantity at 2^63-1 (its maxAllowed),
	// whatever its sign: "8Ei" and "9223372036854775807Ki" are 2^63-1.
	if f == BinarySI && n.Cmp(bigMaxNano) > 0 {
		n = new(big.Int).Set(bigMaxNano)
	}
	if f == BinarySI && n.Cmp(bigNano) < 0 {
		f = DecimalSI
	}
	if neg {
		n.Neg(n)
	}
	return newQuantity(n, f), nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func pow10(n int) *big.Int {
	return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil)
}

var decimalSuffixes = map[string]int{"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
var binarySuffixes = map[string]int{"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}

func interpretSuffix(suf string) (base, exp int, f Format, ok bool) {
	if e, ok := decimalSuffixes[suf]; ok {
		return 10, e, DecimalSI, true
	}
	if e, ok := binarySuffixes[suf]; ok {
		return 2, e, BinarySI, true
	}
	if len(suf) > 1 && (suf[0] == 'e' || suf[0] == 'E') {
		digits := suf[1:]
		if digits[0] == '+' || digits[0] == '-' {
			digits = digits[1:]
		}
		if digits == "" || strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
			return 0, 0, "", false
		}
		e, err := strconv.ParseInt(suf[1:], 10, 32)
		if err != nil || e > maxDecimalShift || e < -maxDecimalShift {
			return 0, 0, "", false
		}
		return 10, int(e), DecimalExponent, true
	}
	return 0, 0, "", false
}

// String returns the canonical form (Kubernetes' CanonicalizeBytes): the
// shortest integer mantissa in q's format — "1Gi" not "1024Mi", "1080m" not
// "1.08", "1e3" — falling back to DecimalSI when a BinarySI value is below
// 1024 or not whole, and to DecimalExponent when Format is unset. Zero is "0".
func (q Quantity) String() string {
	v := q.val()
	if v.Sign() == 0 {
		return "0"
	}
	abs := new(big.Int).Abs(v)
	sign := ""
	if v.Sign() < 0 {
		sign = "-"
	}
	f := q.Format
	switch f {
	case DecimalSI, DecimalExponent:
	case BinarySI:
		var r big.Int
		if abs.Cmp(new(big.Int).Mul(big1024, bigNano)) < 0 || r.Rem(abs, bigNano).Sign() != 0 {
			f = DecimalSI
		}
	default:
		f = DecimalExponent
	}
	var r big.Int
	if f == BinarySI {
		u := new(big.Int).Quo(abs, bigNano)
		exp := 0
		for exp < 6 && r.Rem(u, big1024).Sign() == 0 {
			u.Quo(u, big1024)
			exp++
		}
		return sign + u.String() + [...]string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}[exp]
	}
	m, e := abs, -9
	for r.Rem(m, bigTen).Sign() == 0 {
		m.Quo(m, bigTen)
		e++
	}
	for e%3 != 0 {
		m.Mul(m, bigTen)
		e--
	}
	if f == DecimalExponent {
		if e == 0 {
			return sign + m.String()
		}
		return sign + m.String() + "e" + strconv.Itoa(e)
	}
	for e > 18 {
		m.Mul(m, bigThou)
		e -= 3
	}
	suffix := map[int]string{-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}[e]
	return sign + m.String() + suffix
}

// IsZero reports whether q is 0.
func (q Quantity) IsZero() bool { return q.val().Sign() == 0 }

// Sign returns -1, 0 or +1.
func (q Quantity) Sign() int { return q.val().Sign() }

// Cmp compares q and y: -1 if q < y, 0 if equal, +1 if q > y. Formats are ignored.
func (q Quantity) Cmp(y Quantity) int { return q.val().Cmp(y.val()) }

// CmpInt64 compares q with the whole number y.
func (q Quantity) CmpInt64(y int64) int { return q.Cmp(NewQuantity(y, DecimalSI)) }

// Equal reports whether q and y have the same value, whatever their formats.
func (q Quantity) Equal(y Quantity) bool { return q.Cmp(y) == 0 }

// Add returns q+y, exactly, in q's format, or in y's if q is zero (so
// summing into a zero Quantity keeps the summands' format, as in Kubernetes).
func (q Quantity) Add(y Quantity) Quantity {
	return newQuantity(new(big.Int).Add(q.val(), y.val()), q.resultFormat(y))
}

// Sub returns q-y, exactly, formatted as Add does.
func (q Quantity) Sub(y Quantity) Quantity {
	return newQuantity(new(big.Int).Sub(q.val(), y.val()), q.resultFormat(y))
}

func (q Quantity) resultFormat(y Quantity) Format {
	if q.IsZero() {
		return y.Format
	}
	return q.Format
}

// Neg returns -q.
func (q Quantity) Neg() Quantity {
	return newQuantity(new(big.Int).Neg(q.val()), q.Format)
}

// Value returns q in whole units, rounded up away from zero ("1.5" → 2,
// "100m" → 1), saturated to the int64 range.
func (q Quantity) Value() int64 { return scaledCeil(q.val(), bigNano) }

// MilliValue returns q in thousandths, rounded up away from zero ("1n" → 1),
// saturated to the int64 range.
func (q Quantity) MilliValue() int64 { return scaledCeil(q.val(), bigMicro) }

// QuantityScale is a power of ten (apimachinery's resource.Scale): NewScaledQuantity
// and ScaledValue use it; Milli is 10^-3.
type QuantityScale int32

// The named scales.
const (
	Nano  QuantityScale = -9
	Micro QuantityScale = -6
	Milli QuantityScale = -3
	Kilo  QuantityScale = 3
	Mega  QuantityScale = 6
	Giga  QuantityScale = 9
	Tera  QuantityScale = 12
	Peta  QuantityScale = 15
	Exa   QuantityScale = 18
)

// NewScaledQuantity returns value × 10^scale in DecimalSI
// (NewScaledQuantity(5, Milli) is "5m"). A value finer than 1n rounds up,
// away from zero, to the next nano-unit as parsing does; a scale beyond
// 10^400 is taken as 10^400, keeping every Quantity bounded.
func NewScaledQuantity(value int64, scale QuantityScale) Quantity {
	shift := int(max(min(scale, maxDecimalShift), -maxDecimalShift)) + 9
	n := big.NewInt(value)
	if shift >= 0 {
		return newQuantity(n.Mul(n, pow10(shift)), DecimalSI)
	}
	return newQuantity(quoAway(n, pow10(-shift)), DecimalSI)
}

// ScaledValue returns q in units of 10^scale, rounded up away from zero
// and saturated to the int64 range, as apimachinery's ScaledValue rounds
// (Value is ScaledValue(0), MilliValue ScaledValue(Milli)).
func (q Quantity) ScaledValue(scale QuantityScale) int64 {
	shift := int(max(min(scale, maxDecimalShift), -maxDecimalShift)) + 9
	if shift >= 0 {
		return scaledCeil(q.val(), pow10(shift))
	}
	return saturate(new(big.Int).Mul(q.val(), pow10(-shift)))
}

// Mul returns q × y, exactly, in q's format (apimachinery's Mul, without
// its in-place update).
func (q Quantity) Mul(y int64) Quantity {
	return newQuantity(new(big.Int).Mul(q.val(), big.NewInt(y)), q.Format)
}

// quoAway is n / d rounded away from zero.
func quoAway(n, d *big.Int) *big.Int {
	var r big.Int
	z, _ := new(big.Int).QuoRem(n, d, &r)
	if r.Sign() > 0 {
		z.Add(z, bigOne)
	} else if r.Sign() < 0 {
		z.Sub(z, bigOne)
	}
	return z
}

// saturate returns n clamped to the int64 range.
func saturate(n *big.Int) int64 {
	switch {
	case n.Cmp(bigMaxI64) > 0:
		return math.MaxInt64
	case n.Cmp(bigMinI64) < 0:
		return math.MinInt64
	}
	return n.Int64()
}

// AsInt64 returns q in whole units when q is an integer that fits in int64.
func (q Quantity) AsInt64() (int64, bool) {
	var r big.Int
	n, _ := new(big.Int).QuoRem(q.val(), bigNano, &r)
	if r.Sign() != 0 || !n.IsInt64() {
		return 0, false
	}
	return n.Int64(), true
}

func scaledCeil(v, unit *big.Int) int64 { return saturate(quoAway(v, unit)) }

// MarshalJSON encodes q as a JSON string of its canonical form.
func (q Quantity) MarshalJSON() ([]byte, error) {
	return strconv.AppendQuote(nil, q.String()), nil
}

// UnmarshalJSON accepts a JSON string ("500m") or number (10, 1.5); null is
// zero. Surrounding whitespace inside the string is ignored, as in Kubernetes.
func (q *Quantity) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		*q = Quantity{}
		return nil
	}
	s := string(b)
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		var err error
		if s, err = strconv.Unquote(s); err != nil {
			return quantityError(string(b), "malformed JSON string")
		}
	}
	parsed, err := ParseQuantity(strings.TrimSpace(s))
	if err != nil {
		return err
	}
	*q = parsed
	return nil
}

// ResourceName names a resource in a ResourceList: "cpu", "memory", "pods", …
type ResourceName string

// Well-known resource names.
const (
	ResourceCPU              ResourceName = "cpu"
	ResourceMemory           ResourceName = "memory"
	ResourceStorage          ResourceName = "storage"
	ResourceEphemeralStorage ResourceName = "ephemeral-storage"
	ResourcePods             ResourceName = "pods"
	ResourceRequestsCPU      ResourceName = "requests.cpu"
	ResourceRequestsMemory   ResourceName = "requests.memory"
	ResourceLimitsCPU        ResourceName = "limits.cpu"
	ResourceLimitsMemory     ResourceName = "limits.memory"
)

// ResourceList maps resource names to quantities: requests, limits,
// capacity, quota.
type ResourceList map[ResourceName]Quantity

// DeepCopy returns a copy of l (Quantities are immutable, so a map copy is deep).
func (l ResourceList) DeepCopy() ResourceList {
	if l == nil {
		return nil
	}
	out := make(ResourceList, len(l))
	for k, v := range l {
		out[k] = v
	}
	return out
}

// Cpu returns l["cpu"] (zero if absent).
func (l ResourceList) Cpu() Quantity { return l[ResourceCPU] }

// Memory returns l["memory"] (zero if absent).
func (l ResourceList) Memory() Quantity { return l[ResourceMemory] }

// Pods returns l["pods"] (zero if absent).
func (l ResourceList) Pods() Quantity { return l[ResourcePods] }

package api

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"
)

// dq is Kubernetes' decQuantity test helper: the value i·10^exp in format f.
func dq(i int64, exp int, f Format) Quantity {
	n := big.NewInt(i)
	if e := exp + 9; e >= 0 {
		n.Mul(n, pow10(e))
	} else {
		n.Quo(n, pow10(-e))
	}
	return newQuantity(n, f)
}

// Cases from k8s.io/apimachinery/pkg/api/resource/quantity_test.go,
// TestQuantityParse, including its saturating rows ("9Ei").
var parseCases = []struct {
	input  string
	expect Quantity
}{
	{"0", dq(0, 0, DecimalSI)},
	{"0n", dq(0, 0, DecimalSI)},
	{"0u", dq(0, 0, DecimalSI)},
	{"0m", dq(0, 0, DecimalSI)},
	{"0Ki", dq(0, 0, BinarySI)},
	{"0k", dq(0, 0, DecimalSI)},
	{"0Mi", dq(0, 0, BinarySI)},
	{"0M", dq(0, 0, DecimalSI)},
	{"0Gi", dq(0, 0, BinarySI)},
	{"0G", dq(0, 0, DecimalSI)},
	{"0Ti", dq(0, 0, BinarySI)},
	{"0T", dq(0, 0, DecimalSI)},
	{"1", dq(1, 0, DecimalSI)},
	{"1Ki", dq(1024, 0, BinarySI)},
	{"8Ki", dq(8*1024, 0, BinarySI)},
	{"7Mi", dq(7*1024*1024, 0, BinarySI)},
	{"6Gi", dq(6*1024*1024*1024, 0, BinarySI)},
	{"5Ti", dq(5*1024*1024*1024*1024, 0, BinarySI)},
	{"4Pi", dq(4*1024*1024*1024*1024*1024, 0, BinarySI)},
	{"3Ei", dq(3*1024*1024*1024*1024*1024*1024, 0, BinarySI)},
	{"10Ti", dq(10*1024*1024*1024*1024, 0, BinarySI)},
	{"100Ti", dq(100*1024*1024*1024*1024, 0, BinarySI)},
	{"5n", dq(5, -9, DecimalSI)},
	{"4u", dq(4, -6, DecimalSI)},
	{"3m", dq(3, -3, DecimalSI)},
	{"9", dq(9, 0, DecimalSI)},
	{"8k", dq(8, 3, DecimalSI)},
	{"50k", dq(5, 4, DecimalSI)},
	{"7M", dq(7, 6, DecimalSI)},
	{"6G", dq(6, 9, DecimalSI)},
	{"5T", dq(5, 12, DecimalSI)},
	{"40T", dq(4, 13, DecimalSI)},
	{"300T", dq(3, 14, DecimalSI)},
	{"2P", dq(2, 15, DecimalSI)},
	{"1E", dq(1, 18, DecimalSI)},
	{"1E-3", dq(1, -3, DecimalExponent)},
	{"1e3", dq(1, 3, DecimalExponent)},
	{"1E6", dq(1, 6, DecimalExponent)},
	{"1e9", dq(1, 9, DecimalExponent)},
	{"1E12", dq(1, 12, DecimalExponent)},
	{"1e15", dq(1, 15, DecimalExponent)},
	{"1E18", dq(1, 18, DecimalExponent)},
	{"1e14", dq(1, 14, DecimalExponent)},
	{"1e13", dq(1, 13, DecimalExponent)},
	{"100.035k", dq(100035, 0, DecimalSI)},
	{"0.001", dq(1, -3, DecimalSI)},
	{"0.0005k", dq(5, -1, DecimalSI)},
	{"0.005", dq(5, -3, DecimalSI)},
	{"0.05", dq(5, -2, DecimalSI)},
	{"0.5", dq(5, -1, DecimalSI)},
	{"0.00050k", dq(5, -1, DecimalSI)},
	{"0.00500", dq(5, -3, DecimalSI)},
	{"0.05000", dq(5, -2, DecimalSI)},
	{"0.50000", dq(5, -1, DecimalSI)},
	{"0.5e0", dq(5, -1, DecimalExponent)},
	{"0.5e-1", dq(5, -2, DecimalExponent)},
	{"0.5e-2", dq(5, -3, DecimalExponent)},
	{"10.035M", dq(10035, 3, DecimalSI)},
	{"1.2e3", dq(12, 2, DecimalExponent)},
	{"1.3E+6", dq(13, 5, DecimalExponent)},
	{"1.40e9", dq(14, 8, DecimalExponent)},
	{"1.53E12", dq(153, 10, DecimalExponent)},
	{"1.6e15", dq(16, 14, DecimalExponent)},
	{"1.7E18", dq(17, 17, DecimalExponent)},
	{"9.01", dq(901, -2, DecimalSI)},
	{"8.1k", dq(81, 2, DecimalSI)},
	{"7.123456M", dq(7123456, 0, DecimalSI)},
	{"6.987654321G", dq(6987654321, 0, DecimalSI)},
	{"5.444T", dq(5444, 9, DecimalSI)},
	{"40.1T", dq(401, 11, DecimalSI)},
	{"300.2T", dq(3002, 11, DecimalSI)},
	{"2.5P", dq(25, 14, DecimalSI)},
	{"1.01E", dq(101, 16, DecimalSI)},
	{"3.001n", dq(4, -9, DecimalSI)},
	{"1.1E-9", dq(2, -9, DecimalExponent)},
	{"0.0000000001", dq(1, -9, DecimalSI)},
	{"0.0000000005", dq(1, -9, DecimalSI)},
	{"0.00000000050", dq(1, -9, DecimalSI)},
	{"0.5e-9", dq(1, -9, DecimalExponent)},
	{"0.9n", dq(1, -9, DecimalSI)},
	{"0.00000012345", dq(124, -9, DecimalSI)},
	{"0.00000012354", dq(124, -9, DecimalSI)},
	{"12E", dq(12, 18, DecimalSI)},
	{"100.035Ki", dq(10243584, -2, BinarySI)},
	{"0.5Mi", dq(512*1024, 0, BinarySI)},
	{"0.05Gi", dq(536870912, -1, BinarySI)},
	{"0.025Ti", dq(274877906944, -1, BinarySI)},
	{"0.000000000001Ki", dq(2, -9, DecimalSI)},
	{".001", dq(1, -3, DecimalSI)},
	{".0001k", dq(100, -3, DecimalSI)},
	{"1.", dq(1, 0, DecimalSI)},
	{"1.G", dq(1, 9, DecimalSI)},
	// This package's own additions.
	{"1e-20", dq(1, -9, DecimalExponent)},
	// apimachinery's saturating rows: BinarySI caps at 2^63-1.
	{"9Ei", dq(math.MaxInt64, 0, BinarySI)},
	{"9223372036854775807Ki", dq(math.MaxInt64, 0, BinarySI)},
	// Ours: the cap's edges.
	{"8Ei", dq(math.MaxInt64, 0, BinarySI)},
	{"7Ei", dq(7<<60, 0, BinarySI)},
}

func TestParseQuantity(t *testing.T) {
	for _, c := range parseCases {
		for _, sign := range []string{"", "+", "-"} {
			in := sign + c.input
			got, err := ParseQuantity(in)
			if err != nil {
				t.Errorf("%s: %v", in, err)
				continue
			}
			want := c.expect
			if sign == "-" {
				want = want.Neg()
			}
			if got.Cmp(want) != 0 || got.Format != want.Format {
				t.Errorf("%s: got %s (%s), want %s (%s)", in, got, got.Format, want, want.Format)
			}
			// The canonical form parses back to the same value.
			if again, err := ParseQuantity(got.String()); err != nil || again.Cmp(got) != 0 {
				t.Errorf("%s: canonical %q re-parses to %v, %v", in, got.String(), again, err)
			}
		}
	}
}

func TestParseQuantityInvalid(t *testing.T) {
	// From TestQuantityParse's invalid list, plus this package's stricter cases.
	for _, in := range []string{
		"1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-", " 1", "1 ",
		"", "k", "-", ".", "1e", "1e+", "1e99999999999", "1e401", "1Ki2", "--1", "1,5",
	} {
		_, err := ParseQuantity(in)
		if err == nil {
			t.Errorf("%q parsed", in)
			continue
		}
		if !errors.Is(err, ErrInvalidQuantity) || !strings.Contains(err.Error(), "quantity") {
			t.Errorf("%q: error %v does not wrap ErrInvalidQuantity", in, err)
		}
	}
}

// Cases from quantity_test.go TestQuantityString: the canonical form of a
// value, and an alternate spelling that canonicalizes to it.
func TestQuantityString(t *testing.T) {
	table := []struct {
		in        Quantity
		expect    string
		alternate string
	}{
		{dq(1024*1024*1024, 0, BinarySI), "1Gi", "1024Mi"},
		{dq(300*1024*1024, 0, BinarySI), "300Mi", "307200Ki"},
		{dq(6*1024, 0, BinarySI), "6Ki", ""},
		{dq(1001*1024*1024*1024, 0, BinarySI), "1001Gi", "1025024Mi"},
		{dq(1024*1024*1024*1024, 0, BinarySI), "1Ti", "1024Gi"},
		{dq(5, 0, BinarySI), "5", "5000m"},
		{dq(500, -3, BinarySI), "500m", "0.5"},
		{dq(1, 9, DecimalSI), "1G", "1000M"},
		{dq(1000, 6, DecimalSI), "1G", "0.001T"},
		{dq(1000000, 3, DecimalSI), "1G", ""},
		{dq(1000000000, 0, DecimalSI), "1G", ""},
		{dq(1, -3, DecimalSI), "1m", "1000u"},
		{dq(80, -3, DecimalSI), "80m", ""},
		{dq(1080, -3, DecimalSI), "1080m", "1.08"},
		{dq(108, -2, DecimalSI), "1080m", "1080000000n"},
		{dq(10800, -4, DecimalSI), "1080m", ""},
		{dq(300, 6, DecimalSI), "300M", ""},
		{dq(1, 12, DecimalSI), "1T", ""},
		{dq(1234567, 6, DecimalSI), "1234567M", ""},
		{dq(1234567, -3, BinarySI), "1234567m", ""},
		{dq(3, 3, DecimalSI), "3k", ""},
		{dq(1025, 0, BinarySI), "1025", ""},
		{dq(0, 0, DecimalSI), "0", ""},
		{dq(0, 0, BinarySI), "0", ""},
		{dq(1, 9, DecimalExponent), "1e9", ".001e12"},
		{dq(1, -3, DecimalExponent), "1e-3", "0.001e0"},
		{dq(1, -9, DecimalExponent), "1e-9", "1000e-12"},
		{dq(80, -3, DecimalExponent), "80e-3", ""},
		{dq(300, 6, DecimalExponent), "300e6", ""},
		{dq(1, 12, DecimalExponent), "1e12", ""},
		{dq(1, 3, DecimalExponent), "1e3", ""},
		{dq(3, 3, DecimalExponent), "3e3", ""},
		{dq(3, 3, DecimalSI), "3k", ""},
		{dq(0, 0, DecimalExponent), "0", "00"},
		{dq(1, -9, DecimalSI), "1n", ""},
		{dq(80, -9, DecimalSI), "80n", ""},
		{dq(1080, -9, DecimalSI), "1080n", ""},
		{dq(108, -8, DecimalSI), "1080n", ""},
		{dq(10800, -10, DecimalSI), "1080n", ""},
		{dq(1, -6, DecimalSI), "1u", ""},
		{dq(80, -6, DecimalSI), "80u", ""},
		{dq(1080, -6, DecimalSI), "1080u", ""},
		// This package's own: beyond the largest suffix, and an unset format.
		{dq(1, 21, DecimalSI), "1000E", ""},
		{dq(5, 0, ""), "5", ""},
		{dq(5, 3, ""), "5e3", ""},
	}
	for _, c := range table {
		if got := c.in.String(); got != c.expect {
			t.Errorf("%#v: String() = %q, want %q", c.in, got, c.expect)
		}
		if !c.in.IsZero() {
			if got := c.in.Neg().String(); got != "-"+c.expect {
				t.Errorf("negated %q: String() = %q", c.expect, got)
			}
		}
		q, err := ParseQuantity(c.expect)
		if err != nil || q.String() != c.expect {
			t.Errorf("%q: re-parsed as %v, %v", c.expect, q, err)
		}
		if c.alternate == "" {
			continue
		}
		q, err = ParseQuantity(c.alternate)
		if err != nil || q.String() != c.expect {
			t.Errorf("alternate %q: canonical %v, %v; want %q", c.alternate, q, err, c.expect)
		}
	}
}

// Cases from quantity_test.go TestQuantityParseEmit.
func TestQuantityParseEmit(t *testing.T) {
	for _, c := range []struct{ in, expect string }{
		{"1Ki", "1Ki"}, {"1Mi", "1Mi"}, {"1Gi", "1Gi"}, {"1024Mi", "1Gi"}, {"1000M", "1G"},
		{".001Ki", "1024m"}, {".000001Ki", "1024u"}, {".000000001Ki", "1024n"}, {".000000000001Ki", "2n"},
	} {
		for _, sign := range []string{"", "-"} {
			q, err := ParseQuantity(sign + c.in)
			if err != nil || q.String() != sign+c.expect {
				t.Errorf("%s%s: got %v, %v; want %s%s", sign, c.in, q, err, sign, c.expect)
			}
		}
	}
}

func TestQuantityArithmetic(t *testing.T) {
	// TestAdd, TestSub (quantity_test.go), with Quantity{Format: DecimalSI} as zero.
	z := Quantity{Format: DecimalSI}
	adds := []struct{ a, b, sum, diff Quantity }{
		{dq(10, 0, DecimalSI), dq(1, 1, DecimalSI), dq(20, 0, DecimalSI), dq(0, 0, DecimalSI)},
		{dq(10, 0, DecimalSI), dq(1, 0, BinarySI), dq(11, 0, DecimalSI), dq(9, 0, DecimalSI)},
		{dq(10, 0, BinarySI), dq(1, 0, DecimalSI), dq(11, 0, BinarySI), dq(9, 0, BinarySI)},
		{z, dq(50, 0, DecimalSI), dq(50, 0, DecimalSI), dq(-50, 0, DecimalSI)},
		{dq(50, 0, DecimalSI), z, dq(50, 0, DecimalSI), dq(50, 0, DecimalSI)},
		{z, z, z, z},
	}
	for i, c := range adds {
		if got := c.a.Add(c.b); got.Cmp(c.sum) != 0 {
			t.Errorf("[%d] %s + %s = %s, want %s", i, c.a, c.b, got, c.sum)
		}
		if got := c.a.Sub(c.b); got.Cmp(c.diff) != 0 {
			t.Errorf("[%d] %s - %s = %s, want %s", i, c.a, c.b, got, c.diff)
		}
	}
	// TestQuantityAddZeroPreservesSuffix / SubZeroPreservesSuffix.
	zero := MustParse("0")
	for _, s := range []string{"100m", "1Gi"} {
		v := MustParse(s)
		if v.Add(zero).String() != s || zero.Add(v).String() != s || v.Sub(zero).String() != s || zero.Sub(v).String() != "-"+s {
			t.Errorf("%s: adding or subtracting zero changed the suffix", s)
		}
	}
	// Immutability: Add does not change its operands.
	a, b := MustParse("1"), MustParse("2")
	_ = a.Add(b)
	if a.String() != "1" || b.String() != "2" {
		t.Errorf("Add mutated its operands: %s %s", a, b)
	}
	// Exact beyond int64: summing 8 x 2Ei.
	sum := Quantity{}
	for range 8 {
		sum = sum.Add(MustParse("2Ei"))
	}
	if sum.String() != "16Ei" || sum.Value() != math.MaxInt64 {
		t.Errorf("8 x 2Ei = %s (Value %d)", sum, sum.Value())
	}
	if sum.Sub(MustParse("2Ei").Mul(8)).Sign() != 0 {
		t.Error("8 x 2Ei - 2Ei*8 != 0")
	}
	// Parsing, unlike arithmetic, caps BinarySI at 2^63-1 (apimachinery).
	if MustParse("16Ei").Cmp(sum) >= 0 || MustParse("16Ei").String() != "9223372036854775807" {
		t.Errorf("parsed 16Ei = %s, not capped below the sum %s", MustParse("16Ei"), sum)
	}
	// TestQuantityCmp.
	for _, c := range []struct {
		x, y string
		want int
	}{{"0", "0", 0}, {"100m", "50m", 1}, {"50m", "100m", -1}, {"10000T", "100Gi", 1}, {"1Gi", "1073741824", 0}, {"1e3", "1k", 0}} {
		if got := MustParse(c.x).Cmp(MustParse(c.y)); got != c.want {
			t.Errorf("Cmp(%s, %s) = %d, want %d", c.x, c.y, got, c.want)
		}
	}
	if !MustParse("1k").Equal(MustParse("1000")) || MustParse("3").CmpInt64(2) != 1 {
		t.Error("Equal/CmpInt64")
	}
}

func TestQuantityValues(t *testing.T) {
	for _, c := range []struct {
		in           string
		value, milli int64
		asInt        bool
	}{
		{"500m", 1, 500, false},
		{"1.5", 2, 1500, false},
		{"-1.5", -2, -1500, false},
		{"1n", 1, 1, false},
		{"-1n", -1, -1, false},
		{"512Mi", 512 << 20, (512 << 20) * 1000, true},
		{"20Gi", 20 << 30, (20 << 30) * 1000, true},
		{"10", 10, 10000, true},
		{"1e3", 1000, 1000000, true},
		{"0", 0, 0, true},
		{"16Ei", math.MaxInt64, math.MaxInt64, true},
		{"-16Ei", -math.MaxInt64, math.MinInt64, true},
		{"1E", 1e18, math.MaxInt64, true},
		{"100E", math.MaxInt64, math.MaxInt64, false},
	} {
		q := MustParse(c.in)
		if q.Value() != c.value || q.MilliValue() != c.milli {
			t.Errorf("%s: Value %d MilliValue %d, want %d %d", c.in, q.Value(), q.MilliValue(), c.value, c.milli)
		}
		if v, ok := q.AsInt64(); ok != c.asInt || (ok && v != c.value) {
			t.Errorf("%s: AsInt64 = %d, %t", c.in, v, ok)
		}
	}
	// TestMilliNewSet / TestNewSet.
	for _, c := range []struct {
		q    Quantity
		want string
	}{
		{NewMilliQuantity(1, DecimalSI), "1m"}, {NewMilliQuantity(1000, DecimalSI), "1"},
		{NewMilliQuantity(1234000, DecimalSI), "1234"}, {NewMilliQuantity(1024, BinarySI), "1024m"},
		{NewMilliQuantity(1000000, "invalid"), "1e3"}, {NewMilliQuantity(1024*1024, BinarySI), "1048576m"},
		{NewQuantity(1, DecimalSI), "1"}, {NewQuantity(1000, DecimalSI), "1k"}, {NewQuantity(1234000, DecimalSI), "1234k"},
		{NewQuantity(1024, BinarySI), "1Ki"}, {NewQuantity(1000000, "invalid"), "1e6"}, {NewQuantity(1024*1024, BinarySI), "1Mi"},
	} {
		if got := c.q.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
	}
}

func TestQuantityJSON(t *testing.T) {
	// TestJSONWhitespace (quantity_test.go), plus numbers, null and errors.
	for _, c := range []struct{ in, want string }{
		{`" 1"`, "1"}, {`"1 "`, "1"}, {`1`, "1"}, {` 1`, "1"}, {`1 `, "1"}, {`10`, "10"}, {`-1`, "-1"}, {` -1`, "-1"},
		{`1.5`, "1500m"}, {`1e3`, "1e3"}, {`"512Mi"`, "512Mi"}, {`null`, "0"},
	} {
		var q Quantity
		if err := json.Unmarshal([]byte(c.in), &q); err != nil || q.String() != c.want {
			t.Errorf("%s: got %v, %v; want %s", c.in, q, err, c.want)
		}
	}
	var q Quantity
	if err := json.Unmarshal([]byte(`"12 cows"`), &q); !errors.Is(err, ErrInvalidQuantity) {
		t.Errorf("malformed: err = %v", err)
	}
	type wrap struct {
		Q  Quantity  `json:"q"`
		P  *Quantity `json:"p,omitempty"`
		RL ResourceList
	}
	in := wrap{Q: MustParse("100m"), RL: ResourceList{ResourceMemory: MustParse("1Gi")}}
	b, err := json.Marshal(in)
	if err != nil || string(b) != `{"q":"100m","RL":{"memory":"1Gi"}}` {
		t.Fatalf("marshal: %s, %v", b, err)
	}
	var out wrap
	if err := json.Unmarshal(b, &out); err != nil || out.Q.Cmp(in.Q) != 0 || out.RL.Memory().Cmp(in.RL.Memory()) != 0 {
		t.Errorf("round trip: %+v, %v", out, err)
	}
}

// TestNewScaledSet and TestScaledValue (apimachinery
// pkg/api/resource/quantity_test.go).
func TestQuantityScaled(t *testing.T) {
	for _, c := range []struct {
		value  int64
		scale  QuantityScale
		expect string
	}{
		{1, Nano, "1n"}, {1000, Nano, "1u"}, {1, Micro, "1u"}, {1000, Micro, "1m"}, {1, Milli, "1m"},
		{1000, Milli, "1"}, {1, 0, "1"}, {0, Nano, "0"}, {0, Micro, "0"}, {0, Milli, "0"}, {0, 0, "0"},
	} {
		q := NewScaledQuantity(c.value, c.scale)
		if q.String() != c.expect {
			t.Errorf("NewScaledQuantity(%d, %d) = %s, want %s", c.value, c.scale, q, c.expect)
		}
		if got := MustParse(q.String()).ScaledValue(c.scale); got != c.value {
			t.Errorf("%s: ScaledValue(%d) = %d, want %d", q, c.scale, got, c.value)
		}
	}
	for _, c := range []struct {
		from, to QuantityScale
		want     int64
	}{
		{Nano, Nano, 1}, {Nano, Micro, 1}, {Nano, Milli, 1}, {Nano, 0, 1},
		{Micro, Nano, 1000}, {Micro, Micro, 1}, {Micro, Milli, 1}, {Micro, 0, 1},
		{Milli, Nano, 1000 * 1000}, {Milli, Micro, 1000}, {Milli, Milli, 1}, {Milli, 0, 1},
		{0, Nano, 1000 * 1000 * 1000}, {0, Micro, 1000 * 1000}, {0, Milli, 1000}, {0, 0, 1},
		{2, -2, 100 * 100},
	} {
		if got := NewScaledQuantity(1, c.from).ScaledValue(c.to); got != c.want {
			t.Errorf("%d to %d: got %d, want %d", c.from, c.to, got, c.want)
		}
	}
	// Ours: rounding away from zero, finer than nano, and bounds.
	for _, c := range []struct {
		q     Quantity
		scale QuantityScale
		want  int64
	}{
		{MustParse("-1.5"), 0, -2}, {MustParse("1500m"), Kilo, 1}, {MustParse("-1n"), Milli, -1},
		{NewScaledQuantity(5, -12), Nano, 1}, {NewScaledQuantity(-5, -12), Nano, -1},
		{MustParse("1"), -1000, math.MaxInt64}, {MustParse("-1"), -1000, math.MinInt64}, {MustParse("1"), 1000, 1},
	} {
		if got := c.q.ScaledValue(c.scale); got != c.want {
			t.Errorf("%s.ScaledValue(%d) = %d, want %d", c.q, c.scale, got, c.want)
		}
	}
}

// TestMul and TestNeg (apimachinery pkg/api/resource/quantity_test.go),
// on an immutable Quantity: the product, exact beyond int64.
func TestQuantityMulNeg(t *testing.T) {
	const mostPositive, mostNegative = math.MaxInt64, math.MinInt64
	big := func(v int64, by int64, e int) Quantity {
		n := new(big.Int).Mul(big.NewInt(v), big.NewInt(by))
		return newQuantity(n.Mul(n, pow10(e+9)), DecimalSI)
	}
	for i, c := range []struct {
		a    Quantity
		b    int64
		want Quantity
	}{
		{dq(10, 0, DecimalSI), 10, dq(100, 0, DecimalSI)},
		{dq(10, 0, DecimalSI), 1, dq(10, 0, DecimalSI)},
		{dq(10, 0, BinarySI), 1, dq(10, 0, BinarySI)},
		{Quantity{Format: DecimalSI}, 50, dq(0, 0, DecimalSI)},
		{dq(50, 0, DecimalSI), 0, dq(0, 0, DecimalSI)},
		{dq(10, 0, DecimalSI), -10, dq(-100, 0, DecimalSI)},
		{dq(-10, 0, DecimalSI), 1, dq(-10, 0, DecimalSI)},
		{dq(10, 0, BinarySI), -1, dq(-10, 0, BinarySI)},
		{dq(-50, 0, DecimalSI), -50, dq(2500, 0, DecimalSI)},
		{dq(mostPositive, 0, DecimalSI), 0, dq(0, 1, DecimalSI)},
		{dq(mostPositive, 0, DecimalSI), -1, dq(-mostPositive, 0, DecimalSI)},
		{dq(mostPositive/2, 0, DecimalSI), 2, dq((mostPositive/2)*2, 0, DecimalSI)},
		{dq(mostPositive, 0, DecimalSI), 2, big(mostPositive, 2, 0)},
		{dq(mostPositive, 0, DecimalSI), 10, dq(mostPositive, 1, DecimalSI)},
		{dq(mostNegative, 0, DecimalSI), -1, big(mostNegative, -1, 0)},
		{dq(mostNegative, 0, DecimalSI), -10, big(mostNegative, -1, 1)},
	} {
		if got := c.a.Mul(c.b); got.Cmp(c.want) != 0 || got.Format != c.a.Format {
			t.Errorf("[%d] %s * %d = %s, want %s", i, c.a, c.b, got, c.want)
		}
	}
	for i, c := range []struct{ a, want Quantity }{
		{dq(0, 0, DecimalSI), dq(0, 0, DecimalSI)}, {Quantity{}, Quantity{}},
		{dq(10, 0, BinarySI), dq(-10, 0, BinarySI)}, {dq(-10, 0, BinarySI), dq(10, 0, BinarySI)},
	} {
		if got := c.a.Neg(); got.Cmp(c.want) != 0 || got.Format != c.want.Format {
			t.Errorf("[%d] -(%s) = %s, want %s", i, c.a, got, c.want)
		}
	}
	// TestAddSubRoundTripAcrossScales, deterministic.
	q := Quantity{Format: DecimalSI}
	var order []int64
	for i := range int64(100) {
		j := (i*7919 + 13) * 104729 % math.MaxInt32 * 1000003
		order = append(order, j)
		q = q.Add(NewScaledQuantity(j, QuantityScale(j%20-10)))
	}
	for _, j := range order {
		q = q.Sub(NewScaledQuantity(j, QuantityScale(j%20-10)))
	}
	if !q.IsZero() {
		t.Errorf("addition and subtraction did not cancel: %s", q)
	}
}

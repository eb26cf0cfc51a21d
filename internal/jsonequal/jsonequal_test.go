package jsonequal

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// reference is the definition Equal must agree with.
func reference(a, b any) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}

type stamp struct{ t time.Time }

func (s stamp) MarshalJSON() ([]byte, error) { return json.Marshal(s.t.Truncate(time.Second)) }
func (s stamp) IsZero() bool                 { return s.t.IsZero() }

type ptrMarshal struct{ N int }

func (p *ptrMarshal) MarshalJSON() ([]byte, error) { return []byte(`"fixed"`), nil }

type Inner struct {
	A string `json:"a,omitempty"`
	B int    `json:"b"`
}

type Dup struct{ A string }

type Other struct{ A string }

type withDup struct {
	Dup
	Other
	C int
}

type kitchen struct {
	Inner     `json:",inline"`
	Named     Inner              `json:"named"`
	Hidden    int                `json:"-"`
	private   int                //nolint:unused // unexported: never encoded
	S         []string           `json:"s"`
	SO        []string           `json:"so,omitempty"`
	M         map[string]int     `json:"m"`
	MO        map[string]int     `json:"mo,omitempty"`
	MI        map[int]string     `json:"mi,omitempty"`
	P         *int               `json:"p,omitempty"`
	PP        **int              `json:"pp"`
	F         float64            `json:"f"`
	Bytes     []byte             `json:"bytes"`
	Any       any                `json:"any,omitempty"`
	Stamp     stamp              `json:"stamp,omitzero"`
	PtrM      ptrMarshal         `json:"ptrm"`
	Str       string             `json:"str"`
	Quoted    int                `json:"quoted,string"`
	Arr       [2]int             `json:"arr"`
	Z         Inner              `json:"z,omitzero"`
	Nested    map[string][]Inner `json:"nested,omitempty"`
	Dups      withDup            `json:"dups"`
	Fn        func()             `json:"-"`
	Interface json.Marshaler     `json:"iface,omitempty"`
}

func TestEqualTable(t *testing.T) {
	one, zero := 1, 0
	p1, p2 := &one, &one
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name string
		a, b any
	}{
		{"same", kitchen{}, kitchen{}},
		{"nil and empty slice", kitchen{S: nil}, kitchen{S: []string{}}},
		{"nil and empty slice, omitempty", kitchen{SO: nil}, kitchen{SO: []string{}}},
		{"nil and empty map", kitchen{M: nil}, kitchen{M: map[string]int{}}},
		{"nil and empty map, omitempty", kitchen{MO: nil}, kitchen{MO: map[string]int{}}},
		{"int keys", kitchen{MI: map[int]string{1: "a"}}, kitchen{MI: map[int]string{1: "a"}}},
		{"int keys differ", kitchen{MI: map[int]string{1: "a"}}, kitchen{MI: map[int]string{2: "a"}}},
		{"hidden differs", kitchen{Hidden: 1}, kitchen{Hidden: 2}},
		{"private differs", kitchen{private: 1}, kitchen{private: 2}},
		{"inline differs", kitchen{Inner: Inner{A: "x"}}, kitchen{Inner: Inner{A: "y"}}},
		{"inline omitted and empty", kitchen{Inner: Inner{A: ""}}, kitchen{Inner: Inner{}}},
		{"pointer nil and zero", kitchen{P: nil}, kitchen{P: &zero}},
		{"pointers to equal", kitchen{P: p1}, kitchen{P: p2}},
		{"pointer to pointer nil", kitchen{PP: new(*int)}, kitchen{PP: nil}},
		{"zero and negative zero", kitchen{F: 0}, kitchen{F: math.Copysign(0, -1)}},
		{"NaN", kitchen{F: math.NaN()}, kitchen{F: math.NaN()}},
		{"NaN and number", kitchen{F: math.NaN()}, kitchen{F: 1}},
		{"Inf", kitchen{F: math.Inf(1)}, kitchen{F: 1}},
		{"bytes nil and empty", kitchen{Bytes: nil}, kitchen{Bytes: []byte{}}},
		{"bytes", kitchen{Bytes: []byte("ab")}, kitchen{Bytes: []byte("ab")}},
		{"any int and float", kitchen{Any: 1}, kitchen{Any: 1.0}},
		{"any int and string", kitchen{Any: 1}, kitchen{Any: "1"}},
		{"any nil and typed nil", kitchen{Any: nil}, kitchen{Any: (*int)(nil)}},
		{"any maps", kitchen{Any: map[string]any{"a": []any{1, "x"}}}, kitchen{Any: map[string]any{"a": []any{1.0, "x"}}}},
		{"any maps differ", kitchen{Any: map[string]any{"a": []any{1, "x"}}}, kitchen{Any: map[string]any{"a": []any{2, "x"}}}},
		{"stamp same second", kitchen{Stamp: stamp{t0}}, kitchen{Stamp: stamp{t0.Add(time.Millisecond)}}},
		{"stamp other second", kitchen{Stamp: stamp{t0}}, kitchen{Stamp: stamp{t0.Add(time.Second)}}},
		{"stamp zero", kitchen{Stamp: stamp{}}, kitchen{Stamp: stamp{t0}}},
		{"pointer marshaler", kitchen{PtrM: ptrMarshal{1}}, kitchen{PtrM: ptrMarshal{2}}},
		{"invalid utf8", kitchen{Str: "\xff"}, kitchen{Str: "\xfe"}},
		{"invalid utf8 and replacement", kitchen{Str: "\xff"}, kitchen{Str: "\ufffd"}},
		{"invalid utf8 and other", kitchen{Str: "\xff"}, kitchen{Str: "a"}},
		{"quoted", kitchen{Quoted: 1}, kitchen{Quoted: 2}},
		{"array", kitchen{Arr: [2]int{1, 2}}, kitchen{Arr: [2]int{1, 3}}},
		{"omitzero struct", kitchen{Z: Inner{}}, kitchen{Z: Inner{A: ""}}},
		{"omitzero struct set", kitchen{Z: Inner{}}, kitchen{Z: Inner{B: 1}}},
		{"nested", kitchen{Nested: map[string][]Inner{"a": {{A: "x"}}}}, kitchen{Nested: map[string][]Inner{"a": {{A: "x"}}}}},
		{"nested differ", kitchen{Nested: map[string][]Inner{"a": {{A: "x"}}}}, kitchen{Nested: map[string][]Inner{"a": {{A: "y"}}}}},
		{"nested keys differ", kitchen{Nested: map[string][]Inner{"a": nil}}, kitchen{Nested: map[string][]Inner{"b": nil}}},
		{"map invalid keys", kitchen{M: map[string]int{"\xff": 1}}, kitchen{M: map[string]int{"\xfe": 1}}},
		{"labels", labelled{Labels: map[string]string{"a": "1"}}, labelled{Labels: map[string]string{"a": "2"}}},
		{"labels keys", labelled{Labels: map[string]string{"a": "1"}}, labelled{Labels: map[string]string{"b": "1"}}},
		{"labels invalid keys", labelled{Labels: map[string]string{"\xff": "1"}}, labelled{Labels: map[string]string{"\xfe": "1"}}},
		{"labels invalid values", labelled{Labels: map[string]string{"a": "\xff"}}, labelled{Labels: map[string]string{"a": "\xfe"}}},
		{"labels nil and empty", labelled{Labels: nil}, labelled{Labels: map[string]string{}}},
		{"conflicting embedded names", kitchen{Dups: withDup{Dup: Dup{"a"}}}, kitchen{Dups: withDup{Dup: Dup{"b"}}}},
		{"conflicting embedded, other field", kitchen{Dups: withDup{C: 1}}, kitchen{Dups: withDup{C: 2}}},
		{"func set", kitchen{Fn: func() {}}, kitchen{}},
		{"interface marshaler", kitchen{Interface: stamp{t0}}, kitchen{Interface: stamp{t0.Add(time.Millisecond)}}},
		{"interface marshaler typed nil", kitchen{Interface: (*ptrMarshal)(nil)}, kitchen{}},
		{"different types", 1, "1"},
		{"int and float top level", 1, 1.0},
		{"nil and nil", nil, nil},
		{"pointers to kitchens", &kitchen{S: []string{}}, &kitchen{}},
		{"channel", make(chan int), make(chan int)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := reference(c.a, c.b)
			if got := Equal(c.a, c.b); got != want {
				t.Fatalf("Equal = %t, encoding says %t", got, want)
			}
			if got := Equal(c.b, c.a); got != want {
				t.Fatalf("Equal (swapped) = %t, encoding says %t", got, want)
			}
		})
	}
}

// Random kitchens, each compared with a random mutation of a copy of
// itself: Equal agrees with the encoding every time.
func TestEqualRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	strs := []string{"", "a", "b", "\xff", "\ufffd"}
	pick := func() string { return strs[r.IntN(len(strs))] }
	gen := func() kitchen {
		var k kitchen
		if r.IntN(2) == 0 {
			k.S = []string{}
		}
		for range r.IntN(3) {
			k.S = append(k.S, pick())
			k.SO = append(k.SO, pick())
		}
		if r.IntN(2) == 0 {
			k.M = map[string]int{}
		}
		for range r.IntN(3) {
			if k.M == nil {
				k.M = map[string]int{}
			}
			k.M[pick()] = r.IntN(2)
		}
		if r.IntN(3) == 0 {
			n := r.IntN(2)
			k.P = &n
		}
		k.F = []float64{0, math.Copysign(0, -1), 1.5}[r.IntN(3)]
		switch r.IntN(4) {
		case 1:
			k.Any = r.IntN(2)
		case 2:
			k.Any = float64(r.IntN(2))
		case 3:
			k.Any = map[string]any{pick(): []any{r.IntN(2)}}
		}
		k.Inner = Inner{A: pick(), B: r.IntN(2)}
		k.Z = Inner{B: r.IntN(2)}
		k.Str = pick()
		return k
	}
	for range 3000 {
		a, b := gen(), gen()
		if got, want := Equal(a, b), reference(a, b); got != want {
			t.Fatalf("Equal(%#v, %#v) = %t, encoding says %t", a, b, got, want)
		}
		if !Equal(a, a) {
			t.Fatalf("Equal(a, a) = false for %#v", a)
		}
	}
}

type labelled struct {
	Labels map[string]string `json:"labels,omitempty"`
	Items  []Inner           `json:"items"`
	Stamp  stamp             `json:"stamp"`
}

// A value whose opaque sub-values are equal, and whose maps are
// map[string]string, is compared without allocating.
func TestEqualDoesNotAllocate(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := &labelled{Labels: map[string]string{"a": "1", "b": "2"}, Items: []Inner{{A: "x"}, {A: "v"}}, Stamp: stamp{t0}}
	b := &labelled{Labels: map[string]string{"a": "1", "b": "2"}, Items: []Inner{{A: "x"}, {A: "w"}}, Stamp: stamp{t0}}
	Equal(a, b) // fill the caches
	if n := testing.AllocsPerRun(100, func() {
		if Equal(a, b) {
			t.Fatal("equal")
		}
	}); n != 0 {
		t.Fatalf("%v allocations per Equal", n)
	}
}

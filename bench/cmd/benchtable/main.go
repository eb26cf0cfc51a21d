// Command benchtable reads `go test -bench` output of the bench module's
// pairs (BenchmarkW1Cycle_ctrlkit, BenchmarkW1Cycle_clientgo, ...) from
// stdin or the files named as arguments, takes the median of every
// metric over the samples of each benchmark, and prints a Markdown table
// of ctrlkit's numbers against the anchor's (client-go, or
// controller-runtime for W8), the ratios ctrlkit/anchor, and whether
// each target of issue 7 holds. Rows "(floor)" compare ctrlkit with the
// bare mutex+slice+map queue.
package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// samples[workload][side][metric] are the values read.
type samples map[string]map[string]map[string][]float64

func main() {
	s := samples{}
	if len(os.Args) == 1 {
		read(os.Stdin, s)
	}
	for _, name := range os.Args[1:] {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchtable:", err)
			os.Exit(1)
		}
		read(f, s)
		f.Close()
	}
	write(os.Stdout, s)
}

// read parses lines such as
//
//	BenchmarkW1Cycle_ctrlkit-2  1000000  95.1 ns/op  90.0 cpu-ns/op  0 B/op  0 allocs/op
func read(r io.Reader, s samples) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := strings.TrimPrefix(f[0], "Benchmark")
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		workload, side, ok := strings.Cut(name, "_")
		if !ok {
			continue
		}
		if s[workload] == nil {
			s[workload] = map[string]map[string][]float64{}
		}
		if s[workload][side] == nil {
			s[workload][side] = map[string][]float64{}
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			s[workload][side][f[i+1]] = append(s[workload][side][f[i+1]], v)
		}
	}
}

func median(vs []float64) (float64, bool) {
	if len(vs) == 0 {
		return 0, false
	}
	vs = slices.Clone(vs)
	slices.Sort(vs)
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2], true
	}
	return (vs[n/2-1] + vs[n/2]) / 2, true
}

// The columns: each picks the per-object metric when the benchmark
// reports one, the per-op metric otherwise.
var columns = []struct {
	name    string
	metrics []string
}{
	{"time", []string{"ns/obj", "ns/op"}},
	{"cpu", []string{"cpu-ns/obj", "cpu-ns/op"}},
	{"bytes", []string{"B/obj", "B/op"}},
	{"allocs", []string{"allocs/obj", "allocs/op"}},
	{"heap", []string{"heapB/obj"}},
}

// target is one row of issue 7's target table: a maximum ratio
// ctrlkit/anchor of a column, or (abs) a maximum of ctrlkit's value.
type target struct {
	column string
	max    float64
	abs    bool
}

var targets = map[string][]target{
	"W1Cycle":        {{"time", 0.75, false}, {"allocs", 0, true}},
	"W3Parallel":     {{"time", 0.6, false}},
	"W4aRateLimited": {{"time", 0.5, false}},
	"W4bAddAfter":    {{"time", 0.5, false}},
	"W5aFifoAddPop":  {{"time", 0.4, false}, {"allocs", 3, true}},
	"W5bFifoReplace": {{"time", 0.4, false}, {"bytes", 0.4, false}},
	"W6Add":          {{"time", 0.6, false}},
	"W6Update":       {{"time", 0.6, false}},
	"W6Bytes":        {{"heap", 0.7, false}},
	"W6ByNamespace":  {{"time", 1.0, false}},
	"W6ByApp":        {{"time", 1.0, false}},
	"W7Sync":         {{"time", 0.5, false}, {"heap", 0.7, false}},
	"W7Updates":      {{"time", 0.5, false}},
	"W8Cycle":        {{"time", 0.3, false}},
	"W8Parallel":     {{"time", 0.5, false}},
}

func value(m map[string][]float64, column string) (float64, bool) {
	for _, c := range columns {
		if c.name != column {
			continue
		}
		for _, metric := range c.metrics {
			if v, ok := median(m[metric]); ok {
				return v, true
			}
		}
	}
	return 0, false
}

func write(w io.Writer, s samples) {
	names := make([]string, 0, len(s))
	for name := range s {
		names = append(names, name)
	}
	slices.SortFunc(names, compareWorkloads)
	fmt.Fprintln(w, "| workload | anchor | n | time ctrlkit | time anchor | time × | cpu × | B ctrlkit | B anchor | B × | allocs ctrlkit | allocs anchor | allocs × | heap B/obj × | target |")
	fmt.Fprintln(w, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, name := range names {
		sides := s[name]
		ck, ok := sides["ctrlkit"]
		if !ok {
			continue
		}
		for _, anchor := range []string{"clientgo", "controllerruntime", "floor"} {
			an, ok := sides[anchor]
			if !ok {
				continue
			}
			row(w, name, anchor, ck, an)
		}
	}
}

func row(w io.Writer, name, anchor string, ck, an map[string][]float64) {
	label := name
	if anchor == "floor" {
		label += " (floor)"
	}
	n := min(len(ck["ns/op"]), len(an["ns/op"]))
	cells := []string{label, anchor, strconv.Itoa(n)}
	ratios := map[string]float64{}
	for _, c := range columns {
		a, okA := value(ck, c.name)
		b, okB := value(an, c.name)
		r := math.NaN()
		if okA && okB && b != 0 {
			r = a / b
		} else if okA && okB && a == 0 {
			r = 1
		}
		ratios[c.name] = r
		switch c.name {
		case "time":
			cells = append(cells, duration(a, okA), duration(b, okB), ratio(r))
		case "cpu", "heap":
			cells = append(cells, ratio(r))
		default:
			cells = append(cells, human(a, okA), human(b, okB), ratio(r))
		}
	}
	verdict := ""
	if anchor != "floor" {
		var missed []string
		for _, t := range targets[name] {
			if t.abs {
				v, _ := value(ck, t.column)
				if v > t.max {
					missed = append(missed, fmt.Sprintf("%s %.3g > %g", t.column, v, t.max))
				}
				continue
			}
			if r := ratios[t.column]; math.IsNaN(r) || r > t.max {
				missed = append(missed, fmt.Sprintf("%s × > %g", t.column, t.max))
			}
		}
		switch {
		case len(targets[name]) == 0:
			verdict = "—"
		case len(missed) == 0:
			verdict = "met"
		default:
			verdict = "MISSED: " + strings.Join(missed, ", ")
		}
	}
	cells = append(cells, verdict)
	fmt.Fprintln(w, "| "+strings.Join(cells, " | ")+" |")
}

func human(v float64, ok bool) string {
	switch {
	case !ok:
		return "—"
	case v == 0:
		return "0"
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', 2, 64) + "M"
	case v >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', 1, 64) + "k"
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}

// duration formats nanoseconds with a unit that keeps 3 digits.
func duration(ns float64, ok bool) string {
	switch {
	case !ok:
		return "—"
	case ns >= 1e9:
		return strconv.FormatFloat(ns/1e9, 'f', 2, 64) + "s"
	case ns >= 1e6:
		return strconv.FormatFloat(ns/1e6, 'f', 1, 64) + "ms"
	case ns >= 1e4:
		return strconv.FormatFloat(ns/1e3, 'f', 1, 64) + "µs"
	default:
		return strconv.FormatFloat(ns, 'f', 0, 64) + "ns"
	}
}

func ratio(r float64) string {
	if math.IsNaN(r) {
		return "—"
	}
	return strconv.FormatFloat(r, 'f', 2, 64)
}

// compareWorkloads orders W1.. W8 by number, then by name.
func compareWorkloads(a, b string) int {
	na, nb := workloadNumber(a), workloadNumber(b)
	if na != nb {
		return na - nb
	}
	return strings.Compare(a, b)
}

func workloadNumber(name string) int {
	i := 1
	for i < len(name) && name[i] >= '0' && name[i] <= '9' {
		i++
	}
	n, err := strconv.Atoi(name[1:i])
	if err != nil {
		return math.MaxInt
	}
	return n
}

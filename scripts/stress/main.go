// Command stress runs every test of every module of this repository many
// times under the race detector, with GOMAXPROCS 1, 2 and 4 and a busy
// loop on every CPU beside it, and reports each test that failed with the
// command that replays it. scripts/test-all.sh runs it when
// CTRLKIT_STRESS is set to the number of runs per package and CPU count:
//
//	CTRLKIT_STRESS=5 ./scripts/test-all.sh
//
// Each module runs as one `go test -race -json -count=N -cpu 1,2,4
// -shuffle=SEED ./...`, so the order of the tests in a package changes
// from one run to the next (the seed is printed, and replays it). The
// failures are summarized at the end and their output is written to a
// log file; the exit status is 1 if anything failed.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	runs := flag.Int("runs", 3, "how many times each test runs at each CPU count (go test -count)")
	cpus := flag.String("cpu", "1,2,4", "the GOMAXPROCS values each test runs with (go test -cpu)")
	load := flag.Int("load", runtime.NumCPU(), "busy goroutines loading the CPUs while the tests run")
	seed := flag.Int64("seed", time.Now().UnixNano(), "the shuffle seed (go test -shuffle)")
	timeout := flag.Duration("timeout", 60*time.Minute, "go test -timeout for each module")
	pkgs := flag.String("packages", "./...", "the packages of each module to run, space-separated (relative to the module)")
	logPath := flag.String("log", filepath.Join(os.TempDir(), "ctrlkit-stress.log"), "where the output of failed tests goes")
	flag.Parse()
	root, err := os.Getwd()
	if err != nil {
		fatal(err)
	}
	modules := flag.Args()
	if len(modules) == 0 {
		if modules, err = findModules(root); err != nil {
			fatal(err)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	stopLoad := spin(*load)
	defer stopLoad()

	logFile, err := os.Create(*logPath)
	if err != nil {
		fatal(err)
	}
	defer logFile.Close()
	fmt.Printf("stress: %d runs × -cpu %s, %d busy goroutines, -shuffle=%d, modules %v\n",
		*runs, *cpus, *load, *seed, modules)
	var all []failure
	for _, mod := range modules {
		start := time.Now()
		r := &runner{module: mod, args: []string{"test", "-race", "-json", "-count=" + strconv.Itoa(*runs),
			"-cpu", *cpus, "-shuffle=" + strconv.FormatInt(*seed, 10), "-timeout", timeout.String()}}
		r.args = append(r.args, strings.Fields(*pkgs)...)
		fails, err := r.run(ctx, filepath.Join(root, mod), logFile)
		if err != nil {
			fatal(err)
		}
		fmt.Printf("stress: module %s: %d tests run, %d failed (%s)\n", mod, r.passed+r.failed, len(fails), time.Since(start).Round(time.Second))
		all = append(all, fails...)
		if ctx.Err() != nil {
			break
		}
	}
	if len(all) == 0 {
		fmt.Println("stress: no failures")
		return
	}
	fmt.Printf("stress: %d failures (output in %s); to replay one:\n", len(all), *logPath)
	for _, f := range all {
		fmt.Println(f.replay(*runs, *seed, *timeout))
	}
	os.Exit(1)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "stress:", err)
	os.Exit(2)
}

// findModules returns the directory of every go.mod under root, relative
// to it, outside testdata.
func findModules(root string) ([]string, error) {
	var mods []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || (strings.HasPrefix(d.Name(), ".") && p != root)) {
			return filepath.SkipDir
		}
		if d.Name() == "go.mod" {
			rel, err := filepath.Rel(root, filepath.Dir(p))
			if err != nil {
				return err
			}
			mods = append(mods, "./"+filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(mods)
	return slices.Compact(mods), err
}

// spin keeps n goroutines busy until the returned func is called.
func spin(n int) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			x := uint64(1)
			for {
				select {
				case <-done:
					return
				default:
				}
				for range 1 << 16 {
					x = x*6364136223846793005 + 1442695040888963407
				}
			}
		})
	}
	return func() { close(done); wg.Wait() }
}

// event is one line of `go test -json`.
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// failure is one failed test (or a package that failed outside a test:
// a build error, a panic, a timeout).
type failure struct {
	module, pkg, test string
	importPath        string
}

// replay is the command that reruns a failed test's package as it ran:
// the same module, runs, seed and CPU count (the suffix of the test's
// name), so that the same order of tests comes again.
func (f failure) replay(runs int, seed int64, timeout time.Duration) string {
	test, cpu := f.test, "1"
	if i := strings.LastIndexByte(test, '-'); i > 0 {
		if _, err := strconv.Atoi(test[i+1:]); err == nil {
			test, cpu = test[:i], test[i+1:]
		}
	}
	name := test
	if name == "" {
		name = "(package)"
	}
	return fmt.Sprintf("  %s %s: (cd %s && go test -race -count=%d -cpu %s -shuffle=%d -timeout %s %s)",
		f.pkg, name, f.module, runs, cpu, seed, timeout, f.pkg)
}

// runner runs go test in one module and collects what failed.
type runner struct {
	module         string
	args           []string
	passed, failed int
}

func (r *runner) run(ctx context.Context, dir string, log io.Writer) ([]failure, error) {
	cmd := exec.CommandContext(ctx, "go", r.args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	// The output of each running test, kept until it passes or fails.
	type key struct{ pkg, test string }
	output := map[key]*strings.Builder{}
	var fails []failure
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev event
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			fmt.Fprintln(log, sc.Text()) // build output is not JSON
			continue
		}
		k := key{ev.Package, ev.Test}
		switch ev.Action {
		case "output":
			b := output[k]
			if b == nil {
				b = &strings.Builder{}
				output[k] = b
			}
			if b.Len() < 1<<20 {
				b.WriteString(ev.Output)
			}
		case "pass", "skip":
			if ev.Test != "" && ev.Action == "pass" {
				r.passed++
			}
			delete(output, k)
		case "fail":
			if ev.Test != "" {
				r.failed++
			}
			// A package fails when one of its tests did; count it on its
			// own only when no test of it failed (build error, panic,
			// timeout, a failing example or TestMain).
			if ev.Test == "" && slices.ContainsFunc(fails, func(f failure) bool { return f.importPath == ev.Package }) {
				delete(output, k)
				continue
			}
			pkg := "./" + strings.TrimPrefix(strings.TrimPrefix(ev.Package, modulePath(dir)), "/")
			fails = append(fails, failure{module: r.module, pkg: pkg, test: ev.Test, importPath: ev.Package})
			fmt.Fprintf(log, "=== %s %s %s\n", r.module, ev.Package, ev.Test)
			if b := output[k]; b != nil {
				fmt.Fprint(log, b.String())
			}
			delete(output, k)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	// go test exits 1 when a test failed; that is reported above.
	if err := cmd.Wait(); err != nil && len(fails) == 0 && ctx.Err() == nil {
		return nil, fmt.Errorf("go test in %s: %w", r.module, err)
	}
	return fails, nil
}

// modulePath reads the module path from dir's go.mod.
func modulePath(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return ""
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

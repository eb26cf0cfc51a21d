package kubectltest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctrlkit/ctrlkit/internal/kubectltest"
)

// recorder is a testing.TB that records Fatal and Skip instead of ending
// the goroutine, so Path's outcomes can be observed.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper()               {}
func (r *recorder) Fatal(args ...any)     { r.fatal = args[0].(string) }
func (r *recorder) Skip(args ...any)      { r.skip = args[0].(string) }
func (r *recorder) Fatalf(string, ...any) { panic("unexpected Fatalf") }

func TestPathFindsKubectlOnPath(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "kubectl")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	r := &recorder{TB: t}
	if got := kubectltest.Path(r); got != exe || r.fatal != "" || r.skip != "" {
		t.Fatalf("Path = %q (fatal %q, skip %q), want %q", got, r.fatal, r.skip, exe)
	}
}

func TestPathMissingFailsOnCI(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("CI", "true")
	r := &recorder{TB: t}
	kubectltest.Path(r)
	if r.fatal == "" || r.skip != "" {
		t.Fatalf("on CI without kubectl: fatal %q, skip %q; want a failure", r.fatal, r.skip)
	}
	t.Setenv("CI", "")
	r = &recorder{TB: t}
	kubectltest.Path(r)
	if r.skip == "" || r.fatal != "" {
		t.Fatalf("off CI without kubectl: fatal %q, skip %q; want a skip", r.fatal, r.skip)
	}
}

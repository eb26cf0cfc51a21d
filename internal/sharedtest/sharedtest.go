// Package sharedtest finds, for tests, the shared folder that lies beside
// the checkout: the real manifests and CustomResourceDefinitions the
// project is tested against and must not copy into itself. Tests read
// them in place.
//
// The folder is $CTRLKIT_SHARED when that is set (a worktree elsewhere),
// else the nearest directory named "shared" beside the working directory
// or one of its parents — the one next to the checkout, as on CI. A test that needs it fails, and does not skip, when it is
// missing: the files are part of its input.
package sharedtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the shared folder's subdirectory sub ("manifests", "crds"),
// failing tb when it does not exist.
func Dir(tb testing.TB, sub string) string {
	tb.Helper()
	dir := ""
	if root := os.Getenv("CTRLKIT_SHARED"); root != "" {
		dir = filepath.Join(root, sub)
	} else {
		dir = find(sub)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		tb.Fatalf("sharedtest: no folder %s (the shared folder must be beside the checkout, or CTRLKIT_SHARED name it)", dir)
	}
	return dir
}

// Manifest returns the path of the shared manifest name, failing tb when
// it does not exist.
func Manifest(tb testing.TB, name string) string {
	tb.Helper()
	p := filepath.Join(Dir(tb, "manifests"), name)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("sharedtest: %v", err)
	}
	return p
}

// Manifests returns the paths of every .yaml and .json file among the
// shared manifests, in name order.
func Manifests(tb testing.TB) []string {
	tb.Helper()
	dir := Dir(tb, "manifests")
	var files []string
	for _, pat := range []string{"*.yaml", "*.json"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			tb.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		tb.Fatalf("sharedtest: no manifests in %s", dir)
	}
	return files
}

// find returns the first "shared/sub" beside the working directory or
// one of its parents, or "../shared/sub" when there is none (for the
// error message).
func find(sub string) string {
	dir, err := os.Getwd()
	if err != nil {
		return filepath.Join("..", "shared", sub)
	}
	for {
		p := filepath.Join(dir, "shared", sub)
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return filepath.Join("..", "shared", sub)
		}
		dir = parent
	}
}

package sharedtest_test

import (
	"path/filepath"
	"testing"

	"github.com/ctrlkit/ctrlkit/internal/sharedtest"
)

// The shared folder beside the checkout holds the real manifests.
func TestManifests(t *testing.T) {
	files := sharedtest.Manifests(t)
	if len(files) < 8 {
		t.Fatalf("%d shared manifests, want at least 8: %v", len(files), files)
	}
	p := sharedtest.Manifest(t, "hello-cronjob.yaml")
	if filepath.Base(p) != "hello-cronjob.yaml" || filepath.Base(filepath.Dir(p)) != "manifests" {
		t.Fatalf("Manifest = %s", p)
	}
}

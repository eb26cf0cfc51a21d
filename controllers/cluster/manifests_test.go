package cluster_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/internal/sharedtest"
)

// Every real manifest of the shared folder (read in place) decodes and
// creates cleanly; demo-pod.yaml needs the demo namespace first.
func TestManifestsCreate(t *testing.T) {
	paths := sharedtest.Manifests(t)
	ctx := context.Background()
	c := newMemory(t, cluster.Options{})
	if _, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "demo"}}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, path := range paths {
		if ext := filepath.Ext(path); ext != ".yaml" && ext != ".yml" && ext != ".json" {
			continue
		}
		if _, err := os.Stat(path); err != nil {
			t.Fatal(err)
		}
		objs, err := api.DecodeFile(path, api.DecodeOptions{})
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		for _, obj := range objs {
			if _, err := c.CreateObject(ctx, obj); err != nil {
				t.Errorf("%s: create %s %s: %v", filepath.Base(path), obj.GroupVersionKind().Kind, obj.GetObjectMeta().Name, err)
				continue
			}
			if obj.GetObjectMeta().UID == "" || obj.GetResourceVersion() == "" {
				t.Errorf("%s: %s not filled in", filepath.Base(path), obj.GetObjectMeta().Name)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no object created")
	}
	t.Logf("created %d objects", n)
}

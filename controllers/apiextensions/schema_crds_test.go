package apiextensions_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiextensions"
)

// sharedCRDDir is the folder of real CustomResourceDefinitions:
// $CTRLKIT_SHARED/crds when that is set, else ../shared/crds beside the
// repository root (the directory of the core module's go.mod), as in CI.
// The CRDs are read in place, never copied into the project.
func sharedCRDDir(t *testing.T) string {
	t.Helper()
	if s := os.Getenv("CTRLKIT_SHARED"); s != "" {
		return filepath.Join(s, "crds")
	}
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(b, []byte("module github.com/ctrlkit/ctrlkit\n")) {
			return filepath.Join(filepath.Dir(dir), "shared", "crds")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("apiextensions test: no go.mod of github.com/ctrlkit/ctrlkit above the test")
		}
		dir = parent
	}
}

// The six CRDs of the shared folder, by file.
var realCRDs = []string{
	"cert-manager.io_certificates.yaml",
	"monitoring.coreos.com_servicemonitors.yaml",
	"monitoring.coreos.com_prometheusrules.yaml",
	"gateway.networking.k8s.io_gatewayclasses.yaml",
	"gateway.networking.k8s.io_gateways.yaml",
	"argoproj.io_rollouts.yaml",
}

func loadCRD(t *testing.T, file string) *api.CustomResourceDefinition {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedCRDDir(t), file))
	if err != nil {
		t.Fatalf("read %s (the shared folder must be beside the checkout, or CTRLKIT_SHARED name it): %v", file, err)
	}
	crd := new(api.CustomResourceDefinition)
	if err := yaml.Unmarshal(b, crd); err != nil {
		t.Fatalf("decode %s: %v", file, err)
	}
	return crd
}

// compileVersion compiles the schema of the CRD's version v.
func compileVersion(t *testing.T, file, v string) *apiextensions.Schema {
	t.Helper()
	crd := loadCRD(t, file)
	for _, ver := range crd.Spec.Versions {
		if ver.Name == v {
			s, err := apiextensions.Compile(ver.Schema.OpenAPIV3Schema)
			if err != nil {
				t.Fatalf("%s %s: %v", file, v, err)
			}
			return s
		}
	}
	t.Fatalf("%s has no version %s", file, v)
	return nil
}

// Every version schema of the six real CRDs is structural and compiles.
func TestRealCRDsAreStructural(t *testing.T) {
	for _, file := range realCRDs {
		crd := loadCRD(t, file)
		if len(crd.Spec.Versions) == 0 {
			t.Fatalf("%s: no versions", file)
		}
		for i, v := range crd.Spec.Versions {
			if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				t.Fatalf("%s %s: no schema", file, v.Name)
			}
			path := "spec.versions[" + string(rune('0'+i)) + "].schema.openAPIV3Schema"
			if errs := apiextensions.CheckStructural(v.Schema.OpenAPIV3Schema, path); len(errs) > 0 {
				t.Errorf("%s %s: not structural: %v", file, v.Name, errs)
			}
			if _, err := apiextensions.Compile(v.Schema.OpenAPIV3Schema); err != nil {
				t.Errorf("%s %s: %v", file, v.Name, err)
			}
		}
	}
}

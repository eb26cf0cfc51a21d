package apiextensions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// cvSharedDir is the folder of real CustomResourceDefinitions: ../shared/crds
// beside the repository root (the folder of the core module's go.mod), as
// in CI, or $CTRLKIT_SHARED/crds when that is set. The test fails, not
// skips, when they are missing: they are part of its input.
func cvSharedDir(t *testing.T) string {
	t.Helper()
	var dir string
	if s := os.Getenv("CTRLKIT_SHARED"); s != "" {
		dir = filepath.Join(s, "crds")
	} else {
		root, err := filepath.Abs(".")
		if err != nil {
			t.Fatal(err)
		}
		for {
			data, err := os.ReadFile(filepath.Join(root, "go.mod"))
			if err == nil && strings.HasPrefix(string(data), "module github.com/ctrlkit/ctrlkit\n") {
				break
			}
			parent := filepath.Dir(root)
			if parent == root {
				t.Fatal("no go.mod of github.com/ctrlkit/ctrlkit above the test")
			}
			root = parent
		}
		dir = filepath.Join(root, "..", "shared", "crds")
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*.yaml")); len(files) == 0 {
		t.Fatalf("no CRDs in %s (the shared folder must be beside the checkout, or CTRLKIT_SHARED name it)", dir)
	}
	return dir
}

// cvSharedCRD reads one CRD of the shared folder, in place.
func cvSharedCRD(t *testing.T, file string) *api.CustomResourceDefinition {
	t.Helper()
	objs, err := api.DecodeFile(filepath.Join(cvSharedDir(t), file), api.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 {
		t.Fatalf("%s: %d objects", file, len(objs))
	}
	crd, ok := objs[0].(*api.CustomResourceDefinition)
	if !ok {
		t.Fatalf("%s: a %T", file, objs[0])
	}
	return crd
}

// The six published CRDs the issue names.
var cvSharedFiles = []string{
	"cert-manager.io_certificates.yaml",
	"monitoring.coreos.com_servicemonitors.yaml",
	"monitoring.coreos.com_prometheusrules.yaml",
	"gateway.networking.k8s.io_gatewayclasses.yaml",
	"gateway.networking.k8s.io_gateways.yaml",
	"argoproj.io_rollouts.yaml",
}

// Every published CRD defaults and validates clean, as it installs on a
// real cluster, and validates clean again as an update of itself.
func TestSharedCRDsValidate(t *testing.T) {
	for _, f := range cvSharedFiles {
		t.Run(f, func(t *testing.T) {
			crd := cvSharedCRD(t, f)
			DefaultCRD(crd)
			if errs := ValidateCRD(crd); len(errs) > 0 {
				t.Fatalf("ValidateCRD: %v", errs)
			}
			if crd.Spec.Names.ListKind != crd.Spec.Names.Kind+"List" || crd.Spec.Conversion == nil ||
				crd.Spec.Conversion.Strategy != api.NoneConverter || len(crd.Status.StoredVersions) != 1 {
				t.Errorf("defaults not set: names %+v conversion %+v stored %v", crd.Spec.Names, crd.Spec.Conversion, crd.Status.StoredVersions)
			}
			if errs := ValidateCRDUpdate(crd.DeepCopy(), crd); len(errs) > 0 {
				t.Fatalf("ValidateCRDUpdate: %v", errs)
			}
			for _, v := range crd.Spec.Versions {
				if _, err := NewTable(v.AdditionalPrinterColumns); err != nil {
					t.Errorf("version %s: NewTable: %v", v.Name, err)
				}
			}
		})
	}
}

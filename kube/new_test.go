package kube_test

import (
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/sample-apiserver/pkg/apis/wardle/v1alpha1"
	clientset "k8s.io/sample-apiserver/pkg/generated/clientset/versioned"

	"github.com/ctrlkit/ctrlkit/kube"
)

// TestConstructorsValidate checks that the constructors refuse what
// cannot work instead of failing on first use.
func TestConstructorsValidate(t *testing.T) {
	cs, err := clientset.NewForConfig(server.Config)
	if err != nil {
		t.Fatal(err)
	}
	rc := cs.WardleV1alpha1().RESTClient()
	var nilClient *rest.RESTClient
	for name, err := range map[string]error{
		"nil client": func() error {
			_, err := kube.New[*v1alpha1.Flunder, *v1alpha1.FlunderList](nilClient, "flunders", kube.Options{})
			return err
		}(),
		"empty resource": func() error {
			_, err := kube.New[*v1alpha1.Flunder, *v1alpha1.FlunderList](rc, "", kube.Options{})
			return err
		}(),
		"subresource": func() error {
			_, err := kube.New[*v1alpha1.Flunder, *v1alpha1.FlunderList](rc, "flunders/status", kube.Options{})
			return err
		}(),
		"negative retries": func() error {
			_, err := kube.New[*v1alpha1.Flunder, *v1alpha1.FlunderList](rc, "flunders", kube.Options{MaxUpdateRetries: -1})
			return err
		}(),
		"nil dynamic":  func() error { _, err := kube.NewDynamic(nil, flunderGVR, kube.Options{}); return err }(),
		"nil metadata": func() error { _, err := kube.NewMetadata(nil, flunderGVR, kube.Options{}); return err }(),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := kube.New[*v1alpha1.Flunder, *v1alpha1.FlunderList](rc, "flunders", kube.Options{}); err != nil {
		t.Errorf("flunders: %v", err)
	}
}

package realkube_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ctrlkit/ctrlkit/realkube"
)

// start starts a server for t or fails it, and logs how long it took.
func start(t *testing.T) *realkube.Server {
	t.Helper()
	s, err := realkube.Start(t, realkube.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("etcd and kube-apiserver started in %v", s.StartupTime())
	return s
}

// The server is a kube-apiserver v1.37.2 that a client-go clientset
// reaches through the kubeconfig file it writes, with the namespaces
// kube-apiserver creates itself.
func TestStartKubeconfig(t *testing.T) {
	s := start(t)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := s.WriteKubeconfig(path); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("kubeconfig file: %v %v, want mode 0600", fi, err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	v, err := cs.Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	if v.Major != "1" || v.Minor != "37" {
		t.Errorf("server version %s.%s (%s), want 1.37", v.Major, v.Minor, v.GitVersion)
	}
	for _, ns := range []string{"default", "kube-system", "kube-public"} {
		if _, err := cs.CoreV1().Namespaces().Get(context.Background(), ns, metav1.GetOptions{}); err != nil {
			t.Errorf("namespace %s: %v", ns, err)
		}
	}
	s.Stop()
	s.Stop() // idempotent
	if _, err := cs.Discovery().ServerVersion(); err == nil {
		t.Error("the server still answers after Stop")
	}
}

// Kubeconfig refuses a configuration without a host.
func TestKubeconfigNoHost(t *testing.T) {
	if _, err := realkube.Kubeconfig(nil); err == nil {
		t.Error("Kubeconfig(nil) did not fail")
	}
}

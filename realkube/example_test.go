package realkube_test

import (
	"fmt"

	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/realkube"
)

// Kubeconfig turns a client configuration (such as a Server's Config)
// into a kubeconfig file's content for kubectl or ctrlkit's commands.
func ExampleKubeconfig() {
	b, err := realkube.Kubeconfig(&rest.Config{
		Host:            "https://127.0.0.1:6443",
		BearerToken:     "token",
		TLSClientConfig: rest.TLSClientConfig{ServerName: "kubernetes", CAData: []byte("CA")},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(b))
	// Output:
	// apiVersion: v1
	// clusters:
	// - cluster:
	//     certificate-authority-data: Q0E=
	//     server: https://127.0.0.1:6443
	//     tls-server-name: kubernetes
	//   name: realkube
	// contexts:
	// - context:
	//     cluster: realkube
	//     user: realkube
	//   name: realkube
	// current-context: realkube
	// kind: Config
	// users:
	// - name: realkube
	//   user:
	//     token: token
}

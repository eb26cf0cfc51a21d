package kube_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/kube"
)

// A Client of an API server: here ctrlkit's own, over HTTP; any
// rest.Config works (a kubeconfig's, rest.InClusterConfig's).
func ExampleNewClient() {
	ctx := context.Background()
	c, _ := cluster.New(ctx, cluster.Options{})
	srv, _ := apiserver.New(c, apiserver.Options{})
	ts := httptest.NewServer(srv)
	defer ts.Close()

	cl, err := kube.NewClient(&rest.Config{Host: ts.URL}, kube.ClientOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	cms, _ := client.For[*api.ConfigMap](cl)
	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "settings"}, Data: map[string]string{"mode": "fast"}}
	if _, err := cms.Create(ctx, cm); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cm.Name, cm.UID != "", cm.ResourceVersion != "")
	_, _, err = cms.Get(ctx, "default/missing")
	fmt.Println(client.IsNotFound(err))
	qps, burst := cl.RateLimit()
	fmt.Println(qps, burst)
	// Output:
	// settings true true
	// true
	// 20 30
}

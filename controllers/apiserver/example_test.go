package apiserver_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// A cluster behind the API, driven with plain HTTP as kubectl does.
func Example() {
	ctx := context.Background()
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		panic(err)
	}
	srv, err := apiserver.New(c, apiserver.Options{})
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()

	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings"},"data":{"color":"blue"}}`
	resp, err := http.Post(ts.URL+"/api/v1/namespaces/default/configmaps", "application/json", strings.NewReader(cm))
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println("create:", resp.Status)

	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/api/v1/namespaces/default/configmaps/missing", nil)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println("get:", resp.Status, strings.TrimSpace(string(body)))
	// Output:
	// create: 201 Created
	// get: 404 Not Found {"apiVersion":"v1","kind":"Status","metadata":{},"status":"Failure","message":"configmaps \"missing\" not found","reason":"NotFound","details":{"name":"missing","kind":"configmaps"},"code":404}
}

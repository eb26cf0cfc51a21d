package serving_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver/serving"
)

// A handler behind TLS and a token, reached through the kubeconfig
// written for it.
func Example() {
	creds, err := serving.NewCredentials("127.0.0.1")
	if err != nil {
		panic(err)
	}
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "the API") })
	ts := httptest.NewUnstartedServer(serving.Handler(api, serving.Options{Token: creds.Token}))
	ts.TLS = creds.TLSConfig()
	ts.StartTLS()
	defer ts.Close()

	kc := serving.Kubeconfig{Server: ts.URL, CAData: creds.CAPEM, Token: creds.Token}
	client, err := kc.Client()
	if err != nil {
		panic(err)
	}
	get := func(c *http.Client, path, host string) {
		req, _ := http.NewRequest("GET", ts.URL+path, nil)
		if host != "" {
			req.Host = host
		}
		resp, err := c.Do(req)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		fmt.Println(path, host, resp.StatusCode)
	}
	anonymous, _ := serving.Kubeconfig{CAData: creds.CAPEM}.Client()
	get(client, "/api/v1/secrets", "")
	get(anonymous, "/api/v1/secrets", "")
	get(anonymous, "/readyz", "")
	get(client, "/api/v1/secrets", "attacker.example")
	// Output:
	// /api/v1/secrets  200
	// /api/v1/secrets  401
	// /readyz  200
	// /api/v1/secrets attacker.example 421
}

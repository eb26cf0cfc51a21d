package managercmd_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/ctrlkit/ctrlkit/kube/managercmd"
)

// allowMetrics lets the token "t" get /metrics (DelegatedAuth asks the
// API server instead).
type allowMetrics struct{}

func (allowMetrics) Check(_ context.Context, token, verb, path string) error {
	switch {
	case token != "t":
		return &managercmd.AuthError{Code: http.StatusUnauthorized, Msg: "Unauthorized"}
	case verb != "get" || path != "/metrics":
		return &managercmd.AuthError{Code: http.StatusForbidden, Msg: "Forbidden"}
	}
	return nil
}

// Handler serves the allowed paths anonymously and the others to
// authorized tokens only.
func ExampleHandler() {
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, r.URL.Path) })
	h := managercmd.Handler(inner, allowMetrics{}, []string{"/healthz"})
	for _, c := range []struct{ path, token string }{{"/healthz", ""}, {"/metrics", ""}, {"/metrics", "t"}, {"/debug/pprof/", "t"}} {
		req := httptest.NewRequest(http.MethodGet, c.path, nil)
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		fmt.Println(c.path, c.token != "", w.Code)
	}
	// Output:
	// /healthz false 200
	// /metrics false 401
	// /metrics true 200
	// /debug/pprof/ true 403
}

package manager

import (
	"fmt"
	"net/http"
	"net/http/pprof"
)

// Handler returns the manager's HTTP endpoints, as
// kube-controller-manager serves them on its secure port:
//
//   - /healthz: 200 "ok" while the process runs;
//   - /readyz: 200 once every informer has synced, 503 before; the
//     body says whether this replica leads;
//   - /metrics: the metrics handler given (for example the
//     github.com/ctrlkit/ctrlkit/prometheus module's), 404 without one;
//   - /debug/pprof/: the Go runtime's profiles (net/http/pprof).
//
// The handler is not registered on http.DefaultServeMux.
func (m *Manager) Handler(metrics http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !m.Synced() {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, "informers not synced")
			return
		}
		fmt.Fprintf(w, "ok\nleader: %t\n", m.Leading())
	})
	if metrics != nil {
		mux.Handle("GET /metrics", metrics)
	} else {
		mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "no metrics handler configured", http.StatusNotFound)
		})
	}
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

package scheduler

import (
	"fmt"
	"net/http"
)

// ServeHTTP is a plain-text view of the scheduler for people, to mount in
// a control plane's debug server: with ?pod=namespace/name it writes that
// pod's Explanation (404 when it is not among the kept attempts); without
// it, one line per unschedulable pod with the message of its last
// attempt.
func (s *Scheduler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if key := r.URL.Query().Get("pod"); key != "" {
		e, ok := s.Explain(key)
		if !ok {
			http.Error(w, "scheduler: no attempt kept for pod "+key, http.StatusNotFound)
			return
		}
		fmt.Fprint(w, e.String())
		return
	}
	keys := s.Unschedulable()
	fmt.Fprintf(w, "%d unschedulable pods\n", len(keys))
	for _, key := range keys {
		msg := "(attempt not kept)"
		if e, ok := s.Explain(key); ok {
			msg = e.Message
		}
		fmt.Fprintf(w, "%s: %s\n", key, msg)
	}
}

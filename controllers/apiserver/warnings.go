package apiserver

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// Bounds of the warnings one response carries, as kube-apiserver's
// warning recorder keeps them: once they pass warningTotalRunes in all,
// every warning is cut to warningItemRunes and no more are taken after
// the total is reached again.
const (
	warningTotalRunes = 4 * 1024
	warningItemRunes  = 256
)

// warningWriter collects the warnings of one request (admission.Warn) and
// sends them as Warning headers (`299 - "text"`) when the response starts;
// a warning recorded after that is dropped.
type warningWriter struct {
	http.ResponseWriter
	mu         sync.Mutex
	seen       map[string]bool
	warnings   []string // as recorded
	written    int      // runes of the warnings to send
	truncating bool
	started    bool
}

// record adds one warning as kube-apiserver's recorder does: once each,
// none that is not valid UTF-8 or holds a control character, bounded.
func (w *warningWriter) record(text string) {
	if !utf8.ValidString(text) || strings.IndexFunc(text, unicode.IsControl) >= 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.started || w.seen[text] || w.truncating && w.written >= warningTotalRunes {
		return
	}
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	w.seen[text] = true
	w.warnings = append(w.warnings, text)
	n := utf8.RuneCountInString(text)
	if w.truncating {
		w.written += min(n, warningItemRunes)
		return
	}
	if w.written+n <= warningTotalRunes {
		w.written += n
		return
	}
	// Over the limit: from now on every warning, those before too, is cut.
	w.truncating, w.written = true, 0
	for _, t := range w.warnings {
		w.written += min(utf8.RuneCountInString(t), warningItemRunes)
	}
}

// start writes the collected warnings into the headers, once.
func (w *warningWriter) start() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.started {
		return
	}
	w.started = true
	for _, text := range w.warnings {
		if w.truncating && utf8.RuneCountInString(text) > warningItemRunes {
			text = string([]rune(text)[:warningItemRunes])
		}
		w.ResponseWriter.Header().Add("Warning", warningHeader(text))
	}
}

// WriteHeader sends the warnings, then the status code.
func (w *warningWriter) WriteHeader(code int) {
	w.start()
	w.ResponseWriter.WriteHeader(code)
}

// Write sends the warnings first if the header is not yet written.
func (w *warningWriter) Write(b []byte) (int, error) {
	w.start()
	return w.ResponseWriter.Write(b)
}

// Flush sends the warnings and flushes what is written (a watch's
// headers and events).
func (w *warningWriter) Flush() {
	w.start()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *warningWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// warningHeader is the value of a Warning header with code 299 and no
// agent, its text a quoted-string (RFC 9110) as kube-apiserver writes it.
func warningHeader(text string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `299 - "` + r.Replace(text) + `"`
}

// versionWarning returns the warning kube-apiserver gives every request
// to a deprecated version of a CustomResourceDefinition's kind: the
// version's deprecationWarning, or `GROUP/VERSION KIND is deprecated`
// followed by `; use GROUP/NEWER KIND` naming the newest served,
// not deprecated version above it.
func versionWarning(c *cluster.Cluster, res *resourceInfo) (string, bool) {
	crd, ok := c.ServedDefinition(res.group, res.kind)
	if !ok {
		return "", false
	}
	var deprecated *api.CustomResourceDefinitionVersion
	for i := range crd.Spec.Versions {
		if v := &crd.Spec.Versions[i]; v.Name == res.version && v.Deprecated {
			deprecated = v
		}
	}
	if deprecated == nil {
		return "", false
	}
	if deprecated.DeprecationWarning != nil {
		return *deprecated.DeprecationWarning, true
	}
	msg := fmt.Sprintf("%s/%s %s is deprecated", crd.Spec.Group, res.version, crd.Spec.Names.Kind)
	newest := ""
	for _, v := range crd.Spec.Versions {
		// compareVersions orders by priority, highest first: a version
		// above the deprecated one compares below zero.
		if v.Served && !v.Deprecated && compareVersions(v.Name, res.version) < 0 && (newest == "" || compareVersions(v.Name, newest) < 0) {
			newest = v.Name
		}
	}
	if newest != "" {
		msg += fmt.Sprintf("; use %s/%s %s", crd.Spec.Group, newest, crd.Spec.Names.Kind)
	}
	return msg, true
}

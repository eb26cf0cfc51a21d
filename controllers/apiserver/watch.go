package apiserver

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/source"
)

// watchEvent is metav1.WatchEvent.
type watchEvent struct {
	Type   string `json:"type"`
	Object any    `json:"object"`
}

// InitialEventsEndAnnotation marks the bookmark that ends the initial
// events of a watch with sendInitialEvents=true.
const InitialEventsEndAnnotation = "k8s.io/initial-events-end"

var eventTypes = map[source.EventType]string{
	source.Added: "ADDED", source.Modified: "MODIFIED", source.Deleted: "DELETED",
	source.Bookmark: "BOOKMARK", source.Error: "ERROR",
}

// watchParams are a watch request's parameters.
type watchParams struct {
	rv        string
	bookmarks bool
	// initial: send the current state first; initialEnd: then the
	// initial-events-end bookmark (sendInitialEvents=true).
	initial, initialEnd bool
	timeout             time.Duration
}

func (h *typed[T]) watchParams(req *request) (watchParams, error) {
	q := req.r.URL.Query()
	p := watchParams{rv: q.Get("resourceVersion"), bookmarks: q.Get("allowWatchBookmarks") == "true",
		timeout: h.srv.opts.MaxWatchTimeout}
	if v := q.Get("timeoutSeconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return p, badRequest("timeoutSeconds: invalid value %q", v)
		}
		if d := time.Duration(n) * time.Second; n > 0 && d < p.timeout {
			p.timeout = d
		}
	}
	match := q.Get("resourceVersionMatch")
	switch sie := q.Get("sendInitialEvents"); sie {
	case "":
		if match != "" {
			return p, invalidQuery("resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")
		}
		// Kubernetes' legacy semantics: "" and "0" start with the
		// current state as ADDED events.
		p.initial = p.rv == "" || p.rv == "0"
	case "true", "false":
		if match != "NotOlderThan" {
			return p, invalidQuery("sendInitialEvents is forbidden for watch unless resourceVersionMatch is NotOlderThan")
		}
		if sie == "true" {
			if !p.bookmarks {
				return p, invalidQuery("sendInitialEvents requires allowWatchBookmarks=true")
			}
			p.initial, p.initialEnd = true, true
		}
	default:
		return p, badRequest("sendInitialEvents: invalid value %q", sie)
	}
	if p.rv == "0" {
		p.rv = ""
	}
	return p, nil
}

func (h *typed[T]) watch(req *request) {
	p, err := h.watchParams(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	lw, err := h.selected(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	ctx, cancel := context.WithTimeout(req.r.Context(), p.timeout)
	defer cancel()
	var initial []T
	start := p.rv
	if p.initial {
		l, err := lw.List(ctx, source.ListOptions{ResourceVersion: p.rv})
		if err != nil {
			h.fail(req, err)
			return
		}
		initial, start = l.Items, l.ResourceVersion
	}
	ch, werr := lw.Watch(ctx, source.WatchOptions{ResourceVersion: start, AllowBookmarks: p.bookmarks})

	w := req.w
	mode := acceptedAs(req.r)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush() // the client waits for the headers
	}
	enc := json.NewEncoder(w)
	send := func(typ string, obj any) bool {
		if err := enc.Encode(watchEvent{Type: typ, Object: obj}); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	fail := func(err error) {
		send("ERROR", toStatus(err, h.res, req.name))
	}
	if werr != nil {
		fail(werr)
		return
	}
	first := true
	encode := func(obj T) any {
		switch mode {
		case asTable:
			t := h.table(req, []T{obj}, "", "")
			if !first {
				t.ColumnDefinitions = nil
			}
			first = false
			return t
		case asMetadata:
			return partialMetadata(obj)
		}
		return obj
	}
	for _, obj := range initial {
		if !send("ADDED", encode(obj)) {
			return
		}
	}
	if p.initialEnd && !send("BOOKMARK", h.bookmark(mode, start, true)) {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-ch:
			if !ok {
				return
			}
			switch ev.Type {
			case source.Error:
				fail(ev.Err)
				return
			case source.Bookmark:
				if !p.bookmarks || mode == asTable {
					continue
				}
				if !send("BOOKMARK", h.bookmark(mode, ev.ResourceVersion, ev.InitialEventsEnd)) {
					return
				}
			default:
				if !send(eventTypes[ev.Type], encode(ev.Object)) {
					return
				}
			}
		}
	}
}

// bookmark returns the object of a BOOKMARK event at rv: an empty object
// of the kind with only its resourceVersion (and the initial-events-end
// annotation), as kube-apiserver sends.
func (h *typed[T]) bookmark(mode as, rv string, end bool) any {
	m := api.ObjectMeta{ResourceVersion: rv}
	if end {
		m.Annotations = map[string]string{InitialEventsEndAnnotation: "true"}
	}
	if mode == asMetadata {
		return partialObjectMetadata{TypeMeta: api.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"}, Metadata: &m}
	}
	return bookmarkObject{TypeMeta: api.TypeMeta{APIVersion: h.res.groupVersion(), Kind: h.res.kind}, Metadata: m}
}

// bookmarkObject is the body of a bookmark: apiVersion, kind, metadata.
type bookmarkObject struct {
	api.TypeMeta `json:",inline"`
	Metadata     api.ObjectMeta `json:"metadata"`
}

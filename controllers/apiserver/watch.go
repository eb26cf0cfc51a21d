package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
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
	p := watchParams{rv: q.Get("resourceVersion"), bookmarks: q.Get("allowWatchBookmarks") == "true"}
	if err := h.checkVersion(p.rv); err != nil {
		return p, err
	}
	// kube-apiserver's jitter: between the base and twice it.
	base := h.srv.opts.MaxWatchTimeout
	p.timeout = base + time.Duration(rand.Int64N(int64(base)))
	if v := q.Get("timeoutSeconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return p, badRequest("timeoutSeconds: invalid value %q", v)
		}
		if n > 0 {
			p.timeout = 2 * base
			if n < int64(p.timeout/time.Second) {
				p.timeout = time.Duration(n) * time.Second
			}
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
	if werr != nil && !errors.Is(werr, source.ErrExpired) {
		// Answered before the stream starts, as kube-apiserver does; a
		// version too old is an ERROR event, as its watch cache sends.
		h.fail(req, werr)
		return
	}

	w := req.w
	mode, protoMeta, _ := negotiateAs(req.r)
	if prefer, _ := acceptProtobuf(req.r); (prefer && mode == asObject && hasProtobuf(h.res)) || protoMeta {
		w = &protoWatchWriter{ResponseWriter: w}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush() // the client waits for the headers
	}
	enc := json.NewEncoder(w)
	var encode func(obj T) any
	flush := func() {
		if flusher != nil {
			flusher.Flush()
		}
	}
	send := func(typ string, obj any) bool {
		if err := enc.Encode(watchEvent{Type: typ, Object: obj}); err != nil {
			return false
		}
		flush()
		return true
	}
	fail := func(err error) {
		send("ERROR", toStatus(err, h.res, req.name))
	}
	if werr != nil {
		fail(werr)
		return
	}
	// sendObject sends an event of obj, encoded once for every watch of
	// it (Server.encoded) unless it is a Table, which is the request's own.
	sendObject := func(typ string, obj T) bool {
		if mode == asTable {
			return send(typ, encode(obj))
		}
		v, err := h.served(obj)
		if err != nil {
			fail(err)
			return false
		}
		if mode == asMetadata {
			v = partialMetadata(obj)
		}
		m := obj.GetObjectMeta()
		b, err := h.srv.encoded.get(encodeKey{resource: h.res.groupVersion() + "/" + h.res.name, key: api.NamespacedKey(m.Namespace, m.Name),
			rv: m.ResourceVersion, mode: mode}, v)
		if err != nil {
			return send(typ, v)
		}
		if _, err := io.WriteString(w, `{"type":"`+typ+`","object":`); err != nil {
			return false
		}
		if _, err := w.Write(b); err != nil {
			return false
		}
		if _, err := io.WriteString(w, "}\n"); err != nil {
			return false
		}
		flush()
		return true
	}
	first := true
	encode = func(obj T) any {
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
		if !sendObject("ADDED", obj) {
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
				if !sendObject(eventTypes[ev.Type], ev.Object) {
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

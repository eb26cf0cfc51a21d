package apiserver

import (
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/openapi"
)

// The OpenAPI documents (package openapi builds them from the Go types
// of the kinds served, their doc comments and the strategic-merge-patch
// metadata; a CustomResourceDefinition's kind from its schema) are built
// when first asked for and again only when the set of kinds served
// changes: a kind registered, a CustomResourceDefinition created,
// changed or deleted. Each is kept as JSON, gzipped and hashed; a request
// costs the lookup of the served kinds and a copy of bytes.

// openAPIDoc is one document as served.
type openAPIDoc struct {
	body, gz []byte
	hash     string // upper-case hex SHA-512 of body, as kube-apiserver's
}

func newOpenAPIDoc(body []byte) *openAPIDoc {
	sum := sha512.Sum512(body)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(body)
	zw.Close()
	return &openAPIDoc{body: body, gz: gz.Bytes(), hash: strings.ToUpper(fmt.Sprintf("%x", sum[:]))}
}

// openAPIDocs are the documents of one set of served kinds.
type openAPIDocs struct {
	key       string                 // the served kinds they describe
	v3        map[string]*openAPIDoc // by path: "api/v1", "apis/apps/v1"
	discovery *openAPIDoc            // /openapi/v3
	v2        *openAPIDoc
	err       error
}

// openAPICache holds the documents of the kinds served last asked for.
type openAPICache struct {
	mu   sync.Mutex
	docs *openAPIDocs
}

// openAPIResources returns the resources served now, and a key that
// changes when they do (a CustomResourceDefinition's resourceVersion
// included).
func (s *Server) openAPIResources() ([]openapi.Resource, string) {
	var rs []openapi.Resource
	var key strings.Builder
	for _, h := range s.served() {
		info := h.info()
		r := openapi.Resource{GroupVersionKind: info.gvk(), Resource: info.name, Namespaced: info.namespaced,
			Status: info.hasStatus, Scale: info.hasScale}
		fmt.Fprintf(&key, "%s/%s/%s/%s;", info.group, info.version, info.kind, info.name)
		if info.unstructured {
			if crd, ok := s.c.ServedDefinition(info.group, info.kind); ok {
				fmt.Fprintf(&key, "%s@%s;", crd.UID, crd.ResourceVersion)
				for _, v := range crd.Spec.Versions {
					if v.Name == info.version && v.Schema != nil {
						r.Schema = v.Schema.OpenAPIV3Schema
					}
				}
			}
		} else if info.servedType != nil {
			r.GoType = info.servedType // converted.go
		} else if ki, ok := api.InfoOf(info.gvk()); ok {
			r.GoType = ki.GoType()
		}
		if r.GoType == nil && !info.unstructured {
			continue
		}
		rs = append(rs, r)
	}
	return rs, key.String()
}

// openAPIDocuments returns the documents of the kinds served now,
// building them if those changed since the last call.
func (s *Server) openAPIDocuments() *openAPIDocs {
	rs, key := s.openAPIResources()
	s.openapi.mu.Lock()
	defer s.openapi.mu.Unlock()
	if d := s.openapi.docs; d != nil && d.key == key {
		return d
	}
	d := &openAPIDocs{key: key, v3: map[string]*openAPIDoc{}}
	built, err := openapi.Build(s.opts.Version, rs)
	if err != nil {
		d.err = err
	} else {
		paths := map[string]any{}
		for p, b := range built.V3 {
			doc := newOpenAPIDoc(b)
			d.v3[p] = doc
			paths[p] = map[string]string{"serverRelativeURL": "/openapi/v3/" + p + "?hash=" + doc.hash}
		}
		b, _ := json.Marshal(map[string]any{"paths": paths})
		d.discovery = newOpenAPIDoc(b)
		d.v2 = newOpenAPIDoc(built.V2)
	}
	s.openapi.docs = d
	return d
}

// serveOpenAPI serves /openapi/v2, /openapi/v3 and /openapi/v3/<path>;
// false when p is none of them.
func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request, p string) bool {
	var doc *openAPIDoc
	docs := s.openAPIDocuments()
	if docs.err != nil {
		writeError(w, newError(http.StatusInternalServerError, "InternalError", "openapi: "+docs.err.Error()), nil, "")
		return true
	}
	switch {
	case p == "/openapi/v2":
		if !acceptsJSON(r.Header.Get("Accept")) {
			// kubectl asks for the protobuf form first; it is not served.
			writeJSON(w, http.StatusNotAcceptable, newError(http.StatusNotAcceptable, "NotAcceptable",
				"only the following media types are accepted: application/json").status)
			return true
		}
		doc = docs.v2
	case p == "/openapi/v3":
		doc = docs.discovery
	default:
		gp, ok := strings.CutPrefix(p, "/openapi/v3/")
		if !ok || docs.v3[gp] == nil {
			return false
		}
		doc = docs.v3[gp]
		if h := r.URL.Query().Get("hash"); h != "" && h != doc.hash {
			// An outdated hash: kube-apiserver redirects to the current one.
			w.Header().Set("Location", "/openapi/v3/"+gp+"?hash="+doc.hash)
			w.WriteHeader(http.StatusMovedPermanently)
			return true
		} else if h != "" {
			w.Header().Set("Cache-Control", "public, immutable")
			w.Header().Set("Expires", "Sun, 01 Jan 2034 00:00:00 GMT")
		}
	}
	etag := `"` + doc.hash + `"`
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Etag", etag)
	w.Header().Set("Vary", "Accept, Accept-Encoding")
	if w.Header().Get("Cache-Control") == "" {
		w.Header().Set("Cache-Control", "no-cache, private")
	}
	if inm := r.Header.Get("If-None-Match"); inm != "" && slices.Contains(strings.Split(strings.ReplaceAll(inm, " ", ""), ","), etag) {
		w.WriteHeader(http.StatusNotModified)
		return true
	}
	body := doc.body
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		w.Header().Set("Content-Encoding", "gzip")
		body = doc.gz
	}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
	return true
}

// acceptsJSON reports whether an Accept header admits application/json
// (an empty one does).
func acceptsJSON(accept string) bool {
	if accept == "" {
		return true
	}
	for part := range strings.SplitSeq(accept, ",") {
		mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		switch strings.TrimSpace(mt) {
		case "application/json", "application/*", "*/*":
			return true
		}
	}
	return false
}

// acceptsGzip reports whether an Accept-Encoding header admits gzip.
func acceptsGzip(enc string) bool {
	for part := range strings.SplitSeq(enc, ",") {
		name, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.TrimSpace(name) == "gzip" && strings.ReplaceAll(q, " ", "") != "q=0" {
			return true
		}
	}
	return false
}

package apiserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver/protobuf"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/source"
)

// objectList is a PodList, DeploymentList, ...
type objectList[T any] struct {
	api.TypeMeta `json:",inline"`
	Metadata     ListMeta `json:"metadata"`
	Items        []T      `json:"items"`
}

// selected returns the store, filtered by the request's namespace, name
// (a watch of one object) and selectors.
func (h *typed[T]) selected(req *request) (source.ListWatcher[T], error) {
	q := req.r.URL.Query()
	sel := cluster.SelectOptions{LabelSelector: q.Get("labelSelector"), FieldSelector: q.Get("fieldSelector")}
	var extra []string
	if req.namespace != "" {
		extra = append(extra, "metadata.namespace="+req.namespace)
	}
	if req.name != "" {
		extra = append(extra, "metadata.name="+req.name)
	}
	if strings.TrimSpace(sel.FieldSelector) != "" {
		extra = append(extra, sel.FieldSelector)
	}
	sel.FieldSelector = strings.Join(extra, ",")
	if sel.LabelSelector == "" && sel.FieldSelector == "" {
		return h.store, nil
	}
	return h.store.Select(sel)
}

// listOptions reads resourceVersion, resourceVersionMatch, limit and
// continue with kube-apiserver's rules.
func listOptions(req *request) (source.ListOptions, error) {
	q := req.r.URL.Query()
	var o source.ListOptions
	rv, match := q.Get("resourceVersion"), q.Get("resourceVersionMatch")
	if v := q.Get("limit"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return o, badRequest("limit: invalid value %q", v)
		}
		o.Limit = n
	}
	o.Continue = q.Get("continue")
	if o.Continue != "" && rv != "" && rv != "0" {
		return o, badRequest("specifying resource version is not allowed when using continue")
	}
	switch match {
	case "":
		// Legacy: a paginated list at a version is exact.
		if rv != "" && rv != "0" && o.Limit > 0 {
			o.ResourceVersionMatch = source.Exact
		}
	case "NotOlderThan":
		if rv == "" {
			return o, invalidQuery("resourceVersionMatch is forbidden unless resourceVersion is provided")
		}
	case "Exact":
		if rv == "" || rv == "0" {
			return o, invalidQuery("resourceVersionMatch \"Exact\" is forbidden for resourceVersion \"0\" or unset")
		}
		o.ResourceVersionMatch = source.Exact
	default:
		return o, invalidQuery("resourceVersionMatch: unsupported value " + strconv.Quote(match))
	}
	if rv != "0" {
		o.ResourceVersion = rv
	}
	return o, nil
}

func invalidQuery(msg string) *apiError {
	return newError(http.StatusUnprocessableEntity, "Invalid", msg)
}

// checkVersion refuses a resourceVersion the store cannot read, with
// kube-apiserver's 400 BadRequest "invalid resource version".
func (h *typed[T]) checkVersion(rv string) error {
	if rv == "" || rv == "0" {
		return nil
	}
	if _, err := h.store.CompareResourceVersions(rv, rv); err != nil {
		return badRequest("invalid resource version: resourceVersion: Invalid value: %q: must be a non-negative decimal integer", rv)
	}
	return nil
}

// acquireList takes a slot of Options.MaxListsInFlight, waiting for one
// until ctx ends (429 TooManyRequests then); the caller calls release.
func (s *Server) acquireList(ctx context.Context) (release func(), err error) {
	if s.lists == nil {
		return func() {}, nil
	}
	select {
	case s.lists <- struct{}{}:
		return func() { <-s.lists }, nil
	case <-ctx.Done():
		return nil, tooManyRequests()
	}
}

// listStore lists lw under a slot of Options.MaxListsInFlight; release
// the slot once the list is written.
func (h *typed[T]) listStore(req *request, lw source.ListWatcher[T], opts source.ListOptions) (source.List[T], func(), error) {
	release, err := h.srv.acquireList(req.r.Context())
	if err != nil {
		return source.List[T]{}, nil, err
	}
	l, err := lw.List(req.r.Context(), opts)
	if err != nil {
		release()
		if errors.Is(err, source.ErrBadContinue) {
			return l, nil, badRequest("invalid continue token: continue key is not valid: %v", err)
		}
		return l, nil, err
	}
	return l, release, nil
}

func (h *typed[T]) list(req *request) {
	opts, err := listOptions(req)
	if err == nil {
		err = h.checkVersion(opts.ResourceVersion)
	}
	if err != nil {
		h.fail(req, err)
		return
	}
	lw, err := h.selected(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	l, release, err := h.listStore(req, lw, opts)
	if err != nil {
		h.fail(req, err)
		return
	}
	defer release()
	h.writeList(req, l)
}

func (h *typed[T]) writeList(req *request, l source.List[T]) {
	switch acceptedAs(req.r) {
	case asTable:
		writeJSON(req.w, http.StatusOK, h.table(req, l.Items, l.ResourceVersion, l.Continue))
	case asMetadata:
		items := make([]partialObjectMetadata, len(l.Items))
		for i, obj := range l.Items {
			items[i] = partialMetadata(obj)
		}
		writeJSON(req.w, http.StatusOK, objectList[partialObjectMetadata]{
			TypeMeta: api.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"},
			Metadata: ListMeta{ResourceVersion: l.ResourceVersion, Continue: l.Continue}, Items: items})
	default:
		h.streamList(req, l)
	}
}

// streamList writes a list one item at a time, so that the encoding of a
// large list is never held whole: the same JSON as objectList[T].
func (h *typed[T]) streamList(req *request, l source.List[T]) {
	head, err := json.Marshal(objectList[T]{
		TypeMeta: api.TypeMeta{APIVersion: h.res.groupVersion(), Kind: h.res.kind + "List"},
		Metadata: ListMeta{ResourceVersion: l.ResourceVersion, Continue: l.Continue}, Items: []T{}})
	if err != nil {
		h.fail(req, err)
		return
	}
	head = bytes.TrimSuffix(head, []byte("[]}"))
	req.w.Header().Set("Content-Type", "application/json")
	req.w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(req.w, 32<<10)
	bw.Write(head)
	bw.WriteByte('[')
	for i, obj := range l.Items {
		b, err := h.marshal(obj)
		if err != nil {
			// Too late for a Status: cut the answer short.
			h.srv.opts.Logger.Error("apiserver: encode a list item", "path", req.r.URL.Path, "err", err)
			return
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		if _, err := bw.Write(b); err != nil {
			return
		}
	}
	bw.WriteString("]}\n")
	bw.Flush()
}

// as is the representation an Accept header asks for.
type as int

const (
	asObject as = iota
	asTable
	asMetadata
)

// acceptedAs reads the first representation of the Accept header this
// server offers: a meta.k8s.io Table, PartialObjectMetadata, or the
// object itself.
func acceptedAs(r *http.Request) as {
	mode, _, _ := negotiateAs(r)
	return mode
}

// negotiateAs reads the first representation of the Accept header this
// server offers, as kube-apiserver's negotiation does: a meta.k8s.io
// Table in JSON, PartialObjectMetadata(List) in JSON or protobuf (proto),
// or the object itself (whose encoding acceptProtobuf decides). A
// protobuf Table is not offered (meta.k8s.io/v1 Table has no protobuf
// form): refused is true when the header asks for one and for nothing
// this server offers.
func negotiateAs(r *http.Request) (mode as, proto, refused bool) {
	protoTable, acceptable := false, false
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, params, _ := strings.Cut(part, ";")
		mt = strings.TrimSpace(mt)
		isProto := mt == protobuf.MediaType
		if mt != "application/json" && mt != "*/*" && mt != "application/*" && !isProto {
			acceptable = acceptable || mt == "application/yaml"
			continue
		}
		var asParam, group string
		for _, p := range strings.Split(params, ";") {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			switch k {
			case "as":
				asParam = v
			case "g":
				group = v
			}
		}
		switch {
		case asParam == "" && isProto:
			acceptable = true
			continue // the object in protobuf: acceptProtobuf's
		case asParam == "":
			return asObject, false, false
		case group != "meta.k8s.io":
			continue
		case asParam == "Table" && isProto:
			protoTable = true
		case asParam == "Table":
			return asTable, false, false
		case asParam == "PartialObjectMetadata" || asParam == "PartialObjectMetadataList":
			return asMetadata, isProto, false
		}
	}
	return asObject, false, protoTable && !acceptable
}

// notAcceptable is kube-apiserver's 406 for an Accept header it offers
// nothing of.
func notAcceptable() *apiError {
	return newError(http.StatusNotAcceptable, "NotAcceptable",
		"only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf")
}

// partialObjectMetadata is metav1.PartialObjectMetadata.
type partialObjectMetadata struct {
	api.TypeMeta `json:",inline"`
	Metadata     *api.ObjectMeta `json:"metadata"`
}

func partialMetadata(obj api.Object) partialObjectMetadata {
	return partialObjectMetadata{TypeMeta: api.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"},
		Metadata: obj.GetObjectMeta()}
}

package apiserver

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// converter serves a kind's store in another version of the kind than
// the stored one, as kube-apiserver serves a resource in several
// versions over one storage: every object read is converted to the
// served version's form before it is written to the client, every body
// is decoded in that form and converted back before it is stored, and
// patches apply to the served form. The resourceVersion, the uid and
// the rest of the metadata are the stored object's: a client of either
// version sees the same object, conflicts included.
type converter[T api.Object] struct {
	// stored is the stored version's kind, what a field manager
	// records.
	stored api.GroupVersionKind
	// toServed converts a stored object to the served version's form
	// (not modifying it).
	toServed func(T) (any, error)
	// fromServed decodes one object of the served version (JSON or YAML;
	// a field its type does not define is an error when strict), applies
	// the version's defaults and converts it to the stored form.
	fromServed func(b []byte, strict bool) (T, error)
}

// servedConversions serves the versions kube-apiserver serves over the
// storage of another: autoscaling/v1 HorizontalPodAutoscaler over the
// autoscaling/v2 store. registerAll calls it once the built-in kinds are
// registered.
func servedConversions(s *Server, c *cluster.Cluster) error {
	return serveConverted(s, c, "v1", reflect.TypeFor[*api.HorizontalPodAutoscalerV1](),
		converter[*api.HorizontalPodAutoscaler]{toServed: hpaV1Out, fromServed: hpaV1In})
}

// serveConverted adds the handler of T's store served in version, whose
// objects have the Go type served (what OpenAPI describes), listed (in
// discovery) right after the stored version's.
func serveConverted[T api.Object](s *Server, c *cluster.Cluster, version string, served reflect.Type, conv converter[T]) error {
	st, ok := cluster.StoreFor[T](c)
	if !ok {
		var zero T
		return fmt.Errorf("apiserver: the cluster has no store of %T", zero)
	}
	ki, ok := api.InfoFor[T]()
	if !ok {
		var zero T
		return fmt.Errorf("apiserver: %T is not a registered kind", zero)
	}
	res := newResourceInfo(&ki)
	conv.stored = res.gvk()
	res.version, res.servedType = version, served
	h := &typed[T]{srv: s, store: st, res: res, conv: &conv}
	i := slices.IndexFunc(s.builtins, func(b handler) bool { return b.info().gvk() == conv.stored })
	s.builtins = slices.Insert(s.builtins, i+1, handler(h))
	return nil
}

// served returns obj as the response holds it: in the served version's
// form when the handler converts.
func (h *typed[T]) served(obj T) (any, error) {
	if h.conv == nil {
		return obj, nil
	}
	return h.conv.toServed(obj)
}

// marshal is obj's JSON as the response holds it.
func (h *typed[T]) marshal(obj T) ([]byte, error) {
	v, err := h.served(obj)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// storedGVK is the kind of the objects of the handler's store.
func (h *typed[T]) storedGVK() api.GroupVersionKind {
	if h.conv != nil {
		return h.conv.stored
	}
	return h.res.gvk()
}

// decodeConverted decodes a body of the served version of a converting
// handler: kube-apiserver's 400 when its apiVersion or kind is another.
func (h *typed[T]) decodeConverted(b []byte, strict bool) (T, error) {
	var zero T
	var tm api.TypeMeta
	if err := api.DecodeInto(b, &tm, h.res.kind, api.DecodeOptions{Lenient: true, Source: "request body"}); err != nil {
		return zero, badRequest("%v", err)
	}
	if tm.Kind == "" {
		return zero, badRequest("Object 'Kind' is missing in '%s'", truncate(b, 200))
	}
	if tm.APIVersion != h.res.groupVersion() {
		return zero, badRequest("the API version in the data (%s) does not match the expected API version (%s)", tm.APIVersion, h.res.groupVersion())
	}
	if tm.Kind != h.res.kind {
		return zero, badRequest("the body is a %s, the resource %s holds %s", tm.Kind, h.res.name, h.res.kind)
	}
	return h.conv.fromServed(b, strict)
}

// hpaV1Out is autoscaling/v1's form of a stored HorizontalPodAutoscaler.
func hpaV1Out(obj *api.HorizontalPodAutoscaler) (any, error) {
	return hpaToV1(obj)
}

// hpaV1In decodes an autoscaling/v1 HorizontalPodAutoscaler, defaults it
// and converts it to autoscaling/v2.
func hpaV1In(b []byte, strict bool) (*api.HorizontalPodAutoscaler, error) {
	v1 := &api.HorizontalPodAutoscalerV1{}
	if err := api.DecodeInto(b, v1, "HorizontalPodAutoscaler", api.DecodeOptions{Lenient: !strict, Source: "request body"}); err != nil {
		return nil, badRequest("%v", err)
	}
	defaultHPAV1(v1)
	return hpaFromV1(v1), nil
}

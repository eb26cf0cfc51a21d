// Package protobuf converts between Kubernetes' protobuf encoding
// (application/vnd.kubernetes.protobuf) and JSON, so that the API
// server can read and write it with its one JSON path to Go types and
// without a protobuf library: a request body is decoded to JSON, then
// decoded as JSON; a response is encoded as JSON, then re-encoded here.
//
// # Descriptors
//
// The conversion is driven by a table of message descriptors
// (zz_generated_descriptors.go): for each protobuf message, its fields'
// numbers, JSON names and types, read by kube/internal/protogen off the
// struct tags of the k8s.io/api and k8s.io/apimachinery v0.37.2 Go
// types. The table covers every built-in kind of controllers/api that
// client-go knows (all but CustomResourceDefinition), their lists,
// autoscaling/v1 Scale, autoscaling/v1 HorizontalPodAutoscaler (and its
// list: the older version of the autoscaling/v2 kind), policy/v1 Eviction
// and meta/v1 Status, DeleteOptions, WatchEvent, PartialObjectMetadata
// and PartialObjectMetadataList; Has says whether a kind is covered.
// meta/v1 Table has no protobuf message (+protobuf=false upstream).
// Kinds registered with api.Register, custom resources and
// CustomResourceDefinitions have no protobuf form.
//
// # Conversion
//
// Fields are matched by JSON name: JSON keys no field has are not
// encoded (apiVersion and kind travel in the envelope), protobuf fields
// the table does not know are skipped, and absent or null fields are
// not encoded. The custom-marshalled Kubernetes types have their JSON
// shapes (Shape): metav1.Time and MicroTime are RFC 3339 strings,
// metav1.Duration a Go duration string, resource.Quantity a string,
// intstr.IntOrString a number or string, runtime.RawExtension and
// metav1.FieldsV1 embedded JSON; bytes are base64 strings as in JSON.
// Input that is not valid protobuf, or JSON that does not fit a message,
// is an error wrapping ErrMalformed; messages nest at most MaxDepth
// deep. Nothing here panics on any input.
//
// # Envelope and watch streams
//
// Marshal and Unmarshal encode and decode a whole document: Magic, then
// a runtime.Unknown{typeMeta{apiVersion, kind}, raw} whose raw is the
// object's message. A watch stream
// (application/vnd.kubernetes.protobuf;stream=watch) is a sequence of
// frames, each a 4-byte big-endian length then a metav1.WatchEvent{type,
// object{raw}}, without envelope, whose raw is the enveloped object
// (MarshalWatchEvent, UnmarshalWatchEvent).
package protobuf

// Command protogen writes controllers/apiserver/protobuf's descriptor
// table (zz_generated_descriptors.go): for every built-in kind of
// controllers/api that Kubernetes serves in protobuf, its list, and the
// meta/v1, autoscaling/v1 Scale, autoscaling/v1 HorizontalPodAutoscaler
// (and its list), policy/v1 Eviction and meta/v1 PartialObjectMetadata
// (and its list) messages, each protobuf
// message's fields, read by reflection off the protobuf:,
// protobuf_key:, protobuf_val: and json: struct tags of the k8s.io/api
// and k8s.io/apimachinery Go types. Run it with go generate in the kube
// module (TestDescriptorsUpToDate fails while the committed table is
// stale):
//
//	go run ./internal/protogen
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"
)

//go:generate go run .

// Output is where the table is written, relative to this directory.
const Output = "../../../controllers/apiserver/protobuf/zz_generated_descriptors.go"

func main() {
	out := flag.String("o", Output, "output file")
	flag.Parse()
	src, err := Generate()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
}

// shapes are the custom-marshalled types and their JSON shapes.
var shapes = map[reflect.Type]string{
	reflect.TypeFor[metav1.Time]():          "Time",
	reflect.TypeFor[metav1.MicroTime]():     "MicroTime",
	reflect.TypeFor[metav1.Duration]():      "Duration",
	reflect.TypeFor[resource.Quantity]():    "Quantity",
	reflect.TypeFor[intstr.IntOrString]():   "IntOrString",
	reflect.TypeFor[runtime.RawExtension](): "RawJSON",
	reflect.TypeFor[metav1.FieldsV1]():      "RawJSON",
}

type field struct {
	num                                 int
	name, typ, msg                      string
	repeated, isMap, isInline, nullable bool
}

type gen struct {
	msgs  map[string][]field
	shape map[string]string
}

func messageName(t reflect.Type) string {
	return strings.ReplaceAll(t.PkgPath(), "/", ".") + "." + t.Name()
}

// message records t's message (and those it refers to) and returns its name.
func (g *gen) message(t reflect.Type) (string, error) {
	name := messageName(t)
	if _, ok := g.msgs[name]; ok {
		return name, nil
	}
	if s, ok := shapes[t]; ok {
		g.msgs[name], g.shape[name] = nil, s
		return name, nil
	}
	if t.Kind() != reflect.Struct {
		return "", fmt.Errorf("%v is not a struct", t)
	}
	g.msgs[name] = nil // cycles (JSONSchemaProps-like) end here
	var fs []field
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("protobuf")
		if tag == "" {
			continue
		}
		f, err := g.field(t, sf, tag)
		if err != nil {
			return "", err
		}
		fs = append(fs, f)
	}
	slices.SortFunc(fs, func(a, b field) int { return a.num - b.num })
	g.msgs[name] = fs
	return name, nil
}

func (g *gen) field(t reflect.Type, sf reflect.StructField, tag string) (field, error) {
	parts := strings.Split(tag, ",")
	if len(parts) < 3 {
		return field{}, fmt.Errorf("%v.%s: bad protobuf tag %q", t, sf.Name, tag)
	}
	num, err := strconv.Atoi(parts[1])
	if err != nil {
		return field{}, fmt.Errorf("%v.%s: bad protobuf tag %q", t, sf.Name, tag)
	}
	jsonName, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
	f := field{num: num, name: jsonName}
	if jsonName == "" && sf.Anonymous { // embedded: encoding/json inlines it
		f.isInline = true
	} else if jsonName == "" || jsonName == "-" {
		return field{}, fmt.Errorf("%v.%s: protobuf field without a JSON name", t, sf.Name)
	}
	ft := sf.Type
	if ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
		f.nullable = true
	}
	// The tag's wire type is not always the one the generated code
	// writes (SecretVolumeSource.defaultMode says bytes, is a varint):
	// the Go type decides, and the differential tests check it.
	switch {
	case ft.Kind() == reflect.Map:
		if ft.Key().Kind() != reflect.String {
			return field{}, fmt.Errorf("%v.%s: map key %v", t, sf.Name, ft.Key())
		}
		f.isMap, f.repeated = true, false
		ft = ft.Elem()
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
	case ft.Kind() == reflect.Slice && ft.Elem().Kind() != reflect.Uint8:
		f.repeated = true // the tags are not always right ("opt" on ISCSIVolumeSource.portals)
		ft = ft.Elem()
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
	}
	switch ft.Kind() {
	case reflect.String:
		f.typ = "String"
	case reflect.Bool:
		f.typ = "Bool"
	case reflect.Int32:
		f.typ = "Int32"
	case reflect.Int64:
		f.typ = "Int64"
	case reflect.Uint32:
		f.typ = "Uint32"
	case reflect.Uint64:
		f.typ = "Uint64"
	case reflect.Float64:
		f.typ = "Double"
	case reflect.Float32:
		f.typ = "Float"
	case reflect.Slice: // []byte
		f.typ = "Bytes"
	case reflect.Struct:
		f.typ = "Message"
		if f.msg, err = g.message(ft); err != nil {
			return field{}, err
		}
	default:
		return field{}, fmt.Errorf("%v.%s: Go type %v has no protobuf type here", t, sf.Name, ft)
	}
	if f.isInline && f.typ != "Message" {
		return field{}, fmt.Errorf("%v.%s: inline non-message", t, sf.Name)
	}
	return f, nil
}

// Generate returns the source of zz_generated_descriptors.go.
func Generate() ([]byte, error) {
	g := &gen{msgs: map[string][]field{}, shape: map[string]string{}}
	kinds := map[string]string{}
	add := func(key string, t reflect.Type) error {
		name, err := g.message(t)
		kinds[key] = name
		return err
	}
	for _, gvk := range api.Kinds() {
		for _, kind := range []string{gvk.Kind, gvk.Kind + "List"} {
			sgvk := schema.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: kind}
			t, ok := scheme.Scheme.AllKnownTypes()[sgvk]
			if !ok {
				continue // not in client-go (CustomResourceDefinition): JSON only
			}
			if err := add(sgvk.GroupVersion().String()+"/"+kind, t); err != nil {
				return nil, err
			}
		}
	}
	for key, t := range map[string]reflect.Type{
		"autoscaling/v1/Scale": reflect.TypeFor[autoscalingv1.Scale](),
		// autoscaling/v1's form of the autoscaling/v2 HorizontalPodAutoscaler
		// (kubectl autoscale sends it).
		"autoscaling/v1/HorizontalPodAutoscaler":     reflect.TypeFor[autoscalingv1.HorizontalPodAutoscaler](),
		"autoscaling/v1/HorizontalPodAutoscalerList": reflect.TypeFor[autoscalingv1.HorizontalPodAutoscalerList](),
		"policy/v1/Eviction":                         reflect.TypeFor[policyv1.Eviction](),
		// The reviews, answered and not stored (kubectl auth can-i, whoami).
		"authorization.k8s.io/v1/SelfSubjectAccessReview":  reflect.TypeFor[authorizationv1.SelfSubjectAccessReview](),
		"authorization.k8s.io/v1/SubjectAccessReview":      reflect.TypeFor[authorizationv1.SubjectAccessReview](),
		"authorization.k8s.io/v1/LocalSubjectAccessReview": reflect.TypeFor[authorizationv1.LocalSubjectAccessReview](),
		"authorization.k8s.io/v1/SelfSubjectRulesReview":   reflect.TypeFor[authorizationv1.SelfSubjectRulesReview](),
		"authentication.k8s.io/v1/SelfSubjectReview":       reflect.TypeFor[authenticationv1.SelfSubjectReview](),
		"authentication.k8s.io/v1/TokenReview":             reflect.TypeFor[authenticationv1.TokenReview](),
		// A service account's token subresource (kubectl create token).
		"authentication.k8s.io/v1/TokenRequest": reflect.TypeFor[authenticationv1.TokenRequest](),
		"*/Status":                              reflect.TypeFor[metav1.Status](),
		"*/DeleteOptions":                       reflect.TypeFor[metav1.DeleteOptions](),
		"*/WatchEvent":                          reflect.TypeFor[metav1.WatchEvent](),
		// The metadata-only forms (client-go's metadata client asks for
		// them in protobuf). Table has no protobuf form (+protobuf=false).
		"meta.k8s.io/v1/PartialObjectMetadata":     reflect.TypeFor[metav1.PartialObjectMetadata](),
		"meta.k8s.io/v1/PartialObjectMetadataList": reflect.TypeFor[metav1.PartialObjectMetadataList](),
	} {
		if err := add(key, t); err != nil {
			return nil, err
		}
	}

	for t := range shapes { // every shape, used or not, so each is tested
		if _, err := g.message(t); err != nil {
			return nil, err
		}
	}

	var b bytes.Buffer
	b.WriteString("// Code generated by kube/internal/protogen from the protobuf tags of k8s.io/api and\n" +
		"// k8s.io/apimachinery v0.37.2. DO NOT EDIT.\n\npackage protobuf\n\n")
	b.WriteString("// kinds maps apiVersion/kind (*/kind: any apiVersion) to its message.\nvar kinds = map[string]string{\n")
	for _, k := range sortedKeys(kinds) {
		fmt.Fprintf(&b, "%q: %q,\n", k, kinds[k])
	}
	b.WriteString("}\n\n// messages are the protobuf messages by name.\nvar messages = map[string]*MessageType{\n")
	for _, name := range sortedKeys(g.msgs) {
		fmt.Fprintf(&b, "%q: {", name)
		if s := g.shape[name]; s != "" {
			fmt.Fprintf(&b, "Shape: %s", s)
		} else {
			b.WriteString("Fields: []Field{\n")
			for _, f := range g.msgs[name] {
				fmt.Fprintf(&b, "{Num: %d, Name: %q, Type: %s", f.num, f.name, f.typ)
				if f.msg != "" {
					fmt.Fprintf(&b, ", Message: %q", f.msg)
				}
				if f.repeated {
					b.WriteString(", Repeated: true")
				}
				if f.isMap {
					b.WriteString(", Map: true")
				}
				if f.isInline {
					b.WriteString(", Inline: true")
				}
				if f.nullable {
					b.WriteString(", Nullable: true")
				}
				b.WriteString("},\n")
			}
			b.WriteString("}")
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

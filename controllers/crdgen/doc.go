// Package crdgen generates the CustomResourceDefinition
// (apiextensions.k8s.io/v1) of a kind from its Go type, so that the type
// that serves the kind in tests installs it on a real cluster:
//
//	crd, err := crdgen.Generate(info, reflect.TypeFor[*v1.Widget](), crdgen.Options{Dir: "api/v1"})
//	err = crdgen.WriteYAML(os.Stdout, crd)
//
// or, from the command line, cmd/crdgen (go run
// github.com/ctrlkit/ctrlkit/controllers/crdgen/cmd/crdgen -dir ./api/v1
// -type Widget -group example.com).
//
// # The definition
//
// Generate's api.KindInfo gives the group, version, kind, plural resource
// (default: Plural of the kind), scope, short names, categories and the
// status and scale subresources. The definition is named
// <plural>.<group> and has one version, served and stored; singular is
// the lower-case kind and listKind the kind + "List". The root type's
// markers fill in what the KindInfo leaves empty, spelt as kubebuilder
// spells them:
//
//	+kubebuilder:resource:path=widgets,scope=Namespaced,shortName=wd;wdg,categories=all
//	+kubebuilder:subresource:status
//	+kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
//	+kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=".status.readyReplicas",priority=1,description="…",format=int32
//
// A scope marker wins over KindInfo.Namespaced (whose zero value cannot
// say "unset"); a scale subresource without its marker uses
// .spec.replicas and .status.replicas. Printer columns come from the
// markers, then Options.Columns (api.Column has no JSON path).
//
// # The schema
//
// The structure comes from the Go type by reflection; descriptions and
// markers from the source of the type's package in Options.Dir, parsed
// with go/parser (reflection cannot see comments). Without Dir the schema
// has neither. Only the types of the root type's package have
// descriptions and markers; types of other packages (api.LabelSelector,
// api.PodTemplateSpec, …) get their structure only.
//
//   - Fields are named by their json tags; `json:"-"` and unexported
//     fields are skipped; embedded structs without a name are inlined.
//     A field is required unless it is a pointer or has omitempty or
//     omitzero; +optional or +kubebuilder:validation:Optional make it
//     optional, +required or +kubebuilder:validation:Required required.
//   - string, bool, integers (int32 and int64 with their format), floats
//     (number, float or double), slices (array; []byte is a string of
//     format byte), maps with string keys (object with
//     additionalProperties), structs (object with properties), pointers
//     (their element). api.Time, api.MicroTime and time.Time are strings
//     of format date-time; api.Quantity and api.IntOrString are
//     x-kubernetes-int-or-string (anyOf integer, string), so an
//     api.ResourceList is a map of them; interface values and
//     json.RawMessage preserve unknown fields. A recursive type, a map
//     with a non-string key, a channel or a function is an error.
//   - At the root, apiVersion and kind are strings and metadata is type
//     object only, as in kube's generated CRDs (the API server validates
//     metadata itself); so is the metadata of an embedded object
//     (a pod template's).
//   - The description of a field is its doc comment, else its type's;
//     marker lines are not part of it. A named type's markers apply
//     wherever it is used, then the field's.
//
// Schema markers: +kubebuilder:validation: Minimum, Maximum,
// ExclusiveMinimum, ExclusiveMaximum, MultipleOf, MinLength, MaxLength,
// Pattern, Format, Type, Enum (values separated by ";", each JSON or a
// bare string), MinItems, MaxItems, UniqueItems, MinProperties,
// MaxProperties, Nullable, EmbeddedResource, XIntOrString, Optional,
// Required, and XValidation:rule="…",message="…"[,messageExpression,
// reason, fieldPath, optionalOldSelf]; +kubebuilder:default=VALUE (JSON
// or a bare string), +kubebuilder:example, +kubebuilder:pruning:
// PreserveUnknownFields, +listType, +listMapKey (repeatable), +mapType,
// +optional, +required. Markers of other tools (+k8s:…, +genclient) are
// ignored; an unknown +kubebuilder:validation marker or a malformed value
// is an error naming the type and field, never a silently missing rule.
// So are list markers kube-apiserver would reject: a list type other than
// atomic, set or map, a set of objects or arrays, a map list without
// keys, a key that is not a scalar field of the items that is required
// or defaulted, a key without listType=map. Two fields with one JSON
// name at the same embedding depth are an error too (encoding/json would
// drop both); a shallower one hides a deeper one, as in encoding/json.
//
// # Definitions
//
// Definitions makes the schemas of an OpenAPI document (what
// controllers/openapi serves) by the same rules: each named type that
// DefinitionOptions.Name names becomes a definition, referenced by its
// bare name ($ref) wherever it is used, with the field's description
// beside the reference; a type may then reach itself, and ObjectMeta is
// a full definition. The doc comments and markers come from
// DefinitionOptions.Comments, which ParseComments reads from a package's
// source (a generator may write them into the program, which has no
// source at run time); list markers are checked once every definition is
// made.
//
// The result is a structural schema (every node has a type, except
// int-or-string and preserve-unknown-fields nodes) that api.Decode reads
// back strictly; WriteYAML writes it as one YAML document.
package crdgen

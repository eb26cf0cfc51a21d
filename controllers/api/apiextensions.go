package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
)

// CustomResourceDefinition (apiextensions.k8s.io/v1) defines a kind that
// the API server serves from the definition alone: its names, scope,
// versions, each version's OpenAPI v3 schema, subresources and printer
// columns. The field names and JSON shapes are kube's, so every CRD
// published for a real cluster decodes strictly and encodes back to the
// same document.
type CustomResourceDefinition struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`
	// Spec describes how the kind is served.
	Spec CustomResourceDefinitionSpec `json:"spec"`
	// Status is what the API server reports about the definition.
	Status CustomResourceDefinitionStatus `json:"status,omitzero"`
}

// The scopes of a custom resource (CustomResourceDefinitionSpec.Scope).
const (
	ClusterScoped   ResourceScope = "Cluster"
	NamespaceScoped ResourceScope = "Namespaced"
)

// ResourceScope is the scope of a custom resource: "Cluster" or
// "Namespaced".
type ResourceScope string

// CustomResourceDefinitionSpec is the spec of a CustomResourceDefinition.
type CustomResourceDefinitionSpec struct {
	// Group is the API group of the kind ("stable.example.com"); the
	// definition's name must be <names.plural>.<group>.
	Group string `json:"group"`
	// Names are the resource and kind names.
	Names CustomResourceDefinitionNames `json:"names"`
	// Scope is Cluster or Namespaced.
	Scope ResourceScope `json:"scope"`
	// Versions are the served versions; exactly one has Storage set.
	Versions []CustomResourceDefinitionVersion `json:"versions"`
	// Conversion says how objects are converted between versions.
	Conversion *CustomResourceConversion `json:"conversion,omitempty"`
	// PreserveUnknownFields keeps fields the schema does not define
	// (deprecated; must be false in v1).
	PreserveUnknownFields bool `json:"preserveUnknownFields,omitempty"`
}

// CustomResourceDefinitionNames are the names of a custom resource.
type CustomResourceDefinitionNames struct {
	// Plural is the resource name, the URL segment ("widgets").
	Plural string `json:"plural"`
	// Singular is the singular name ("widget"); the lower-case kind by
	// default.
	Singular string `json:"singular,omitempty"`
	// ShortNames are kubectl's short names ("wd").
	ShortNames []string `json:"shortNames,omitempty"`
	// Kind is the kind ("Widget").
	Kind string `json:"kind"`
	// ListKind is the kind of lists ("WidgetList"); Kind+"List" by default.
	ListKind string `json:"listKind,omitempty"`
	// Categories are the discovery categories ("all").
	Categories []string `json:"categories,omitempty"`
}

// CustomResourceDefinitionVersion is one version of a custom resource.
type CustomResourceDefinitionVersion struct {
	// Name is the version ("v1", "v1beta1").
	Name string `json:"name"`
	// Served says whether the API serves the version.
	Served bool `json:"served"`
	// Storage marks the one version objects are stored at.
	Storage bool `json:"storage"`
	// Deprecated makes the API server warn on requests to the version.
	Deprecated bool `json:"deprecated,omitempty"`
	// DeprecationWarning replaces the default deprecation warning.
	DeprecationWarning *string `json:"deprecationWarning,omitempty"`
	// Schema is the version's validation schema.
	Schema *CustomResourceValidation `json:"schema,omitempty"`
	// Subresources are the version's status and scale subresources.
	Subresources *CustomResourceSubresources `json:"subresources,omitempty"`
	// AdditionalPrinterColumns are the columns of the version's tables.
	AdditionalPrinterColumns []CustomResourceColumnDefinition `json:"additionalPrinterColumns,omitempty"`
	// SelectableFields are the fields field selectors may name.
	SelectableFields []SelectableField `json:"selectableFields,omitempty"`
}

// SelectableField is a field of a custom resource that field selectors
// may name.
type SelectableField struct {
	// JSONPath is the field's simple JSON path (".spec.color").
	JSONPath string `json:"jsonPath"`
}

// CustomResourceColumnDefinition is a printer column of a custom resource.
type CustomResourceColumnDefinition struct {
	// Name is the column's header.
	Name string `json:"name"`
	// Type is the OpenAPI type of the cells: integer, number, string,
	// boolean or date.
	Type string `json:"type"`
	// Format is the OpenAPI format of the cells.
	Format string `json:"format,omitempty"`
	// Description is the column's description.
	Description string `json:"description,omitempty"`
	// Priority is 0 for columns always shown, more for -o wide.
	Priority int32 `json:"priority,omitempty"`
	// JSONPath is the simple JSON path of each row's value.
	JSONPath string `json:"jsonPath"`
}

// The conversion strategies of a custom resource.
const (
	NoneConverter    ConversionStrategyType = "None"
	WebhookConverter ConversionStrategyType = "Webhook"
)

// ConversionStrategyType is how objects of a custom resource are converted
// between versions: "None" or "Webhook".
type ConversionStrategyType string

// CustomResourceConversion says how objects of a custom resource are
// converted between versions.
type CustomResourceConversion struct {
	// Strategy is None (only apiVersion changes) or Webhook.
	Strategy ConversionStrategyType `json:"strategy"`
	// Webhook configures the conversion webhook; set only with Webhook.
	Webhook *WebhookConversion `json:"webhook,omitempty"`
}

// WebhookConversion configures a conversion webhook.
type WebhookConversion struct {
	// ClientConfig says how to reach the webhook.
	ClientConfig *ConversionWebhookClientConfig `json:"clientConfig,omitempty"`
	// ConversionReviewVersions are the ConversionReview versions the
	// webhook accepts, in order of preference.
	ConversionReviewVersions []string `json:"conversionReviewVersions"`
}

// ConversionWebhookClientConfig says how to reach a conversion webhook:
// a URL or a service, with the CA bundle to trust (apiextensions/v1
// WebhookClientConfig; its JSON is admissionregistration/v1's).
type ConversionWebhookClientConfig struct {
	// URL is the webhook's https URL.
	URL *string `json:"url,omitempty"`
	// Service is the webhook's service.
	Service *ConversionServiceReference `json:"service,omitempty"`
	// CABundle is the PEM bundle of the CAs that sign the webhook's
	// certificate (base64 in JSON).
	CABundle []byte `json:"caBundle,omitempty"`
}

// ConversionServiceReference names the service of a conversion webhook
// (apiextensions/v1 ServiceReference).
type ConversionServiceReference struct {
	// Namespace is the service's namespace.
	Namespace string `json:"namespace"`
	// Name is the service's name.
	Name string `json:"name"`
	// Path is the URL path of the webhook.
	Path *string `json:"path,omitempty"`
	// Port is the service port (443 by default).
	Port *int32 `json:"port,omitempty"`
}

// CustomResourceValidation holds a version's schema.
type CustomResourceValidation struct {
	// OpenAPIV3Schema is the schema of the version's objects.
	OpenAPIV3Schema *JSONSchemaProps `json:"openAPIV3Schema,omitempty"`
}

// CustomResourceSubresources are the subresources of a version.
type CustomResourceSubresources struct {
	// Status enables the status subresource.
	Status *CustomResourceSubresourceStatus `json:"status,omitempty"`
	// Scale enables the scale subresource.
	Scale *CustomResourceSubresourceScale `json:"scale,omitempty"`
}

// CustomResourceSubresourceStatus enables the status subresource (it has
// no fields: "status: {}").
type CustomResourceSubresourceStatus struct{}

// CustomResourceSubresourceScale says where the scale subresource finds
// its values in an object.
type CustomResourceSubresourceScale struct {
	// SpecReplicasPath is the JSON path of the desired replicas
	// (".spec.replicas").
	SpecReplicasPath string `json:"specReplicasPath"`
	// StatusReplicasPath is the JSON path of the observed replicas
	// (".status.replicas").
	StatusReplicasPath string `json:"statusReplicasPath"`
	// LabelSelectorPath is the JSON path of the pod selector in
	// label-selector string form (".status.selector").
	LabelSelectorPath *string `json:"labelSelectorPath,omitempty"`
}

// CustomResourceDefinitionStatus is the status of a
// CustomResourceDefinition.
type CustomResourceDefinitionStatus struct {
	// Conditions are Established, NamesAccepted, Terminating, ….
	Conditions []CustomResourceDefinitionCondition `json:"conditions,omitempty"`
	// AcceptedNames are the names the API server serves.
	AcceptedNames CustomResourceDefinitionNames `json:"acceptedNames"`
	// StoredVersions are the versions objects were ever stored at.
	StoredVersions []string `json:"storedVersions"`
}

// The condition types of a CustomResourceDefinition.
const (
	Established         CustomResourceDefinitionConditionType = "Established"
	NamesAccepted       CustomResourceDefinitionConditionType = "NamesAccepted"
	NonStructuralSchema CustomResourceDefinitionConditionType = "NonStructuralSchema"
	Terminating         CustomResourceDefinitionConditionType = "Terminating"
)

// CustomResourceDefinitionConditionType is the type of a condition of a
// CustomResourceDefinition.
type CustomResourceDefinitionConditionType string

// CustomResourceDefinitionCondition is one condition of a
// CustomResourceDefinition.
type CustomResourceDefinitionCondition struct {
	// Type is the condition's type.
	Type CustomResourceDefinitionConditionType `json:"type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitzero"`
	// Reason is a CamelCase reason for the last transition.
	Reason string `json:"reason,omitempty"`
	// Message is a human-readable message about the last transition.
	Message string `json:"message,omitempty"`
}

// JSONSchemaProps is an OpenAPI v3 schema as CustomResourceDefinitions
// carry it: every field of kube's apiextensions/v1 JSONSchemaProps, with
// its JSON name and shape.
type JSONSchemaProps struct {
	// ID is the schema's id.
	ID string `json:"id,omitempty"`
	// Schema is the $schema URL.
	Schema string `json:"$schema,omitempty"`
	// Ref is a $ref (not allowed in CRDs; kept for fidelity).
	Ref *string `json:"$ref,omitempty"`
	// Description documents the node.
	Description string `json:"description,omitempty"`
	// Type is object, array, string, integer, number or boolean.
	Type string `json:"type,omitempty"`
	// Format is the OpenAPI format (int32, date-time, byte, …).
	Format string `json:"format,omitempty"`
	// Title is the node's title.
	Title string `json:"title,omitempty"`
	// Default is the value defaulting sets when the field is absent.
	Default *JSON `json:"default,omitempty"`
	// Maximum bounds numbers from above.
	Maximum *float64 `json:"maximum,omitempty"`
	// ExclusiveMaximum makes Maximum exclusive.
	ExclusiveMaximum bool `json:"exclusiveMaximum,omitempty"`
	// Minimum bounds numbers from below.
	Minimum *float64 `json:"minimum,omitempty"`
	// ExclusiveMinimum makes Minimum exclusive.
	ExclusiveMinimum bool `json:"exclusiveMinimum,omitempty"`
	// MaxLength bounds the length of strings.
	MaxLength *int64 `json:"maxLength,omitempty"`
	// MinLength bounds the length of strings from below.
	MinLength *int64 `json:"minLength,omitempty"`
	// Pattern is an ECMA 262 regular expression strings must match.
	Pattern string `json:"pattern,omitempty"`
	// MaxItems bounds the length of arrays.
	MaxItems *int64 `json:"maxItems,omitempty"`
	// MinItems bounds the length of arrays from below.
	MinItems *int64 `json:"minItems,omitempty"`
	// UniqueItems requires distinct array items.
	UniqueItems bool `json:"uniqueItems,omitempty"`
	// MultipleOf requires numbers to be multiples of it.
	MultipleOf *float64 `json:"multipleOf,omitempty"`
	// Enum lists the allowed values.
	Enum []JSON `json:"enum,omitempty"`
	// MaxProperties bounds the number of an object's properties.
	MaxProperties *int64 `json:"maxProperties,omitempty"`
	// MinProperties bounds the number of an object's properties from below.
	MinProperties *int64 `json:"minProperties,omitempty"`
	// Required lists the properties an object must have.
	Required []string `json:"required,omitempty"`
	// Items is the schema of an array's items (or, in JSON Schema, of
	// each position).
	Items *JSONSchemaPropsOrArray `json:"items,omitempty"`
	// AllOf: the value must match every schema.
	AllOf []JSONSchemaProps `json:"allOf,omitempty"`
	// OneOf: the value must match exactly one schema.
	OneOf []JSONSchemaProps `json:"oneOf,omitempty"`
	// AnyOf: the value must match at least one schema.
	AnyOf []JSONSchemaProps `json:"anyOf,omitempty"`
	// Not: the value must not match the schema.
	Not *JSONSchemaProps `json:"not,omitempty"`
	// Properties are the schemas of an object's properties.
	Properties map[string]JSONSchemaProps `json:"properties,omitempty"`
	// AdditionalProperties is the schema of a map's values, or whether
	// other properties are allowed.
	AdditionalProperties *JSONSchemaPropsOrBool `json:"additionalProperties,omitempty"`
	// PatternProperties are schemas of properties by name pattern.
	PatternProperties map[string]JSONSchemaProps `json:"patternProperties,omitempty"`
	// Dependencies are JSON Schema property dependencies.
	Dependencies map[string]JSONSchemaPropsOrStringArray `json:"dependencies,omitempty"`
	// AdditionalItems is the schema of items beyond Items' positions.
	AdditionalItems *JSONSchemaPropsOrBool `json:"additionalItems,omitempty"`
	// Definitions are named schemas.
	Definitions map[string]JSONSchemaProps `json:"definitions,omitempty"`
	// ExternalDocs points to more documentation.
	ExternalDocs *ExternalDocumentation `json:"externalDocs,omitempty"`
	// Example is an example value.
	Example *JSON `json:"example,omitempty"`
	// Nullable allows null as the value.
	Nullable bool `json:"nullable,omitempty"`
	// XPreserveUnknownFields stops pruning of fields the schema does not
	// define, in this node and below.
	XPreserveUnknownFields *bool `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
	// XEmbeddedResource marks an object with apiVersion, kind and
	// metadata of its own.
	XEmbeddedResource bool `json:"x-kubernetes-embedded-resource,omitempty"`
	// XIntOrString allows an integer or a string.
	XIntOrString bool `json:"x-kubernetes-int-or-string,omitempty"`
	// XListMapKeys are the keys of a list of type map.
	XListMapKeys []string `json:"x-kubernetes-list-map-keys,omitempty"`
	// XListType is atomic, set or map.
	XListType *string `json:"x-kubernetes-list-type,omitempty"`
	// XMapType is granular or atomic.
	XMapType *string `json:"x-kubernetes-map-type,omitempty"`
	// XValidations are CEL validation rules.
	XValidations []ValidationRule `json:"x-kubernetes-validations,omitempty"`
}

// ValidationRule is a CEL validation rule of a schema node
// (x-kubernetes-validations).
type ValidationRule struct {
	// Rule is the CEL expression ("self.minReplicas <= self.replicas").
	Rule string `json:"rule"`
	// Message is the error message when the rule fails.
	Message string `json:"message,omitempty"`
	// MessageExpression is a CEL expression evaluating to the message.
	MessageExpression string `json:"messageExpression,omitempty"`
	// Reason is the machine-readable reason of the failure
	// (FieldValueInvalid, FieldValueForbidden, …).
	Reason *string `json:"reason,omitempty"`
	// FieldPath is the path of the field the error is reported at.
	FieldPath string `json:"fieldPath,omitempty"`
	// OptionalOldSelf evaluates transition rules on create too, with
	// oldSelf unset.
	OptionalOldSelf *bool `json:"optionalOldSelf,omitempty"`
}

// ExternalDocumentation points to documentation outside the schema.
type ExternalDocumentation struct {
	// Description describes the documentation.
	Description string `json:"description,omitempty"`
	// URL is where it is.
	URL string `json:"url,omitempty"`
}

// JSON is an arbitrary JSON value of a schema (a default, an enum value,
// an example), kept as its encoding.
type JSON struct {
	// Raw is the value's JSON encoding; empty means null.
	Raw json.RawMessage `json:"-"`
}

var nullJSON = []byte("null")

// MarshalJSON returns j.Raw, or null when it is empty.
func (j JSON) MarshalJSON() ([]byte, error) {
	if len(j.Raw) == 0 {
		return nullJSON, nil
	}
	return j.Raw, nil
}

// UnmarshalJSON keeps a copy of data (nothing for null).
func (j *JSON) UnmarshalJSON(data []byte) error {
	if bytes.Equal(data, nullJSON) {
		j.Raw = nil
		return nil
	}
	j.Raw = append(json.RawMessage(nil), data...)
	return nil
}

// JSONSchemaPropsOrArray is a schema, or an array of schemas (the JSON
// form of "items").
type JSONSchemaPropsOrArray struct {
	// Schema is the one schema, when the JSON is an object.
	Schema *JSONSchemaProps `json:"-"`
	// JSONSchemas are the schemas, when the JSON is an array.
	JSONSchemas []JSONSchemaProps `json:"-"`
}

// MarshalJSON encodes the array when there is one, else the schema.
func (s JSONSchemaPropsOrArray) MarshalJSON() ([]byte, error) {
	if len(s.JSONSchemas) > 0 {
		return json.Marshal(s.JSONSchemas)
	}
	return json.Marshal(s.Schema)
}

// UnmarshalJSON decodes an object into Schema and an array into
// JSONSchemas.
func (s *JSONSchemaPropsOrArray) UnmarshalJSON(data []byte) error {
	*s = JSONSchemaPropsOrArray{}
	switch firstByte(data) {
	case '{':
		s.Schema = new(JSONSchemaProps)
		return json.Unmarshal(data, s.Schema)
	case '[':
		return json.Unmarshal(data, &s.JSONSchemas)
	case 'n':
		return nil
	}
	return errors.New("items: must be a schema or an array of schemas")
}

// JSONSchemaPropsOrBool is a schema, or true or false (the JSON form of
// "additionalProperties" and "additionalItems"); a schema allows.
type JSONSchemaPropsOrBool struct {
	// Allows is the boolean; true when Schema is set.
	Allows bool `json:"-"`
	// Schema is the schema, when the JSON is an object.
	Schema *JSONSchemaProps `json:"-"`
}

// MarshalJSON encodes the schema when there is one, else the boolean.
func (s JSONSchemaPropsOrBool) MarshalJSON() ([]byte, error) {
	if s.Schema != nil {
		return json.Marshal(s.Schema)
	}
	return json.Marshal(s.Allows)
}

// UnmarshalJSON decodes an object into Schema (and sets Allows) and a
// boolean into Allows.
func (s *JSONSchemaPropsOrBool) UnmarshalJSON(data []byte) error {
	*s = JSONSchemaPropsOrBool{}
	switch firstByte(data) {
	case '{':
		s.Allows, s.Schema = true, new(JSONSchemaProps)
		return json.Unmarshal(data, s.Schema)
	case 't', 'f':
		return json.Unmarshal(data, &s.Allows)
	case 'n':
		return nil
	}
	return errors.New("must be a schema or a boolean")
}

// JSONSchemaPropsOrStringArray is a schema or a list of property names
// (the JSON form of a "dependencies" value).
type JSONSchemaPropsOrStringArray struct {
	// Schema is the schema, when the JSON is an object.
	Schema *JSONSchemaProps `json:"-"`
	// Property are the names, when the JSON is an array.
	Property []string `json:"-"`
}

// MarshalJSON encodes the names when there are some, else the schema.
func (s JSONSchemaPropsOrStringArray) MarshalJSON() ([]byte, error) {
	if len(s.Property) > 0 {
		return json.Marshal(s.Property)
	}
	return json.Marshal(s.Schema)
}

// UnmarshalJSON decodes an object into Schema and an array into Property.
func (s *JSONSchemaPropsOrStringArray) UnmarshalJSON(data []byte) error {
	*s = JSONSchemaPropsOrStringArray{}
	switch firstByte(data) {
	case '{':
		s.Schema = new(JSONSchemaProps)
		return json.Unmarshal(data, s.Schema)
	case '[':
		return json.Unmarshal(data, &s.Property)
	case 'n':
		return nil
	}
	return errors.New("must be a schema or an array of strings")
}

// firstByte returns the first non-space byte of data, or 0.
func firstByte(data []byte) byte {
	data = bytes.TrimLeft(data, " \t\r\n")
	if len(data) == 0 {
		return 0
	}
	return data[0]
}

// Strict decoding of the union types: Decode checks the fields of the
// shape a value has (see unionTyped in decode.go).

func (*JSONSchemaPropsOrArray) unionType(v any) reflect.Type {
	if _, ok := v.([]any); ok {
		return reflect.TypeFor[[]JSONSchemaProps]()
	}
	return reflect.TypeFor[JSONSchemaProps]()
}

func (*JSONSchemaPropsOrBool) unionType(any) reflect.Type {
	return reflect.TypeFor[JSONSchemaProps]()
}

func (*JSONSchemaPropsOrStringArray) unionType(any) reflect.Type {
	return reflect.TypeFor[JSONSchemaProps]()
}

package apiextensions

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

func cvPtr[T any](v T) *T { return &v }

// cvWidgetCRD is a valid CRD of two versions with every optional part: the
// status and scale subresources, printer columns and a selectable field.
func cvWidgetCRD() *api.CustomResourceDefinition {
	schema := func() *api.CustomResourceValidation {
		return &api.CustomResourceValidation{OpenAPIV3Schema: &api.JSONSchemaProps{
			Type: "object",
			Properties: map[string]api.JSONSchemaProps{
				"spec": {Type: "object", Properties: map[string]api.JSONSchemaProps{
					"replicas": {Type: "integer"},
					"color":    {Type: "string", Enum: []api.JSON{{Raw: []byte(`"red"`)}}},
					"size":     {Type: "number"},
					"labels":   {Type: "object", AdditionalProperties: &api.JSONSchemaPropsOrBool{Allows: true, Schema: &api.JSONSchemaProps{Type: "string"}}},
					"items":    {Type: "array", Items: &api.JSONSchemaPropsOrArray{Schema: &api.JSONSchemaProps{Type: "string"}}},
				}},
				"status": {Type: "object", Properties: map[string]api.JSONSchemaProps{
					"replicas": {Type: "integer"},
					"selector": {Type: "string"},
				}},
			},
		}}
	}
	version := func(name string, storage bool) api.CustomResourceDefinitionVersion {
		return api.CustomResourceDefinitionVersion{
			Name: name, Served: true, Storage: storage,
			Schema: schema(),
			Subresources: &api.CustomResourceSubresources{
				Status: &api.CustomResourceSubresourceStatus{},
				Scale: &api.CustomResourceSubresourceScale{
					SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas",
					LabelSelectorPath: cvPtr(".status.selector"),
				},
			},
			AdditionalPrinterColumns: []api.CustomResourceColumnDefinition{
				{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas"},
				{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
			},
			SelectableFields: []api.SelectableField{{JSONPath: ".spec.color"}},
		}
	}
	// The versions differ in every per-version field: kube-apiserver,
	// converting v1 to its internal form, moves fields all versions share
	// to the top level and reports their errors there.
	beta := version("v1beta1", false)
	beta.Schema.OpenAPIV3Schema.Properties["spec"].Properties["legacy"] = api.JSONSchemaProps{Type: "string"}
	beta.Subresources.Scale.LabelSelectorPath = nil
	beta.AdditionalPrinterColumns = append(beta.AdditionalPrinterColumns, api.CustomResourceColumnDefinition{Name: "Legacy", Type: "string", JSONPath: ".spec.legacy"})
	beta.SelectableFields = []api.SelectableField{{JSONPath: ".spec.legacy"}}
	crd := &api.CustomResourceDefinition{
		Spec: api.CustomResourceDefinitionSpec{
			Group: "example.com",
			Names: api.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget", ShortNames: []string{"wd"}, Categories: []string{"all"}},
			Scope: api.NamespaceScoped,
			Versions: []api.CustomResourceDefinitionVersion{
				version("v1", true), beta,
			},
		},
	}
	crd.Name = "widgets.example.com"
	return crd
}

func TestDefaultCRD(t *testing.T) {
	crd := cvWidgetCRD()
	crd.Spec.Conversion = &api.CustomResourceConversion{Strategy: api.WebhookConverter, Webhook: &api.WebhookConversion{
		ClientConfig: &api.ConversionWebhookClientConfig{Service: &api.ConversionServiceReference{Namespace: "ns", Name: "conv"}},
	}}
	DefaultCRD(crd)
	n := crd.Spec.Names
	if n.Singular != "widget" || n.ListKind != "WidgetList" {
		t.Errorf("names %+v", n)
	}
	if p := crd.Spec.Conversion.Webhook.ClientConfig.Service.Port; p == nil || *p != 443 {
		t.Errorf("service port %v", p)
	}
	if !reflect.DeepEqual(crd.Status.StoredVersions, []string{"v1"}) {
		t.Errorf("storedVersions %v", crd.Status.StoredVersions)
	}
	if crd.Spec.Conversion.Webhook.ConversionReviewVersions != nil {
		t.Error("v1 defaults no conversionReviewVersions")
	}

	plain := cvWidgetCRD()
	plain.Spec.Names.Singular, plain.Spec.Names.ListKind = "thing", "Things"
	plain.Status.StoredVersions = []string{"v1beta1", "v1"}
	DefaultCRD(plain)
	if plain.Spec.Names.Singular != "thing" || plain.Spec.Names.ListKind != "Things" ||
		plain.Spec.Conversion.Strategy != api.NoneConverter || len(plain.Status.StoredVersions) != 2 {
		t.Errorf("defaults overwrote set fields: %+v %v", plain.Spec.Names, plain.Status.StoredVersions)
	}
}

func TestValidateCRDValid(t *testing.T) {
	crd := cvWidgetCRD()
	DefaultCRD(crd)
	if errs := ValidateCRD(crd); len(errs) > 0 {
		t.Fatalf("ValidateCRD: %v", errs)
	}
}

// Bad CRDs get kube-apiserver's field errors, message for message.
func TestValidateCRDMessages(t *testing.T) {
	dns1035 := "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
	tests := []struct {
		name   string
		mutate func(*api.CustomResourceDefinition)
		want   []string
	}{{
		// As kube-apiserver creates it: status.storedVersions is the
		// storage version, here none.
		name: "no storage version",
		mutate: func(c *api.CustomResourceDefinition) {
			c.Spec.Versions[0].Storage = false
			c.Status.StoredVersions = nil
			DefaultCRD(c)
		},
		want: []string{
			"spec.versions: Invalid value: must have exactly one version marked as storage version",
			"status.storedVersions: Invalid value: must have at least one stored version",
		},
	}, {
		name:   "two storage versions",
		mutate: func(c *api.CustomResourceDefinition) { c.Spec.Versions[1].Storage = true },
		want: []string{
			"spec.versions: Invalid value: must have exactly one version marked as storage version",
			`status.storedVersions: Invalid value: "v1": must have the storage version v1beta1`,
		},
	}, {
		name:   "duplicate version names",
		mutate: func(c *api.CustomResourceDefinition) { c.Spec.Versions[1].Name = "v1" },
		want:   []string{"spec.versions: Invalid value: must contain unique version names"},
	}, {
		name:   "bad version name",
		mutate: func(c *api.CustomResourceDefinition) { c.Spec.Versions[1].Name = "V1" },
		want:   []string{`spec.versions[1].name: Invalid value: "V1": ` + dns1035},
	}, {
		name: "no versions",
		mutate: func(c *api.CustomResourceDefinition) {
			c.Spec.Versions = nil
			c.Status.StoredVersions = nil
		},
		want: []string{
			"spec.versions: Invalid value: must have exactly one version marked as storage version",
			"status.storedVersions: Invalid value: must have at least one stored version",
		},
	}, {
		name:   "name is not plural.group",
		mutate: func(c *api.CustomResourceDefinition) { c.Name = "widget.example.com" },
		want:   []string{`metadata.name: Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group`},
	}, {
		name:   "no name",
		mutate: func(c *api.CustomResourceDefinition) { c.Name = "" },
		want:   []string{"metadata.name: Required value: name or generateName is required"},
	}, {
		name: "generateName",
		mutate: func(c *api.CustomResourceDefinition) {
			c.GenerateName = "Widgets.example.com-"
		},
		want: []string{
			`metadata.generateName: Invalid value: "Widgets.example.com-": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			`metadata.generateName: Invalid value: "Widgets.example.com-": must be spec.names.plural+"."+spec.group`,
		},
	}, {
		name: "group without a dot",
		mutate: func(c *api.CustomResourceDefinition) {
			c.Spec.Group, c.Name = "example", "widgets.example"
		},
		want: []string{`spec.group: Invalid value: "example": should be a domain with at least one dot`},
	}, {
		name: "bad group",
		mutate: func(c *api.CustomResourceDefinition) {
			c.Spec.Group, c.Name = "Example.com", "widgets.Example.com"
		},
		want: []string{
			`metadata.name: Invalid value: "widgets.Example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			`spec.group: Invalid value: "Example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		},
	}, {
		name:   "bad scope",
		mutate: func(c *api.CustomResourceDefinition) { c.Spec.Scope = "Global" },
		want:   []string{`spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"`},
	}, {
		name: "bad names",
		mutate: func(c *api.CustomResourceDefinition) {
			c.Spec.Names.Kind = "Wid_get"
			c.Spec.Names.ListKind = "Wid_get"
			c.Spec.Names.ShortNames = []string{"w", "W-1"}
			c.Spec.Names.Categories = []string{"all", "my cat"}
		},
		want: []string{
			`spec.names.kind: Invalid value: "Wid_get": may have mixed case, but should otherwise match: ` + dns1035,
			`spec.names.listKind: Invalid value: "Wid_get": may have mixed case, but should otherwise match: ` + dns1035,
			`spec.names.shortNames[1]: Invalid value: "W-1": ` + dns1035,
			`spec.names.listKind: Invalid value: "Wid_get": kind and listKind may not be the same`,
			`spec.names.categories[1]: Invalid value: "my cat": ` + dns1035,
		},
	}, {
		name:   "no schema",
		mutate: func(c *api.CustomResourceDefinition) { c.Spec.Versions[1].Schema = nil },
		want: []string{
			"spec.versions[1].schema.openAPIV3Schema: Required value",
			// kube's message, word for word.
			"spec.versions[1].selectableFields: Invalid value: may only be set when `version.schema.openAPIV3Schema` is not included",
		},
	}, {
		name: "scale paths outside spec and status",
		mutate: func(c *api.CustomResourceDefinition) {
			sc := c.Spec.Versions[0].Subresources.Scale
			sc.SpecReplicasPath = ".status.replicas"
			sc.StatusReplicasPath = "status.replicas"
			sc.LabelSelectorPath = cvPtr(".metadata.labels")
		},
		want: []string{
			`spec.versions[0].subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec`,
			`spec.versions[0].subresources.scale.statusReplicasPath: Invalid value: "status.replicas": must be a simple json path starting with .`,
			`spec.versions[0].subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status`,
		},
	}, {
		name: "scale paths missing",
		mutate: func(c *api.CustomResourceDefinition) {
			c.Spec.Versions[1].Subresources.Scale = &api.CustomResourceSubresourceScale{}
		},
		want: []string{
			"spec.versions[1].subresources.scale.specReplicasPath: Required value",
			"spec.versions[1].subresources.scale.statusReplicasPath: Required value",
		},
	}, {
		name: "bad printer columns",
		mutate: func(c *api.CustomResourceDefinition) {
			c.Spec.Versions[0].AdditionalPrinterColumns = []api.CustomResourceColumnDefinition{
				{Name: "", Type: "int", Format: "uuid", JSONPath: "spec.replicas"},
				{Name: "B", Type: "", JSONPath: ""},
			}
		},
		want: []string{
			"spec.versions[0].additionalPrinterColumns[0].name: Required value",
			`spec.versions[0].additionalPrinterColumns[0].type: Invalid value: "int": must be one of boolean,date,integer,number,string`,
			`spec.versions[0].additionalPrinterColumns[0].format: Invalid value: "uuid": must be one of byte,date,date-time,double,float,int32,int64,password`,
			`spec.versions[0].additionalPrinterColumns[0].JSONPath: Invalid value: "spec.replicas": must be a simple json path starting with .`,
			"spec.versions[0].additionalPrinterColumns[1].type: Required value: must be one of boolean,date,integer,number,string",
			"spec.versions[0].additionalPrinterColumns[1].JSONPath: Required value",
		},
	}, {
		// kube checks only the leading dot: a column that does not parse
		// installs, and its table falls back (NewTable reports it).
		name: "unparsable printer column",
		mutate: func(c *api.CustomResourceDefinition) {
			c.Spec.Versions[0].AdditionalPrinterColumns[0].JSONPath = ".spec.items[0"
		},
	}, {
		name: "webhook conversion without config",
		mutate: func(c *api.CustomResourceDefinition) {
			c.Spec.Conversion = &api.CustomResourceConversion{Strategy: api.WebhookConverter}
		},
		want: []string{
			"spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook",
			"spec.conversion.conversionReviewVersions: Required value",
		},
	}, {
		name: "webhook conversion with url and service",
		mutate: func(c *api.CustomResourceDefinition) {
			c.Spec.Conversion = &api.CustomResourceConversion{Strategy: api.WebhookConverter, Webhook: &api.WebhookConversion{
				ClientConfig: &api.ConversionWebhookClientConfig{
					URL:     cvPtr("https://conv.example.com/convert"),
					Service: &api.ConversionServiceReference{Namespace: "ns", Name: "conv"},
				},
				ConversionReviewVersions: []string{"v1"},
			}}
		},
		want: []string{"spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required"},
	}, {
		name: "webhook conversion with a bad url and review versions",
		mutate: func(c *api.CustomResourceDefinition) {
			c.Spec.Conversion = &api.CustomResourceConversion{Strategy: api.WebhookConverter, Webhook: &api.WebhookConversion{
				ClientConfig:             &api.ConversionWebhookClientConfig{URL: cvPtr("http://user@conv/x?q=1")},
				ConversionReviewVersions: []string{"v2", "v2"},
			}}
		},
		want: []string{
			`spec.conversion.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
			`spec.conversion.webhookClientConfig.url: Invalid value: "user": user information is not permitted in the URL`,
			`spec.conversion.webhookClientConfig.url: Invalid value: "q=1": query parameters are not permitted in the URL`,
			`spec.conversion.conversionReviewVersions[1]: Invalid value: "v2": duplicate version`,
			`spec.conversion.conversionReviewVersions: Invalid value: "v2,v2": must include at least one of v1, v1beta1`,
		},
	}, {
		name: "webhook conversion with a bad service",
		mutate: func(c *api.CustomResourceDefinition) {
			c.Spec.Conversion = &api.CustomResourceConversion{Strategy: api.WebhookConverter, Webhook: &api.WebhookConversion{
				ClientConfig:             &api.ConversionWebhookClientConfig{Service: &api.ConversionServiceReference{Port: cvPtr[int32](0), Path: cvPtr("/a//B")}},
				ConversionReviewVersions: []string{"v1"},
			}}
		},
		want: []string{
			"spec.conversion.webhookClientConfig.service.name: Required value",
			"spec.conversion.webhookClientConfig.service.namespace: Required value",
			`spec.conversion.webhookClientConfig.service.port: Invalid value: "0": port is not valid: must be between 1 and 65535, inclusive`,
			`spec.conversion.webhookClientConfig.service.path: Invalid value: "/a//B": segment[1] may not be empty`,
			`spec.conversion.webhookClientConfig.service.path: Invalid value: "/a//B": segment[2]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		},
	}, {
		name: "None conversion with webhook config",
		mutate: func(c *api.CustomResourceDefinition) {
			c.Spec.Conversion = &api.CustomResourceConversion{Strategy: api.NoneConverter, Webhook: &api.WebhookConversion{
				ClientConfig:             &api.ConversionWebhookClientConfig{URL: cvPtr("https://conv")},
				ConversionReviewVersions: []string{"v1"},
			}}
		},
		want: []string{
			"spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook",
			"spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook",
		},
	}, {
		name: "unknown conversion strategy",
		mutate: func(c *api.CustomResourceDefinition) {
			c.Spec.Conversion = &api.CustomResourceConversion{Strategy: "Magic"}
		},
		want: []string{`spec.conversion.strategy: Unsupported value: "Magic": supported values: "None", "Webhook"`},
	}, {
		name: "preserveUnknownFields with defaults and a webhook",
		mutate: func(c *api.CustomResourceDefinition) {
			c.Spec.PreserveUnknownFields = true
			s := c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
			r := s.Properties["replicas"]
			r.Default = &api.JSON{Raw: []byte("1")}
			s.Properties["replicas"] = r
			c.Spec.Conversion = &api.CustomResourceConversion{Strategy: api.WebhookConverter, Webhook: &api.WebhookConversion{
				ClientConfig: &api.ConversionWebhookClientConfig{URL: cvPtr("https://conv")}, ConversionReviewVersions: []string{"v1"},
			}}
		},
		want: []string{
			`spec.preserveUnknownFields: Invalid value: "true": must be false in order to use defaults in the schema`,
			`spec.conversion.strategy: Invalid value: "Webhook": must be None if spec.preserveUnknownFields is true`,
			`spec.preserveUnknownFields: Invalid value: "true": cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead`,
		},
	}, {
		name: "schema root with status subresource",
		mutate: func(c *api.CustomResourceDefinition) {
			s := c.Spec.Versions[0].Schema.OpenAPIV3Schema
			s.Nullable = true
			c.Spec.Versions[1].Schema.OpenAPIV3Schema.Type = "array"
		},
		want: []string{
			"spec.versions[0].schema.openAPIV3Schema: Invalid value: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled",
			"spec.versions[0].schema.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root",
			`spec.versions[1].schema.openAPIV3Schema.type: Invalid value: "array": only "object" is allowed as the type at the root of the schema if the status subresource is enabled`,
			// CheckStructural's, as kube-apiserver's structural checks add them.
			"spec.versions[1].schema.openAPIV3Schema.items: Required value: must be specified",
			`spec.versions[1].schema.openAPIV3Schema.type: Invalid value: "array": must be object at the root`,
		},
	}, {
		name: "deprecation warning",
		mutate: func(c *api.CustomResourceDefinition) {
			c.Spec.Versions[1].DeprecationWarning = cvPtr("old")
			c.Spec.Versions[0].Deprecated = true
			c.Spec.Versions[0].DeprecationWarning = cvPtr("bad\tword")
		},
		want: []string{
			`spec.versions[0].deprecationWarning: Invalid value: "bad\tword": must only contain printable UTF-8 characters; non-printable character found at index 3`,
			`spec.versions[1].deprecationWarning: Invalid value: "old": can only be set for deprecated versions`,
		},
	}, {
		name: "selectable fields",
		mutate: func(c *api.CustomResourceDefinition) {
			c.Spec.Versions[0].SelectableFields = []api.SelectableField{
				{JSONPath: ".spec.color"}, {JSONPath: ".spec.color"}, {JSONPath: ".spec.size"},
				{JSONPath: ".spec.nope"}, {JSONPath: ".spec.items[0]"}, {JSONPath: "spec.color"},
				{JSONPath: ""}, {JSONPath: ".spec.labels.app"},
			}
			c.Spec.Versions[1].Schema.OpenAPIV3Schema.Properties["metadata"] = api.JSONSchemaProps{
				Type: "object", Properties: map[string]api.JSONSchemaProps{"name": {Type: "string"}},
			}
			c.Spec.Versions[1].SelectableFields = []api.SelectableField{{JSONPath: ".metadata.name"}, {JSONPath: ".spec."}}
		},
		want: []string{
			`spec.versions[0].selectableFields[1].jsonPath: Duplicate value: ".spec.color"`,
			`spec.versions[0].selectableFields[2].jsonPath: Invalid value: ".spec.size": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.`,
			`spec.versions[0].selectableFields[3].jsonPath: Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field`,
			`spec.versions[0].selectableFields[4].jsonPath: Invalid value: ".spec.items[0]": is an invalid path: array notation is not allowed`,
			`spec.versions[0].selectableFields[5].jsonPath: Invalid value: "spec.color": is an invalid path: expected [ or . but got: spec`,
			"spec.versions[0].selectableFields[6].jsonPath: Required value",
			`spec.versions[1].selectableFields[0].jsonPath: Invalid value: ".metadata.name": must not point to fields in metadata`,
			`spec.versions[1].selectableFields[1].jsonPath: Invalid value: ".spec.": is an invalid path: unexpected end of JSON path`,
		},
	}, {
		name: "too many selectable fields",
		mutate: func(c *api.CustomResourceDefinition) {
			props := c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties
			c.Spec.Versions[0].SelectableFields = nil
			for i := range 9 {
				name := fmt.Sprintf("f%d", i)
				props[name] = api.JSONSchemaProps{Type: "string"}
				c.Spec.Versions[0].SelectableFields = append(c.Spec.Versions[0].SelectableFields, api.SelectableField{JSONPath: ".spec." + name})
			}
		},
		want: []string{`spec.versions[0].selectableFields: Too many: "9": must have at most 8 items`},
	}, {
		name:   "protected group without approval",
		mutate: func(c *api.CustomResourceDefinition) { c.Spec.Group, c.Name = "x.k8s.io", "widgets.x.k8s.io" },
		want:   []string{`metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`},
	}, {
		name: "protected group with a bad approval",
		mutate: func(c *api.CustomResourceDefinition) {
			c.Spec.Group, c.Name = "kubernetes.io", "widgets.kubernetes.io"
			c.Annotations = map[string]string{"api-approved.kubernetes.io": "yes"}
		},
		want: []string{`metadata.annotations[api-approved.kubernetes.io]: Invalid value: "yes": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`},
	}, {
		name: "protected group bypassed",
		mutate: func(c *api.CustomResourceDefinition) {
			c.Spec.Group, c.Name = "x.k8s.io", "widgets.x.k8s.io"
			c.Annotations = map[string]string{"api-approved.kubernetes.io": "unapproved, experimental"}
		},
	}, {
		name: "stored version no longer listed",
		mutate: func(c *api.CustomResourceDefinition) {
			c.Status.StoredVersions = []string{"v1alpha1", "v1"}
		},
		want: []string{`status.storedVersions[0]: Invalid value: "v1alpha1": missing from spec.versions; v1alpha1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1alpha1 and removes v1alpha1 from status.storedVersions`},
	}, {
		name:   "storage version not stored",
		mutate: func(c *api.CustomResourceDefinition) { c.Status.StoredVersions = []string{"v1beta1"} },
		want:   []string{`status.storedVersions: Invalid value: "v1beta1": must have the storage version v1`},
	}, {
		name: "bad accepted names",
		mutate: func(c *api.CustomResourceDefinition) {
			c.Status.AcceptedNames = api.CustomResourceDefinitionNames{Plural: "Widgets", Kind: "Widget", ListKind: "Widget"}
		},
		want: []string{
			`status.acceptedNames.plural: Invalid value: "Widgets": ` + dns1035,
			`status.acceptedNames.listKind: Invalid value: "Widget": kind and listKind may not be the same`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			crd := cvWidgetCRD()
			DefaultCRD(crd)
			tt.mutate(crd)
			got := cvErrorStrings(ValidateCRD(crd))
			if !slices.Equal(got, tt.want) {
				t.Errorf("ValidateCRD errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func cvErrorStrings(errs []api.FieldError) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

type cvFieldMatch struct {
	typ   api.FieldErrorType
	field string
}

// Cases ported from apiextensions-apiserver
// pkg/apis/apiextensions/validation/validation_test.go
// (TestValidateCustomResourceDefinition: "mismatched name", "missing
// values", "bad names 01", "bad names 02"), written in the v1 form: no
// spec.version, a schema per version. They match errors by type and field.
func TestValidateCRDPorted(t *testing.T) {
	objectSchema := &api.CustomResourceValidation{OpenAPIV3Schema: &api.JSONSchemaProps{Type: "object"}}
	tests := []struct {
		name string
		crd  *api.CustomResourceDefinition
		want []cvFieldMatch
	}{{
		name: "mismatched name",
		crd: &api.CustomResourceDefinition{
			ObjectMeta: api.ObjectMeta{Name: "plural.not.group.com"},
			Spec:       api.CustomResourceDefinitionSpec{Group: "group.com", Names: api.CustomResourceDefinitionNames{Plural: "plural"}},
		},
		want: []cvFieldMatch{
			{api.FieldInvalid, "metadata.name"},
			{api.FieldRequired, "spec.scope"},
			{api.FieldInvalid, "spec.versions"},
			{api.FieldRequired, "spec.names.singular"},
			{api.FieldRequired, "spec.names.kind"},
			{api.FieldRequired, "spec.names.listKind"},
			{api.FieldInvalid, "status.storedVersions"},
		},
	}, {
		name: "missing values",
		crd:  &api.CustomResourceDefinition{ObjectMeta: api.ObjectMeta{Name: "plural.group.com"}},
		want: []cvFieldMatch{
			{api.FieldInvalid, "metadata.name"},
			{api.FieldRequired, "spec.group"},
			{api.FieldRequired, "spec.scope"},
			{api.FieldInvalid, "spec.versions"},
			{api.FieldRequired, "spec.names.plural"},
			{api.FieldRequired, "spec.names.singular"},
			{api.FieldRequired, "spec.names.kind"},
			{api.FieldRequired, "spec.names.listKind"},
			{api.FieldInvalid, "status.storedVersions"},
		},
	}, {
		name: "bad names 01",
		crd: &api.CustomResourceDefinition{
			ObjectMeta: api.ObjectMeta{Name: "plural.group"},
			Spec: api.CustomResourceDefinitionSpec{
				Group: "group", Scope: "foo",
				Names: api.CustomResourceDefinitionNames{Plural: "pl()*ural", Singular: "value()*a", Kind: "value()*a", ListKind: "value()*a"},
			},
			Status: api.CustomResourceDefinitionStatus{
				AcceptedNames: api.CustomResourceDefinitionNames{Plural: "pl()*ural", Singular: "value()*a", Kind: "value()*a", ListKind: "value()*a"},
			},
		},
		want: []cvFieldMatch{
			{api.FieldInvalid, "metadata.name"},
			{api.FieldInvalid, "spec.group"},
			{api.FieldUnsupported, "spec.scope"},
			{api.FieldInvalid, "spec.versions"},
			{api.FieldInvalid, "spec.names.plural"},
			{api.FieldInvalid, "spec.names.singular"},
			{api.FieldInvalid, "spec.names.kind"},
			{api.FieldInvalid, "spec.names.listKind"},
			{api.FieldInvalid, "spec.names.listKind"},
			{api.FieldInvalid, "status.acceptedNames.plural"},
			{api.FieldInvalid, "status.acceptedNames.singular"},
			{api.FieldInvalid, "status.acceptedNames.kind"},
			{api.FieldInvalid, "status.acceptedNames.listKind"},
			{api.FieldInvalid, "status.acceptedNames.listKind"},
			{api.FieldInvalid, "status.storedVersions"},
		},
	}, {
		name: "bad names 02",
		crd: &api.CustomResourceDefinition{
			ObjectMeta: api.ObjectMeta{Name: "plural.group"},
			Spec: api.CustomResourceDefinitionSpec{
				Group:      "group.c(*&om",
				Versions:   []api.CustomResourceDefinitionVersion{{Name: "version", Served: true, Storage: true, Schema: objectSchema}},
				Conversion: &api.CustomResourceConversion{Strategy: "None"},
				Names:      api.CustomResourceDefinitionNames{Plural: "plural", Singular: "singular", Kind: "matching", ListKind: "matching"},
			},
			Status: api.CustomResourceDefinitionStatus{
				AcceptedNames:  api.CustomResourceDefinitionNames{Plural: "plural", Singular: "singular", Kind: "matching", ListKind: "matching"},
				StoredVersions: []string{"version"},
			},
		},
		want: []cvFieldMatch{
			{api.FieldInvalid, "metadata.name"},
			{api.FieldInvalid, "spec.group"},
			{api.FieldRequired, "spec.scope"},
			{api.FieldInvalid, "spec.names.listKind"},
			{api.FieldInvalid, "status.acceptedNames.listKind"},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []cvFieldMatch
			for _, e := range ValidateCRD(tt.crd) {
				got = append(got, cvFieldMatch{e.Type, e.Field})
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("ValidateCRD errors %v, want %v", got, tt.want)
			}
		})
	}
}

func TestValidateCRDUpdate(t *testing.T) {
	establishedCRD := func() *api.CustomResourceDefinition {
		c := cvWidgetCRD()
		DefaultCRD(c)
		c.Status.Conditions = []api.CustomResourceDefinitionCondition{{Type: api.Established, Status: api.ConditionTrue}}
		return c
	}
	tests := []struct {
		name        string
		established bool
		mutate      func(*api.CustomResourceDefinition)
		want        []string
	}{{
		name:        "no change",
		established: true,
		mutate:      func(*api.CustomResourceDefinition) {},
	}, {
		name:        "group and plural are fixed",
		established: false,
		mutate: func(c *api.CustomResourceDefinition) {
			c.Spec.Group, c.Spec.Names.Plural = "other.com", "gadgets"
		},
		want: []string{
			`spec.group: Invalid value: "other.com": field is immutable`,
			`spec.names.plural: Invalid value: "gadgets": field is immutable`,
		},
	}, {
		name:        "scope and kind change before establishment",
		established: false,
		mutate: func(c *api.CustomResourceDefinition) {
			c.Spec.Scope, c.Spec.Names.Kind, c.Spec.Names.ListKind = api.ClusterScoped, "Gadget", "GadgetList"
		},
	}, {
		name:        "scope and kind are fixed once established",
		established: true,
		mutate: func(c *api.CustomResourceDefinition) {
			c.Spec.Scope, c.Spec.Names.Kind, c.Spec.Names.ListKind = api.ClusterScoped, "Gadget", "GadgetList"
		},
		want: []string{
			`spec.scope: Invalid value: "Cluster": field is immutable`,
			`spec.names.kind: Invalid value: "Gadget": field is immutable`,
		},
	}, {
		name:        "a stored version stays listed",
		established: true,
		mutate: func(c *api.CustomResourceDefinition) {
			c.Status.StoredVersions = []string{"v1beta1", "v1"}
			c.Spec.Versions = c.Spec.Versions[:1]
		},
		want: []string{`status.storedVersions[0]: Invalid value: "v1beta1": missing from spec.versions; v1beta1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1beta1 and removes v1beta1 from status.storedVersions`},
	}, {
		name:        "storage moves to another version",
		established: true,
		mutate: func(c *api.CustomResourceDefinition) {
			c.Spec.Versions[0].Storage, c.Spec.Versions[1].Storage = false, true
			c.Status.StoredVersions = []string{"v1", "v1beta1"}
		},
	}, {
		name:        "preserveUnknownFields may not turn true",
		established: true,
		mutate:      func(c *api.CustomResourceDefinition) { c.Spec.PreserveUnknownFields = true },
		want:        []string{`spec.preserveUnknownFields: Invalid value: "true": cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead`},
	}, {
		name:        "the spec is validated too",
		established: true,
		mutate:      func(c *api.CustomResourceDefinition) { c.Spec.Versions[1].Storage = true },
		want: []string{
			"spec.versions: Invalid value: must have exactly one version marked as storage version",
			`status.storedVersions: Invalid value: "v1": must have the storage version v1beta1`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := establishedCRD()
			if !tt.established {
				old.Status.Conditions = nil
			}
			crd := old.DeepCopy()
			tt.mutate(crd)
			got := cvErrorStrings(ValidateCRDUpdate(old, crd))
			if !slices.Equal(got, tt.want) {
				t.Errorf("ValidateCRDUpdate errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}

	// A CRD that had preserveUnknownFields keeps it (compatibility).
	old := establishedCRD()
	old.Spec.PreserveUnknownFields = true
	if errs := ValidateCRDUpdate(old, old.DeepCopy()); len(errs) > 0 {
		t.Errorf("unchanged preserveUnknownFields: %v", errs)
	}
	// An unchanged approval state passes even when it is missing.
	old = establishedCRD()
	old.Spec.Group, old.Name = "x.k8s.io", "widgets.x.k8s.io"
	if errs := ValidateCRDUpdate(old, old.DeepCopy()); len(errs) > 0 {
		t.Errorf("unchanged approval: %v", errs)
	}
}

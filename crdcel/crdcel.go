package crdcel

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
)

// Rules is a cluster.ValidationRules with kube-apiserver's own CEL
// validation of CustomResourceDefinitions: it compiles the
// x-kubernetes-validations rules of schema, a definition version's
// openAPIV3Schema, as kube-apiserver's definition validation does
// (compile errors, the per-rule and per-schema cost limits, oldSelf on
// uncorrelatable parts), and returns a check that evaluates them on a
// custom resource with kube-apiserver's runtime cost budget; transition
// rules (oldSelf) run only on updates, and an update is not refused for
// a value it leaves unchanged (kube's validation ratcheting). The errors are at field paths
// under the schema's root ("properties[spec].x-kubernetes-validations[0].rule").
// A schema without rules returns a nil check and no errors.
func Rules(schema *api.JSONSchemaProps) (cluster.RuleCheck, []api.FieldError) {
	if schema == nil {
		return nil, nil
	}
	internal, err := toInternal(schema)
	if err != nil {
		return nil, []api.FieldError{{Type: api.FieldInvalid, Detail: err.Error()}}
	}
	if errs := compileErrors(internal); len(errs) > 0 {
		return nil, errs
	}
	ss, err := structuralschema.NewStructural(internal)
	if err != nil {
		return nil, []api.FieldError{{Type: api.FieldInvalid, Detail: err.Error()}}
	}
	v := cel.NewValidator(ss, true, celconfig.PerCallLimit)
	if v == nil {
		return nil, nil
	}
	return func(ctx context.Context, obj, old map[string]any) []api.FieldError {
		if old == nil {
			errs, _ := v.Validate(ctx, nil, ss, obj, nil, celconfig.RuntimeCELCostBudget)
			return fieldErrors(errs, "")
		}
		// kube-apiserver ratchets (CRDValidationRatcheting, locked on
		// since 1.33): a rule does not fail on a value left unchanged.
		ratchet := cel.WithRatcheting(common.NewCorrelatedObject(obj, old, &model.Structural{Structural: ss}))
		errs, _ := v.Validate(ctx, nil, ss, obj, old, celconfig.RuntimeCELCostBudget, ratchet)
		return fieldErrors(errs, "")
	}, nil
}

// toInternal converts schema by JSON into apiextensions/v1 and then into
// kube's internal version, as kube-apiserver reads a definition.
func toInternal(schema *api.JSONSchemaProps) (*apiextensions.JSONSchemaProps, error) {
	data, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("encoding the schema: %w", err)
	}
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(data, &v1); err != nil {
		return nil, fmt.Errorf("decoding the schema: %w", err)
	}
	out := new(apiextensions.JSONSchemaProps)
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, out, nil); err != nil {
		return nil, fmt.Errorf("converting the schema: %w", err)
	}
	return out, nil
}

// schemaPath is where kube's validation of the definition built by
// compileErrors puts the schema.
const schemaPath = "spec.validation.openAPIV3Schema"

// compileErrors runs kube-apiserver's validation of a definition whose
// only schema is schema and keeps its errors about the
// x-kubernetes-validations rules (compilation, cost, oldSelf), at paths
// under the schema's root. The other errors of the schema, and those of
// an empty rule or a bad message, are the cluster's own validation's to
// report.
func compileErrors(schema *apiextensions.JSONSchemaProps) []api.FieldError {
	if !hasRules(schema) {
		return nil
	}
	preserve := false
	crd := &apiextensions.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "checks.crdcel.ctrlkit.dev"},
		Spec: apiextensions.CustomResourceDefinitionSpec{
			Group: "crdcel.ctrlkit.dev",
			Names: apiextensions.CustomResourceDefinitionNames{
				Plural: "checks", Singular: "check", Kind: "Check", ListKind: "CheckList",
			},
			Scope:                 apiextensions.NamespaceScoped,
			Versions:              []apiextensions.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true}},
			Validation:            &apiextensions.CustomResourceValidation{OpenAPIV3Schema: schema},
			PreserveUnknownFields: &preserve,
			Conversion:            &apiextensions.CustomResourceConversion{Strategy: apiextensions.NoneConverter},
		},
		Status: apiextensions.CustomResourceDefinitionStatus{StoredVersions: []string{"v1"}},
	}
	var keep field.ErrorList
	for _, e := range validation.ValidateCustomResourceDefinition(context.Background(), crd) {
		switch {
		case strings.HasSuffix(e.Field, ".message"),
			strings.HasSuffix(e.Field, ".rule") && e.Type == field.ErrorTypeRequired:
			// The cluster's own validation of the definition reports
			// an empty rule and a bad message.
			continue
		case strings.Contains(e.Field, "x-kubernetes-validations"):
		case e.Field == schemaPath && strings.Contains(e.Detail, "x-kubernetes-validations"):
		default:
			continue
		}
		keep = append(keep, e)
	}
	return fieldErrors(keep, schemaPath)
}

// hasRules reports whether s or a schema under it has
// x-kubernetes-validations rules.
func hasRules(s *apiextensions.JSONSchemaProps) bool {
	if s == nil {
		return false
	}
	if len(s.XValidations) > 0 {
		return true
	}
	for _, p := range s.Properties {
		if hasRules(&p) {
			return true
		}
	}
	if s.Items != nil {
		if hasRules(s.Items.Schema) {
			return true
		}
		for i := range s.Items.JSONSchemas {
			if hasRules(&s.Items.JSONSchemas[i]) {
				return true
			}
		}
	}
	if s.AdditionalProperties != nil && hasRules(s.AdditionalProperties.Schema) {
		return true
	}
	for _, l := range [][]apiextensions.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range l {
			if hasRules(&l[i]) {
				return true
			}
		}
	}
	return hasRules(s.Not)
}

// fieldErrors translates kube's field errors, with prefix cut from their
// paths, into the cluster's.
func fieldErrors(errs field.ErrorList, prefix string) []api.FieldError {
	if len(errs) == 0 {
		return nil
	}
	out := make([]api.FieldError, 0, len(errs))
	for _, e := range errs {
		f := e.Field
		if prefix != "" {
			f = strings.TrimPrefix(strings.TrimPrefix(f, prefix), ".")
		}
		fe := api.FieldError{Type: api.FieldErrorType(e.Type.String()), Field: f, Detail: e.Detail}
		fe.Value, fe.BadValue = badValue(e.BadValue)
		out = append(out, fe)
	}
	return out
}

// badValue formats v as kube's field.Error prints it: numbers and
// booleans bare, strings quoted (by api.FieldError), a rule as its
// expression, anything else as JSON, an omitted value not at all.
func badValue(v any) (string, any) {
	switch t := v.(type) {
	case nil, field.OmitValueType:
		return "", nil
	case string:
		return t, nil
	case int64, int32, float64, float32, bool:
		return fmt.Sprint(t), t
	case int:
		return fmt.Sprint(t), int64(t)
	case apiextensions.ValidationRule:
		return t.Rule, nil
	case *apiextensions.ValidationRule:
		return t.Rule, nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v), nil
	}
	return string(data), nil
}

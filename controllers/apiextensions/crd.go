package apiextensions

import (
	"fmt"
	"net/url"
	"reflect"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// DefaultCRD sets the defaults kube-apiserver sets on a
// CustomResourceDefinition (apiextensions/v1 SetDefaults): names.singular
// is the lower-case kind, names.listKind is kind+"List", the conversion
// strategy is None, a conversion webhook service's port is 443, and
// status.storedVersions, when empty, lists the storage version. Unlike
// v1beta1, v1 sets no default conversionReviewVersions.
func DefaultCRD(crd *api.CustomResourceDefinition) {
	n := &crd.Spec.Names
	if n.Singular == "" {
		n.Singular = strings.ToLower(n.Kind)
	}
	if n.ListKind == "" && n.Kind != "" {
		n.ListKind = n.Kind + "List"
	}
	if crd.Spec.Conversion == nil {
		crd.Spec.Conversion = &api.CustomResourceConversion{Strategy: api.NoneConverter}
	}
	if w := crd.Spec.Conversion.Webhook; w != nil && w.ClientConfig != nil {
		if s := w.ClientConfig.Service; s != nil && s.Port == nil {
			port := int32(443)
			s.Port = &port
		}
	}
	if len(crd.Status.StoredVersions) == 0 {
		for _, v := range crd.Spec.Versions {
			if v.Storage {
				crd.Status.StoredVersions = append(crd.Status.StoredVersions, v.Name)
				break
			}
		}
	}
}

// ValidateCRD returns the field errors kube-apiserver returns for crd, a
// defaulted CustomResourceDefinition (DefaultCRD), on create
// (apiextensions-apiserver pkg/apis/apiextensions/validation), with its
// messages and field paths, nil when it is valid:
//
//   - metadata.name is a DNS subdomain and is <names.plural>.<group>;
//   - spec.group is a DNS subdomain with a dot; scope is Namespaced or
//     Cluster; names are DNS-1035 labels (kind and listKind in any case),
//     listKind differs from kind;
//   - versions have unique DNS-1035 names and exactly one is the storage
//     version; each has a schema, which CheckStructural accepts (at
//     spec.versions[i].schema.openAPIV3Schema), whose root is a plain
//     object when the status subresource is on and is not nullable;
//   - a scale subresource's specReplicasPath is a simple JSON path under
//     .spec, statusReplicasPath under .status, labelSelectorPath under
//     either; kube does not look them up in the schema, nor does this;
//   - printer columns have a name, a type of integer, number, string,
//     boolean or date, a known format and a simple jsonPath (kube does
//     not parse the path further: a column whose path does not parse is
//     accepted and NewTable reports it);
//   - selectable fields name at most 8 distinct string, boolean or
//     integer fields of the schema outside metadata;
//   - conversion: None, or Webhook with exactly one of a url or a service
//     and conversionReviewVersions including v1 or v1beta1; a webhook
//     configuration with None is forbidden; preserveUnknownFields must be
//     false;
//   - status.storedVersions include the storage version and are all in
//     spec.versions;
//   - a group under k8s.io or kubernetes.io carries the
//     api-approved.kubernetes.io annotation.
//
// As kube-apiserver does, ValidateCRD does not check a conversion
// webhook's CA bundle on create. The checks of the schema itself are
// CheckStructural's; the generic metadata checks (labels, annotations,
// namespace) are the cluster's. Errors come at the per-version paths of
// the v1 object (kube-apiserver, validating its internal form, reports a
// field that every version sets identically at a top-level path such as
// spec.validation instead).
func ValidateCRD(crd *api.CustomResourceDefinition) []api.FieldError {
	var fs crdErrors
	validateCRDName(&fs, crd)
	validateSpec(&fs, &crd.Spec, createOptions)
	validateNames(&fs, &crd.Status.AcceptedNames, "status.acceptedNames")
	validateStoredVersions(&fs, crd.Status.StoredVersions, crd.Spec.Versions)
	validateAPIApproval(&fs, crd, nil)
	if crd.Spec.PreserveUnknownFields {
		fs.invalid("spec.preserveUnknownFields", "true", "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead")
	}
	return fs
}

// ValidateCRDUpdate returns the field errors kube-apiserver returns when
// crd replaces old: ValidateCRD's (but metadata.name, which may not
// change: the cluster checks that), and group and names.plural may not
// change (they make the name), scope and names.kind may not change once
// old is Established, status.storedVersions must stay listed in
// spec.versions until a storage migration removes them, and
// preserveUnknownFields may stay true only where old had it true. Once
// old is established a conversion webhook's CA bundle must parse (unless
// old's did not), and its review versions must include v1 or v1beta1
// unless old's did not.
func ValidateCRDUpdate(old, crd *api.CustomResourceDefinition) []api.FieldError {
	var fs crdErrors
	validateSpec(&fs, &crd.Spec, updateOptions(old))
	if crdEstablished(old) {
		if crd.Spec.Scope != old.Spec.Scope {
			fs.invalid("spec.scope", string(crd.Spec.Scope), "field is immutable")
		}
		if crd.Spec.Names.Kind != old.Spec.Names.Kind {
			fs.invalid("spec.names.kind", crd.Spec.Names.Kind, "field is immutable")
		}
	}
	if crd.Spec.Group != old.Spec.Group {
		fs.invalid("spec.group", crd.Spec.Group, "field is immutable")
	}
	if crd.Spec.Names.Plural != old.Spec.Names.Plural {
		fs.invalid("spec.names.plural", crd.Spec.Names.Plural, "field is immutable")
	}
	validateNames(&fs, &crd.Status.AcceptedNames, "status.acceptedNames")
	validateStoredVersions(&fs, crd.Status.StoredVersions, crd.Spec.Versions)
	validateAPIApproval(&fs, crd, old)
	if crd.Spec.PreserveUnknownFields && !old.Spec.PreserveUnknownFields {
		fs.invalid("spec.preserveUnknownFields", "true", "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead")
	}
	return fs
}

func crdEstablished(crd *api.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == api.Established {
			return c.Status == api.ConditionTrue
		}
	}
	return false
}

func validateCRDName(fs *crdErrors, crd *api.CustomResourceDefinition) {
	want := crd.Spec.Names.Plural + "." + crd.Spec.Group
	// ValidateObjectMeta's name function for a CRD: a DNS subdomain that
	// is <plural>.<group>. A generateName prefix's trailing dash is
	// masked as kube masks it (its last two characters become "a").
	check := func(field, name string, prefix bool) {
		dns := name
		if prefix && len(dns) > 1 && strings.HasSuffix(dns, "-") {
			dns = dns[:len(dns)-2] + "a"
		}
		for _, msg := range crdDNS1123Subdomain(dns) {
			fs.invalid(field, name, msg)
		}
		if name != want {
			fs.invalid(field, name, `must be spec.names.plural+"."+spec.group`)
		}
	}
	if crd.GenerateName != "" {
		check("metadata.generateName", crd.GenerateName, true)
	}
	// The store generates a name from generateName before validation.
	if crd.Name == "" {
		fs.required("metadata.name", "name or generateName is required")
		return
	}
	check("metadata.name", crd.Name, false)
}

// specOptions are what kube-apiserver relaxes on update for a CRD that
// was accepted under older rules.
type specOptions struct {
	// knownReviewVersions requires a conversion webhook's review versions
	// to include v1 or v1beta1.
	knownReviewVersions bool
	// invalidCABundle lets a conversion webhook's CA bundle fail to
	// parse.
	invalidCABundle bool
}

// createOptions are the rules of a create: a CRD not yet established may
// carry a CA bundle that does not parse.
var createOptions = specOptions{knownReviewVersions: true, invalidCABundle: true}

// updateOptions are the rules of an update of old: review versions must
// be known unless old's were not; the CA bundle must parse once old is
// established, unless old's did not.
func updateOptions(old *api.CustomResourceDefinition) specOptions {
	opts := specOptions{knownReviewVersions: true, invalidCABundle: !crdEstablished(old)}
	if c := old.Spec.Conversion; c != nil && c.Webhook != nil {
		if r := c.Webhook.ConversionReviewVersions; len(r) > 0 && !crdContains(r, "v1") && !crdContains(r, "v1beta1") {
			opts.knownReviewVersions = false
		}
		if cc := c.Webhook.ClientConfig; cc != nil && len(cc.CABundle) > 0 && caBundleError(cc.CABundle) != "" {
			opts.invalidCABundle = true
		}
	}
	return opts
}

func validateSpec(fs *crdErrors, spec *api.CustomResourceDefinitionSpec, opts specOptions) {
	switch {
	case spec.Group == "":
		fs.required("spec.group", "")
	case len(crdDNS1123Subdomain(spec.Group)) > 0:
		fs.invalid("spec.group", spec.Group, strings.Join(crdDNS1123Subdomain(spec.Group), ","))
	case !strings.Contains(spec.Group, "."):
		fs.invalid("spec.group", spec.Group, "should be a domain with at least one dot")
	}
	switch spec.Scope {
	case "":
		fs.required("spec.scope", "")
	case api.ClusterScoped, api.NamespaceScoped:
	default:
		fs.unsupported("spec.scope", string(spec.Scope), "Cluster", "Namespaced")
	}
	for i, v := range spec.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			fs.required(crdIndex("spec.versions", i)+".schema.openAPIV3Schema", "")
		}
	}
	if spec.PreserveUnknownFields && crdHasDefaults(spec) {
		fs.invalid("spec.preserveUnknownFields", "true", "must be false in order to use defaults in the schema")
	}

	storage := 0
	seen := map[string]bool{}
	unique := true
	for i := range spec.Versions {
		v := &spec.Versions[i]
		path := crdIndex("spec.versions", i)
		if v.Storage {
			storage++
		}
		if seen[v.Name] {
			unique = false
		}
		seen[v.Name] = true
		if msgs := crdDNS1035Label(v.Name); len(msgs) > 0 {
			fs.invalid(path+".name", v.Name, strings.Join(msgs, ","))
		}
		validateVersion(fs, v, path)
	}
	if !unique {
		fs.invalid("spec.versions", "", "must contain unique version names")
	}
	if storage != 1 {
		fs.invalid("spec.versions", "", "must have exactly one version marked as storage version")
	}

	n := &spec.Names
	if n.Plural == "" {
		fs.required("spec.names.plural", "")
	}
	if n.Singular == "" {
		fs.required("spec.names.singular", "")
	}
	if n.Kind == "" {
		fs.required("spec.names.kind", "")
	}
	if n.ListKind == "" {
		fs.required("spec.names.listKind", "")
	}
	validateNames(fs, n, "spec.names")

	if c := spec.Conversion; c != nil && c.Strategy != api.NoneConverter && spec.PreserveUnknownFields {
		fs.invalid("spec.conversion.strategy", string(c.Strategy), "must be None if spec.preserveUnknownFields is true")
	}
	validateConversion(fs, spec.Conversion, opts)
}

// validateNames checks a CRD's names (ValidateCustomResourceDefinitionNames).
func validateNames(fs *crdErrors, n *api.CustomResourceDefinitionNames, path string) {
	if msgs := crdDNS1035Label(n.Plural); n.Plural != "" && len(msgs) > 0 {
		fs.invalid(path+".plural", n.Plural, strings.Join(msgs, ","))
	}
	if msgs := crdDNS1035Label(n.Singular); n.Singular != "" && len(msgs) > 0 {
		fs.invalid(path+".singular", n.Singular, strings.Join(msgs, ","))
	}
	if msgs := crdDNS1035Label(strings.ToLower(n.Kind)); n.Kind != "" && len(msgs) > 0 {
		fs.invalid(path+".kind", n.Kind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ","))
	}
	if msgs := crdDNS1035Label(strings.ToLower(n.ListKind)); n.ListKind != "" && len(msgs) > 0 {
		fs.invalid(path+".listKind", n.ListKind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ","))
	}
	for i, s := range n.ShortNames {
		if msgs := crdDNS1035Label(s); len(msgs) > 0 {
			fs.invalid(crdIndex(path+".shortNames", i), s, strings.Join(msgs, ","))
		}
	}
	if n.Kind != "" && n.Kind == n.ListKind {
		fs.invalid(path+".listKind", n.ListKind, "kind and listKind may not be the same")
	}
	for i, c := range n.Categories {
		if msgs := crdDNS1035Label(c); len(msgs) > 0 {
			fs.invalid(crdIndex(path+".categories", i), c, strings.Join(msgs, ","))
		}
	}
}

// validateStoredVersions checks status.storedVersions
// (ValidateCustomResourceDefinitionStoredVersions).
func validateStoredVersions(fs *crdErrors, stored []string, versions []api.CustomResourceDefinitionVersion) {
	const path = "status.storedVersions"
	if len(stored) == 0 {
		fs.invalid(path, "", "must have at least one stored version")
		return
	}
	listed := map[string]bool{}
	for _, v := range versions {
		listed[v.Name] = true
		if v.Storage && !crdContains(stored, v.Name) {
			fs.invalid(path, strings.Join(stored, ","), "must have the storage version "+v.Name)
		}
	}
	for i, s := range stored {
		if !listed[s] {
			fs.invalid(crdIndex(path, i), s, fmt.Sprintf("missing from spec.versions; %[1]s was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in %[1]s and removes %[1]s from status.storedVersions", s))
		}
	}
}

func crdContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// The annotation a CRD of a protected group must carry.
const apiApprovedAnnotation = "api-approved.kubernetes.io"

// validateAPIApproval checks the approval annotation of a group under
// k8s.io or kubernetes.io; an unchanged approval state passes on update.
func validateAPIApproval(fs *crdErrors, crd, old *api.CustomResourceDefinition) {
	g := crd.Spec.Group
	if g != "k8s.io" && !strings.HasSuffix(g, ".k8s.io") && g != "kubernetes.io" && !strings.HasSuffix(g, ".kubernetes.io") {
		return
	}
	state, reason := approvalState(crd.Annotations[apiApprovedAnnotation])
	if old != nil {
		if was, _ := approvalState(old.Annotations[apiApprovedAnnotation]); was == state {
			return
		}
	}
	path := "metadata.annotations[" + apiApprovedAnnotation + "]"
	switch state {
	case approvalMissing:
		fs.required(path, reason)
	case approvalInvalid:
		fs.invalid(path, crd.Annotations[apiApprovedAnnotation], reason)
	}
}

type approval int

const (
	approvalInvalid approval = iota
	approved
	approvalBypassed
	approvalMissing
)

func approvalState(a string) (approval, string) {
	u, err := url.ParseRequestURI(a)
	switch {
	case a == "":
		return approvalMissing, fmt.Sprintf("protected groups must have approval annotation %q, see https://github.com/kubernetes/enhancements/pull/1111", apiApprovedAnnotation)
	case strings.HasPrefix(a, "unapproved"):
		return approvalBypassed, fmt.Sprintf("not approved: %q", a)
	case err == nil && u.Host != "" && u.Scheme != "":
		return approved, "approved in " + a
	}
	return approvalInvalid, fmt.Sprintf("protected groups must have approval annotation %q with either a URL or a reason starting with \"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111", apiApprovedAnnotation)
}

// crdHasDefaults reports whether a schema of spec sets a default.
func crdHasDefaults(spec *api.CustomResourceDefinitionSpec) bool {
	for _, v := range spec.Versions {
		if v.Schema != nil && crdSchemaHas(v.Schema.OpenAPIV3Schema, func(s *api.JSONSchemaProps) bool { return s.Default != nil }) {
			return true
		}
	}
	return false
}

// crdSchemaHas reports whether pred holds for s or a schema nested in it.
func crdSchemaHas(s *api.JSONSchemaProps, pred func(*api.JSONSchemaProps) bool) bool {
	if s == nil {
		return false
	}
	if pred(s) {
		return true
	}
	if s.Items != nil {
		if crdSchemaHas(s.Items.Schema, pred) {
			return true
		}
		for i := range s.Items.JSONSchemas {
			if crdSchemaHas(&s.Items.JSONSchemas[i], pred) {
				return true
			}
		}
	}
	for _, list := range [][]api.JSONSchemaProps{s.AllOf, s.OneOf, s.AnyOf} {
		for i := range list {
			if crdSchemaHas(&list[i], pred) {
				return true
			}
		}
	}
	if crdSchemaHas(s.Not, pred) {
		return true
	}
	for _, m := range []map[string]api.JSONSchemaProps{s.Properties, s.PatternProperties, s.Definitions} {
		for _, sub := range m {
			if crdSchemaHas(&sub, pred) {
				return true
			}
		}
	}
	for _, b := range []*api.JSONSchemaPropsOrBool{s.AdditionalProperties, s.AdditionalItems} {
		if b != nil && crdSchemaHas(b.Schema, pred) {
			return true
		}
	}
	for _, d := range s.Dependencies {
		if crdSchemaHas(d.Schema, pred) {
			return true
		}
	}
	return false
}

// allowedAtStatusRoot are the fields of JSONSchemaProps a schema's root
// may set when the status subresource is on (kube's
// allowedFieldsAtRootSchema).
var allowedAtStatusRoot = []string{"Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum", "ExclusiveMinimum", "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems", "MultipleOf", "Required", "Items", "Properties", "ExternalDocs", "Example", "XPreserveUnknownFields", "XValidations"}

// validateSchemaRoot checks what the root of a version's schema may be
// beyond CheckStructural's rules: an object with only the fields the
// status subresource can split when it is on, and never nullable.
func validateSchemaRoot(fs *crdErrors, s *api.JSONSchemaProps, statusOn bool, path string) {
	if statusOn {
		v := reflect.ValueOf(s).Elem()
		for i := range v.NumField() {
			if v.Field(i).IsZero() {
				continue
			}
			name := v.Type().Field(i).Name
			if name == "Type" {
				if s.Type != "object" {
					fs.invalid(path+".type", s.Type, `only "object" is allowed as the type at the root of the schema if the status subresource is enabled`)
					break
				}
				continue
			}
			if !crdContains(allowedAtStatusRoot, name) {
				fs.invalid(path, "", fmt.Sprintf("only %v fields are allowed at the root of the schema if the status subresource is enabled", allowedAtStatusRoot))
				break
			}
		}
	}
	// nullable at the root: CheckStructural, which ValidateCRD calls next.
}

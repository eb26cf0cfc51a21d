package apiextensions

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// maxSelectableFields is the most selectable fields a version may have.
const maxSelectableFields = 8

var (
	printerColumnTypes   = []string{"boolean", "date", "integer", "number", "string"}
	printerColumnFormats = []string{"byte", "date", "date-time", "double", "float", "int32", "int64", "password"}
)

// validateVersion checks one version (validateCustomResourceDefinitionVersion).
func validateVersion(fs *crdErrors, v *api.CustomResourceDefinitionVersion, path string) {
	for _, msg := range deprecationWarningErrors(v.Deprecated, v.DeprecationWarning) {
		fs.invalid(path+".deprecationWarning", crdDeref(v.DeprecationWarning), msg)
	}
	statusOn := v.Subresources != nil && v.Subresources.Status != nil
	if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
		schemaPath := path + ".schema.openAPIV3Schema"
		validateSchemaRoot(fs, v.Schema.OpenAPIV3Schema, statusOn, schemaPath)
		*fs = append(*fs, CheckStructural(v.Schema.OpenAPIV3Schema, schemaPath)...)
	}
	if v.Subresources != nil && v.Subresources.Scale != nil {
		validateScale(fs, v.Subresources.Scale, path+".subresources.scale")
	}
	for i := range v.AdditionalPrinterColumns {
		validateColumn(fs, &v.AdditionalPrinterColumns[i], crdIndex(path+".additionalPrinterColumns", i))
	}
	if len(v.SelectableFields) > 0 {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			fs.invalid(path+".selectableFields", "", "may only be set when `version.schema.openAPIV3Schema` is not included")
		} else {
			validateSelectableFields(fs, v.SelectableFields, v.Schema.OpenAPIV3Schema, path+".selectableFields")
		}
	}
}

func crdDeref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func deprecationWarningErrors(deprecated bool, warning *string) []string {
	if !deprecated && warning != nil {
		return []string{"can only be set for deprecated versions"}
	}
	if warning == nil {
		return nil
	}
	var msgs []string
	w := *warning
	if len(w) > 256 {
		msgs = append(msgs, "must be <= 256 characters long")
	}
	if w == "" {
		msgs = append(msgs, "must not be an empty string")
	}
	for i, r := range w {
		if !unicode.IsPrint(r) {
			msgs = append(msgs, fmt.Sprintf("must only contain printable UTF-8 characters; non-printable character found at index %d", i))
			break
		}
		if unicode.IsControl(r) {
			msgs = append(msgs, fmt.Sprintf("must only contain printable UTF-8 characters; control character found at index %d", i))
			break
		}
	}
	if !utf8.ValidString(w) {
		msgs = append(msgs, "must only contain printable UTF-8 characters")
	}
	return msgs
}

// simpleJSONPathError returns kube's validateSimpleJSONPath message for
// s, or "".
func simpleJSONPathError(s string) string {
	switch {
	case s == "":
		return "must not be empty"
	case s[0] != '.':
		return "must be a simple json path starting with ."
	}
	return ""
}

// validateScale checks a scale subresource's paths.
func validateScale(fs *crdErrors, sc *api.CustomResourceSubresourceScale, path string) {
	check := func(field, p string, prefixes ...string) {
		if msg := simpleJSONPathError(p); msg != "" {
			fs.invalid(field, p, msg)
			return
		}
		for _, pre := range prefixes {
			if strings.HasPrefix(p, pre) {
				return
			}
		}
		detail := "should be a json path under " + strings.TrimSuffix(prefixes[0], ".")
		if len(prefixes) > 1 {
			detail = "should be a json path under either .spec or .status"
		}
		fs.invalid(field, p, detail)
	}
	if sc.SpecReplicasPath == "" {
		fs.required(path+".specReplicasPath", "")
	} else {
		check(path+".specReplicasPath", sc.SpecReplicasPath, ".spec.")
	}
	if sc.StatusReplicasPath == "" {
		fs.required(path+".statusReplicasPath", "")
	} else {
		check(path+".statusReplicasPath", sc.StatusReplicasPath, ".status.")
	}
	if sc.LabelSelectorPath != nil && *sc.LabelSelectorPath != "" {
		check(path+".labelSelectorPath", *sc.LabelSelectorPath, ".spec.", ".status.")
	}
}

// validateColumn checks a printer column
// (ValidateCustomResourceColumnDefinition; kube names the path field
// "JSONPath").
func validateColumn(fs *crdErrors, c *api.CustomResourceColumnDefinition, path string) {
	if c.Name == "" {
		fs.required(path+".name", "")
	}
	typesMsg := "must be one of " + strings.Join(printerColumnTypes, ",")
	if c.Type == "" {
		fs.required(path+".type", typesMsg)
	} else if !crdContains(printerColumnTypes, c.Type) {
		fs.invalid(path+".type", c.Type, typesMsg)
	}
	if c.Format != "" && !crdContains(printerColumnFormats, c.Format) {
		fs.invalid(path+".format", c.Format, "must be one of "+strings.Join(printerColumnFormats, ","))
	}
	if c.JSONPath == "" {
		fs.required(path+".JSONPath", "")
	} else if msg := simpleJSONPathError(c.JSONPath); msg != "" {
		fs.invalid(path+".JSONPath", c.JSONPath, msg)
	}
}

// validateSelectableFields checks a version's selectable fields against
// its schema (ValidateCustomResourceSelectableFields).
func validateSelectableFields(fs *crdErrors, fields []api.SelectableField, schema *api.JSONSchemaProps, path string) {
	seen := map[string]bool{}
	for i, f := range fields {
		fpath := crdIndex(path, i) + ".jsonPath"
		if f.JSONPath == "" {
			fs.required(fpath, "")
			continue
		}
		keys, found, err := crdFieldPath(f.JSONPath, schema)
		if err != nil {
			fs.invalid(fpath, f.JSONPath, "is an invalid path: "+err.Error())
			continue
		}
		if len(keys) > 0 && keys[0] == "metadata" {
			fs.invalid(fpath, f.JSONPath, "must not point to fields in metadata")
		}
		if t := found.Type; t != "string" && t != "boolean" && t != "integer" {
			fs.invalid(fpath, f.JSONPath, "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.")
		}
		key := strings.Join(keys, "\x00")
		if seen[key] {
			fs.add(api.FieldDuplicate, fpath, f.JSONPath, "")
		}
		seen[key] = true
	}
	if len(seen) > maxSelectableFields {
		fs.add(crdTooMany, path, strconv.Itoa(len(seen)), fmt.Sprintf("must have at most %d items", maxSelectableFields))
	}
}

// crdFieldPath follows a dotted path through schema's properties and
// additionalProperties, as kube's cel.ValidFieldPath does without array
// notation, and returns the keys and the schema found.
func crdFieldPath(p string, schema *api.JSONSchemaProps) ([]string, *api.JSONSchemaProps, error) {
	var keys []string
	rest := p
	for rest != "" {
		switch rest[0] {
		case '[':
			return nil, nil, fmt.Errorf("array notation is not allowed")
		case '.':
		default:
			tok, _, _ := strings.Cut(rest, ".")
			tok, _, _ = strings.Cut(tok, "[")
			return nil, nil, fmt.Errorf("expected [ or . but got: %s", tok)
		}
		rest = rest[1:]
		if rest == "" {
			return nil, nil, fmt.Errorf("unexpected end of JSON path")
		}
		// The token after a dot runs to the next delimiter, or is the
		// delimiter itself when one follows at once.
		end := strings.IndexAny(rest, ".[]")
		switch {
		case end == 0:
			end = 1
		case end < 0:
			end = len(rest)
		}
		tok := rest[:end]
		rest = rest[end:]
		next, err := crdSchemaChild(schema, tok)
		if err != nil {
			return nil, nil, err
		}
		schema = next
		keys = append(keys, tok)
	}
	return keys, schema, nil
}

// crdSchemaChild returns the schema of key below s.
func crdSchemaChild(s *api.JSONSchemaProps, key string) (*api.JSONSchemaProps, error) {
	switch {
	case s.Properties != nil:
		sub, ok := s.Properties[key]
		if !ok {
			return nil, fmt.Errorf("does not refer to a valid field")
		}
		return &sub, nil
	case s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
		return s.AdditionalProperties.Schema, nil
	}
	return nil, fmt.Errorf("does not refer to a valid field")
}

// validateConversion checks spec.conversion (validateCustomResourceConversion),
// at kube's field paths: kube validates its internal form, where the
// webhook's clientConfig is spec.conversion.webhookClientConfig and its
// review versions spec.conversion.conversionReviewVersions.
func validateConversion(fs *crdErrors, c *api.CustomResourceConversion, opts specOptions) {
	if c == nil {
		return
	}
	const path = "spec.conversion"
	switch c.Strategy {
	case "":
		fs.required(path+".strategy", "")
	case api.NoneConverter, api.WebhookConverter:
	default:
		fs.unsupported(path+".strategy", string(c.Strategy), "None", "Webhook")
	}
	var cc *api.ConversionWebhookClientConfig
	var reviews []string
	if c.Webhook != nil {
		cc, reviews = c.Webhook.ClientConfig, c.Webhook.ConversionReviewVersions
	}
	if c.Strategy != api.WebhookConverter {
		if cc != nil {
			fs.forbidden(path+".webhookClientConfig", "should not be set when strategy is not set to Webhook")
		}
		if len(reviews) > 0 {
			fs.forbidden(path+".conversionReviewVersions", "should not be set when strategy is not set to Webhook")
		}
		return
	}
	switch {
	case cc == nil:
		fs.required(path+".webhookClientConfig", "required when strategy is set to Webhook")
	case (cc.URL == nil) == (cc.Service == nil):
		fs.required(path+".webhookClientConfig", "exactly one of url or service is required")
	case cc.URL != nil:
		validateWebhookURL(fs, path+".webhookClientConfig.url", *cc.URL)
	default:
		validateWebhookService(fs, path+".webhookClientConfig.service", cc.Service)
	}
	if cc != nil && len(cc.CABundle) > 0 && !opts.invalidCABundle {
		if msg := caBundleError(cc.CABundle); msg != "" {
			fs.invalid(path+".webhookClientConfig.caBundle", "", msg)
		}
	}
	rpath := path + ".conversionReviewVersions"
	if len(reviews) == 0 {
		fs.required(rpath, "")
		return
	}
	seen := map[string]bool{}
	known := false
	for i, v := range reviews {
		if seen[v] {
			fs.invalid(crdIndex(rpath, i), v, "duplicate version")
			continue
		}
		seen[v] = true
		for _, msg := range crdDNS1035Label(v) {
			fs.invalid(crdIndex(rpath, i), v, msg)
		}
		if v == "v1" || v == "v1beta1" {
			known = true
		}
	}
	if !known && opts.knownReviewVersions {
		fs.invalid(rpath, strings.Join(reviews, ","), "must include at least one of v1, v1beta1")
	}
}

// caBundleError returns client-go's message when b adds no certificate
// to a pool (transport.TLSConfigFor, as kube-apiserver checks a
// bundle), or "".
func caBundleError(b []byte) string {
	if x509.NewCertPool().AppendCertsFromPEM(b) {
		return ""
	}
	const prefix = "unable to load root certificates: "
	for len(b) > 0 {
		var block *pem.Block
		block, b = pem.Decode(b)
		if block == nil {
			return prefix + "unable to parse bytes as PEM block"
		}
		if block.Type != "CERTIFICATE" || len(block.Headers) != 0 {
			continue
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return prefix + "failed to parse certificate: " + err.Error()
		}
	}
	return prefix + "no valid certificate authority data seen"
}

// validateWebhookURL checks a webhook's URL (apiserver's ValidateWebhookURL).
func validateWebhookURL(fs *crdErrors, path, raw string) {
	const form = "; desired format: https://host[/path]"
	u, err := url.Parse(raw)
	if err != nil {
		fs.required(path, "url must be a valid URL: "+err.Error()+form)
		return
	}
	if u.Scheme != "https" {
		fs.invalid(path, u.Scheme, "'https' is the only allowed URL scheme"+form)
	}
	if u.Host == "" {
		fs.invalid(path, u.Host, "host must be specified"+form)
	}
	if u.User != nil {
		fs.invalid(path, u.User.String(), "user information is not permitted in the URL")
	}
	if u.Fragment != "" {
		fs.invalid(path, u.Fragment, "fragments are not permitted in the URL")
	}
	if u.RawQuery != "" {
		fs.invalid(path, u.RawQuery, "query parameters are not permitted in the URL")
	}
}

// validateWebhookService checks a webhook's service reference
// (apiserver's ValidateWebhookService).
func validateWebhookService(fs *crdErrors, path string, s *api.ConversionServiceReference) {
	if s.Name == "" {
		fs.required(path+".name", "")
	}
	if s.Namespace == "" {
		fs.required(path+".namespace", "")
	}
	port := int32(443)
	if s.Port != nil {
		port = *s.Port
	}
	if port < 1 || port > 65535 {
		fs.invalid(path+".port", strconv.Itoa(int(port)), "port is not valid: must be between 1 and 65535, inclusive")
	}
	if s.Path == nil {
		return
	}
	p := *s.Path
	if p == "/" || p == "" {
		return
	}
	if p == "//" {
		fs.invalid(path+".path", p, "segment[0] may not be empty")
		return
	}
	if !strings.HasPrefix(p, "/") {
		fs.invalid(path+".path", p, "must start with a '/'")
	}
	check := strings.TrimSuffix(p[1:], "/")
	for i, seg := range strings.Split(check, "/") {
		if seg == "" {
			fs.invalid(path+".path", p, fmt.Sprintf("segment[%d] may not be empty", i))
			continue
		}
		for _, msg := range crdDNS1123Subdomain(seg) {
			fs.invalid(path+".path", p, fmt.Sprintf("segment[%d]: %v", i, msg))
		}
	}
}

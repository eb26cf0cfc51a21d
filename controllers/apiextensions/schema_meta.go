package apiextensions

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// embeddedMetadata validates the metadata of an embedded resource as kube
// does: decoded into an ObjectMeta (a field of the wrong JSON type is the
// decoder's error), then its name and generateName (path segments), namespace (a DNS-1123
// label) when set, label keys and values, annotation keys and total size.
// Owner references, finalizers and managed fields are not checked.
func embeddedMetadata(v any, path string) []api.FieldError {
	meta, ok := v.(map[string]any)
	if !ok {
		return []api.FieldError{{Type: api.FieldInvalid, Field: path, Value: formatValue(v), Detail: "json: cannot unmarshal " + jsonKind(v) + " into Go value of type v1.ObjectMeta"}}
	}
	if msg := metadataTypeError(meta); msg != "" {
		return []api.FieldError{{Type: api.FieldInvalid, Field: path, Value: formatValue(v), Detail: msg}}
	}
	var errs []api.FieldError
	bad := func(field, value, detail string) {
		errs = append(errs, api.FieldError{Type: api.FieldInvalid, Field: path + "." + field, Value: value, Detail: detail})
	}
	if gen, _ := meta["generateName"].(string); gen != "" {
		for _, msg := range pathSegment(gen, true) {
			bad("generateName", gen, msg)
		}
	}
	if name, _ := meta["name"].(string); name != "" {
		for _, msg := range pathSegment(name, false) {
			bad("name", name, msg)
		}
	}
	if ns, _ := meta["namespace"].(string); ns != "" {
		for _, msg := range dns1123Label(ns) {
			bad("namespace", ns, msg)
		}
	}
	labels, _ := meta["labels"].(map[string]any)
	for _, k := range sortedKeys(labels) {
		for _, msg := range labelKey(k) {
			bad("labels", k, msg)
		}
		val, _ := labels[k].(string)
		for _, msg := range labelValue(val) {
			bad("labels", val, msg)
		}
	}
	annotations, _ := meta["annotations"].(map[string]any)
	size := 0
	for _, k := range sortedKeys(annotations) {
		for _, msg := range labelKey(strings.ToLower(k)) {
			bad("annotations", k, msg)
		}
		val, _ := annotations[k].(string)
		size += len(k) + len(val)
	}
	if size > 256*1024 {
		errs = append(errs, api.FieldError{Type: api.FieldTooLong, Field: path + ".annotations", Detail: fmt.Sprintf("may not be more than %d bytes", 256*1024)})
	}
	return errs
}

// metaFieldTypes are the JSON kinds of ObjectMeta's fields that decoding
// checks here: "string", "number", a map of strings, a list of strings.
var metaFieldTypes = map[string]string{
	"name": "string", "generateName": "string", "namespace": "string", "selfLink": "string",
	"uid": "string", "resourceVersion": "string",
	"generation": "int64", "deletionGracePeriodSeconds": "int64",
	"labels": "map[string]string", "annotations": "map[string]string",
	"finalizers": "[]string",
}

// metadataTypeError is encoding/json's error for the first field (in key
// order, as kube re-encodes the map) of the wrong type, or "".
func metadataTypeError(meta map[string]any) string {
	for _, k := range sortedKeys(meta) {
		want, ok := metaFieldTypes[k]
		v := meta[k]
		if !ok || v == nil {
			continue
		}
		field := "ObjectMeta." + k
		mismatch := func(got any, typ string) string {
			return fmt.Sprintf("json: cannot unmarshal %s into Go struct field %s of type %s", jsonKind(got), field, typ)
		}
		switch want {
		case "string":
			if _, ok := v.(string); !ok {
				return mismatch(v, "string")
			}
		case "int64":
			switch n := v.(type) {
			case int64:
			case float64:
				return fmt.Sprintf("json: cannot unmarshal number %s into Go struct field %s of type int64", formatValue(n), field)
			default:
				return mismatch(v, "int64")
			}
		case "map[string]string":
			m, ok := v.(map[string]any)
			if !ok {
				return mismatch(v, want)
			}
			for _, mk := range sortedKeys(m) {
				if _, ok := m[mk].(string); !ok && m[mk] != nil {
					return mismatch(m[mk], "string")
				}
			}
		case "[]string":
			l, ok := v.([]any)
			if !ok {
				return mismatch(v, want)
			}
			for _, e := range l {
				if _, ok := e.(string); !ok && e != nil {
					return mismatch(e, "string")
				}
			}
		}
	}
	return ""
}

// pathSegment returns why a name cannot be a path segment of a URL
// (kube's IsPathSegmentName; a generateName prefix may be "." or "..").
func pathSegment(name string, prefix bool) []string {
	var msgs []string
	if !prefix && (name == "." || name == "..") {
		msgs = append(msgs, fmt.Sprintf("may not be '%s'", name))
	}
	for _, c := range []string{"/", "%"} {
		if strings.Contains(name, c) {
			msgs = append(msgs, fmt.Sprintf("may not contain '%s'", c))
		}
	}
	return msgs
}

const (
	labelFmt       = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	labelKeyMsg    = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	labelValueMsg  = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	dnsLabelFmt    = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dnsLabelMsg    = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"
	dnsSubdomFmt   = dnsLabelFmt + "(\\." + dnsLabelFmt + ")*"
	dnsSubdomMsg   = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
	labelValueFmt  = "(" + labelFmt + ")?"
	keyExamples    = "'MyName',  or 'my.name',  or '123-abc', "
	valueExamples  = "'MyValue',  or 'my_value',  or '12345', "
	labelExamples  = "'my-name',  or '123-abc', "
	subdomExamples = "'example.com', "
)

var (
	rxLabelName  = regexp.MustCompile("^" + labelFmt + "$")
	rxLabelValue = regexp.MustCompile("^" + labelValueFmt + "$")
	rxDNSLabel   = regexp.MustCompile("^" + dnsLabelFmt + "$")
	rxDNSSubdom  = regexp.MustCompile("^" + dnsSubdomFmt + "$")
)

// regexError writes kube's "must match" message.
func regexError(msg, examples, re string) string {
	return msg + " (e.g. " + examples + "regex used for validation is '" + re + "')"
}

// labelKey returns why k is not a label key (a qualified name: an optional
// DNS subdomain prefix and "/", then a name of up to 63 characters).
func labelKey(k string) []string {
	var msgs []string
	parts := strings.Split(k, "/")
	name := parts[0]
	switch len(parts) {
	case 1:
	case 2:
		prefix := parts[0]
		name = parts[1]
		if prefix == "" {
			msgs = append(msgs, "prefix part must be non-empty")
		} else {
			if len(prefix) > 253 {
				msgs = append(msgs, "prefix part must be no more than 253 bytes")
			}
			if !rxDNSSubdom.MatchString(prefix) {
				msgs = append(msgs, "prefix part "+regexError(dnsSubdomMsg, subdomExamples, dnsSubdomFmt))
			}
		}
	default:
		return []string{"a valid label key " + regexError(labelKeyMsg, keyExamples, labelFmt) + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"}
	}
	if name == "" {
		msgs = append(msgs, "name part must be non-empty")
	} else if len(name) > 63 {
		msgs = append(msgs, "name part must be no more than 63 bytes")
	}
	if !rxLabelName.MatchString(name) {
		msgs = append(msgs, "name part "+regexError(labelKeyMsg, keyExamples, labelFmt))
	}
	return msgs
}

func labelValue(v string) []string {
	var msgs []string
	if len(v) > 63 {
		msgs = append(msgs, "must be no more than 63 bytes")
	}
	if !rxLabelValue.MatchString(v) {
		msgs = append(msgs, regexError(labelValueMsg, valueExamples, labelValueFmt))
	}
	return msgs
}

func dns1123Label(s string) []string {
	var msgs []string
	if len(s) > 63 {
		msgs = append(msgs, "must be no more than 63 characters")
	}
	if !rxDNSLabel.MatchString(s) {
		if rxDNSSubdom.MatchString(s) {
			msgs = append(msgs, "must not contain dots")
		} else {
			msgs = append(msgs, regexError(dnsLabelMsg, labelExamples, dnsLabelFmt))
		}
	}
	return msgs
}

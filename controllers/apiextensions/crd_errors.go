package apiextensions

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// crdErrors collects the field errors of one validation, in the order
// kube-apiserver reports them.
type crdErrors []api.FieldError

func (fs *crdErrors) add(t api.FieldErrorType, field, value, detail string) {
	*fs = append(*fs, api.FieldError{Type: t, Field: field, Value: value, Detail: detail})
}

func (fs *crdErrors) required(field, detail string) { fs.add(api.FieldRequired, field, "", detail) }
func (fs *crdErrors) invalid(field, value, detail string) {
	fs.add(api.FieldInvalid, field, value, detail)
}
func (fs *crdErrors) forbidden(field, detail string) { fs.add(api.FieldForbidden, field, "", detail) }

// unsupported reports a value not among supported, with kube's detail
// (`supported values: "Cluster", "Namespaced"`).
func (fs *crdErrors) unsupported(field, value string, supported ...string) {
	q := make([]string, len(supported))
	for i, s := range supported {
		q[i] = fmt.Sprintf("%q", s)
	}
	fs.add(api.FieldUnsupported, field, value, "supported values: "+strings.Join(q, ", "))
}

// crdTooMany is field.ErrorTypeTooMany, which package api does not name.
const crdTooMany api.FieldErrorType = "Too many"

// The name rules of k8s.io/apimachinery/pkg/util/validation, with its
// messages.
const (
	crdDNS1035LabelFmt     = `[a-z]([-a-z0-9]*[a-z0-9])?`
	crdDNS1123SubdomainFmt = `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`
)

var (
	crdDNS1035LabelRE     = regexp.MustCompile("^" + crdDNS1035LabelFmt + "$")
	crdDNS1123SubdomainRE = regexp.MustCompile("^" + crdDNS1123SubdomainFmt + "$")
)

// crdDNS1035Label returns kube's IsDNS1035Label messages for s (none when s
// is a label).
func crdDNS1035Label(s string) []string {
	var msgs []string
	if len(s) > 63 {
		msgs = append(msgs, "must be no more than 63 characters")
	}
	if !crdDNS1035LabelRE.MatchString(s) {
		msgs = append(msgs, "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '"+crdDNS1035LabelFmt+"')")
	}
	return msgs
}

// crdDNS1123Subdomain returns kube's IsDNS1123Subdomain messages for s.
func crdDNS1123Subdomain(s string) []string {
	var msgs []string
	if len(s) > 253 {
		msgs = append(msgs, "must be no more than 253 characters")
	}
	if !crdDNS1123SubdomainRE.MatchString(s) {
		msgs = append(msgs, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '"+crdDNS1123SubdomainFmt+"')")
	}
	return msgs
}

func crdIndex(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

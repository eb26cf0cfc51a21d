package cluster

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// The strategies of ValidatingWebhookConfiguration and
// MutatingWebhookConfiguration (admissionregistration.k8s.io/v1): the
// defaulting of k8s.io/api's admissionregistration/v1 defaults and the
// validation of kube's pkg/apis/admissionregistration/validation, for the
// v1 API (sideEffects and admissionReviewVersions required, webhook names
// unique in a configuration). matchConditions are checked for shape (name,
// expression, at most 64) but their CEL is neither compiled nor evaluated
// here (see package controllers/webhook).

func validatingWebhookConfigurationKind() *kind[*api.ValidatingWebhookConfiguration] {
	k := newKind[*api.ValidatingWebhookConfiguration]()
	k.defaults = func(c *api.ValidatingWebhookConfiguration) {
		for i := range c.Webhooks {
			w := &c.Webhooks[i]
			defaultWebhook(webhookFields{&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds, w.Rules, &w.ClientConfig})
		}
	}
	k.validate = func(c *api.ValidatingWebhookConfiguration, fs *fieldErrors) {
		names := map[string]bool{}
		for i := range c.Webhooks {
			w := &c.Webhooks[i]
			validateWebhook(fs, "webhooks["+strconv.Itoa(i)+"]", names, w)
		}
	}
	return k
}

func mutatingWebhookConfigurationKind() *kind[*api.MutatingWebhookConfiguration] {
	k := newKind[*api.MutatingWebhookConfiguration]()
	k.defaults = func(c *api.MutatingWebhookConfiguration) {
		for i := range c.Webhooks {
			w := &c.Webhooks[i]
			defaultWebhook(webhookFields{&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds, w.Rules, &w.ClientConfig})
			if w.ReinvocationPolicy == nil {
				w.ReinvocationPolicy = ptr(api.NeverReinvocationPolicy)
			}
		}
	}
	k.validate = func(c *api.MutatingWebhookConfiguration, fs *fieldErrors) {
		names := map[string]bool{}
		for i := range c.Webhooks {
			w := &c.Webhooks[i]
			path := "webhooks[" + strconv.Itoa(i) + "]"
			validateWebhook(fs, path, names, &api.ValidatingWebhook{Name: w.Name, ClientConfig: w.ClientConfig, Rules: w.Rules,
				FailurePolicy: w.FailurePolicy, MatchPolicy: w.MatchPolicy, NamespaceSelector: w.NamespaceSelector,
				ObjectSelector: w.ObjectSelector, SideEffects: w.SideEffects, TimeoutSeconds: w.TimeoutSeconds,
				AdmissionReviewVersions: w.AdmissionReviewVersions, MatchConditions: w.MatchConditions})
			if p := w.ReinvocationPolicy; p != nil && *p != api.NeverReinvocationPolicy && *p != api.IfNeededReinvocationPolicy {
				fs.add(FieldUnsupported, path+".reinvocationPolicy", string(*p), `supported values: "IfNeeded", "Never"`)
			}
		}
	}
	return k
}

// webhookFields are the defaulted fields both webhook types share.
type webhookFields struct {
	failurePolicy     **api.FailurePolicyType
	matchPolicy       **api.MatchPolicyType
	namespaceSelector **api.LabelSelector
	objectSelector    **api.LabelSelector
	timeoutSeconds    **int32
	rules             []api.RuleWithOperations
	clientConfig      *api.WebhookClientConfig
}

// defaultWebhook is SetDefaults_ValidatingWebhook (and the Rule and
// ServiceReference defaults) of admissionregistration/v1.
func defaultWebhook(f webhookFields) {
	if *f.failurePolicy == nil {
		*f.failurePolicy = ptr(api.Fail)
	}
	if *f.matchPolicy == nil {
		*f.matchPolicy = ptr(api.Equivalent)
	}
	if *f.namespaceSelector == nil {
		*f.namespaceSelector = &api.LabelSelector{}
	}
	if *f.objectSelector == nil {
		*f.objectSelector = &api.LabelSelector{}
	}
	defaultInt32(f.timeoutSeconds, 10)
	for i := range f.rules {
		if f.rules[i].Scope == nil {
			f.rules[i].Scope = ptr(api.AllScopes)
		}
	}
	if s := f.clientConfig.Service; s != nil && s.Port == nil {
		s.Port = ptr(int32(443))
	}
}

// supportedList formats the values of a NotSupported error as kube does.
func supportedList(vs ...string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = strconv.Quote(v)
	}
	return "supported values: " + strings.Join(q, ", ")
}

// validateWebhook is validateValidatingWebhook / validateMutatingWebhook
// of kube's admissionregistration validation, for v1.
func validateWebhook(fs *fieldErrors, path string, names map[string]bool, w *api.ValidatingWebhook) {
	// The name is a fully qualified domain name (IsFullyQualifiedName).
	switch {
	case w.Name == "":
		fs.required(path+".name", "")
	default:
		n := len(*fs)
		checkDNS1123Subdomain(fs, path+".name", w.Name)
		if len(*fs) == n && strings.Count(w.Name, ".") < 2 {
			fs.invalid(path+".name", w.Name, "should be a domain with at least three segments separated by dots")
		}
		if names[w.Name] {
			fs.add(FieldDuplicate, path+".name", w.Name, "")
		}
		names[w.Name] = true
	}
	for j := range w.Rules {
		validateRuleWithOperations(fs, path+".rules["+strconv.Itoa(j)+"]", &w.Rules[j])
	}
	if p := w.FailurePolicy; p != nil && *p != api.Fail && *p != api.Ignore {
		fs.add(FieldUnsupported, path+".failurePolicy", string(*p), supportedList("Fail", "Ignore"))
	}
	if p := w.MatchPolicy; p != nil && *p != api.Exact && *p != api.Equivalent {
		fs.add(FieldUnsupported, path+".matchPolicy", string(*p), supportedList("Equivalent", "Exact"))
	}
	switch s := w.SideEffects; {
	case s == nil:
		fs.required(path+".sideEffects", "must specify one of None, NoneOnDryRun")
	case *s != api.SideEffectClassNone && *s != api.SideEffectClassNoneOnDryRun:
		fs.add(FieldUnsupported, path+".sideEffects", string(*s), supportedList("None", "NoneOnDryRun"))
	}
	if t := w.TimeoutSeconds; t != nil && (*t < 1 || *t > 30) {
		fs.invalid(path+".timeoutSeconds", strconv.Itoa(int(*t)), "the timeout value must be between 1 and 30 seconds")
	}
	validateWebhookSelector(fs, path+".namespaceSelector", w.NamespaceSelector)
	validateWebhookSelector(fs, path+".objectSelector", w.ObjectSelector)
	validateAdmissionReviewVersions(fs, path+".admissionReviewVersions", w.AdmissionReviewVersions)
	validateWebhookClientConfig(fs, path+".clientConfig", &w.ClientConfig)
	validateMatchConditions(fs, path+".matchConditions", w.MatchConditions)
}

var webhookOperations = []string{"*", "CONNECT", "CREATE", "DELETE", "UPDATE"}

func validateRuleWithOperations(fs *fieldErrors, path string, r *api.RuleWithOperations) {
	if len(r.Operations) == 0 {
		fs.required(path+".operations", "")
	}
	if len(r.Operations) > 1 && slices.Contains(r.Operations, api.OperationAll) {
		fs.invalid(path+".operations", fmt.Sprint(r.Operations), "if '*' is present, must not specify other operations")
	}
	for i, op := range r.Operations {
		if !slices.Contains(webhookOperations, string(op)) {
			fs.add(FieldUnsupported, path+".operations["+strconv.Itoa(i)+"]", string(op), supportedList(webhookOperations...))
		}
	}
	if len(r.APIGroups) == 0 {
		fs.required(path+".apiGroups", "")
	}
	if len(r.APIGroups) > 1 && slices.Contains(r.APIGroups, "*") {
		fs.invalid(path+".apiGroups", fmt.Sprint(r.APIGroups), "if '*' is present, must not specify other API groups")
	}
	if len(r.APIVersions) == 0 {
		fs.required(path+".apiVersions", "")
	}
	if len(r.APIVersions) > 1 && slices.Contains(r.APIVersions, "*") {
		fs.invalid(path+".apiVersions", fmt.Sprint(r.APIVersions), "if '*' is present, must not specify other API versions")
	}
	for i, v := range r.APIVersions {
		if v == "" {
			fs.required(path+".apiVersions["+strconv.Itoa(i)+"]", "")
		}
	}
	validateRuleResources(fs, path+".resources", r.Resources)
	if s := r.Scope; s != nil && *s != api.AllScopes && *s != api.ClusterScope && *s != api.NamespacedScope {
		fs.add(FieldUnsupported, path+".scope", string(*s), supportedList("*", "Cluster", "Namespaced"))
	}
}

// validateRuleResources checks the resources of a rule: "x", "x/y", "x/*",
// "*/y", "*" and "*/*", without redundant combinations.
func validateRuleResources(fs *fieldErrors, path string, resources []string) {
	if len(resources) == 0 {
		fs.required(path, "")
	}
	wildSub := map[string]bool{} // x/*
	wildRes := map[string]bool{} // */x
	double, single, plain := false, false, false
	for i, rs := range resources {
		ip := path + "[" + strconv.Itoa(i) + "]"
		if rs == "" {
			fs.required(ip, "")
			continue
		}
		double = double || rs == "*/*"
		single = single || rs == "*"
		res, sub, ok := strings.Cut(rs, "/")
		if !ok {
			plain = plain || rs != "*"
			continue
		}
		if wildSub[res] {
			fs.invalid(ip, rs, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, rs))
		}
		if wildRes[sub] {
			fs.invalid(ip, rs, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, rs))
		}
		if sub == "*" {
			wildSub[res] = true
		}
		if res == "*" {
			wildRes[sub] = true
		}
	}
	if len(resources) > 1 && double {
		fs.invalid(path, fmt.Sprint(resources), "if '*/*' is present, must not specify other resources")
	}
	if single && plain {
		fs.invalid(path, fmt.Sprint(resources), "if '*' is present, must not specify other resources without subresources")
	}
}

func validateWebhookSelector(fs *fieldErrors, path string, sel *api.LabelSelector) {
	if sel == nil {
		return
	}
	checkLabels(fs, path+".matchLabels", sel.MatchLabels)
	if _, err := sel.AsSelector(); err != nil {
		fs.invalid(path, "", err.Error())
	}
}

func validateAdmissionReviewVersions(fs *fieldErrors, path string, versions []string) {
	if len(versions) == 0 {
		fs.required(path, "must specify one of v1, v1beta1")
		return
	}
	seen := map[string]bool{}
	known := false
	for i, v := range versions {
		ip := path + "[" + strconv.Itoa(i) + "]"
		if seen[v] {
			fs.invalid(ip, v, "duplicate version")
			continue
		}
		seen[v] = true
		checkDNS1035Label(fs, ip, v)
		known = known || v == "v1" || v == "v1beta1"
	}
	if !known {
		fs.invalid(path, fmt.Sprint(versions), "must include at least one of v1, v1beta1")
	}
}

// validateWebhookClientConfig is kube's validateWebhookClientConfig with
// ValidateWebhookURL (https only) and ValidateWebhookService.
func validateWebhookClientConfig(fs *fieldErrors, path string, cc *api.WebhookClientConfig) {
	switch {
	case (cc.URL == nil) == (cc.Service == nil):
		fs.required(path, "exactly one of url or service is required")
	case cc.URL != nil:
		const form = "; desired format: https://host[/path]"
		p := path + ".url"
		u, err := url.Parse(*cc.URL)
		if err != nil {
			fs.required(p, "url must be a valid URL: "+err.Error()+form)
			return
		}
		if u.Scheme != "https" {
			fs.invalid(p, u.Scheme, "'https' is the only allowed URL scheme"+form)
		}
		if u.Host == "" {
			fs.invalid(p, u.Host, "host must be specified"+form)
		}
		if u.User != nil {
			fs.invalid(p, u.User.String(), "user information is not permitted in the URL")
		}
		if u.Fragment != "" {
			fs.invalid(p, u.Fragment, "fragments are not permitted in the URL")
		}
		if u.RawQuery != "" {
			fs.invalid(p, u.RawQuery, "query parameters are not permitted in the URL")
		}
	default:
		s, p := cc.Service, path+".service"
		if s.Name == "" {
			fs.required(p+".name", "service name is required")
		}
		if s.Namespace == "" {
			fs.required(p+".namespace", "service namespace is required")
		}
		if s.Port != nil && (*s.Port < 1 || *s.Port > 65535) {
			fs.invalid(p+".port", strconv.Itoa(int(*s.Port)), "port is not valid: must be between 1 and 65535, inclusive")
		}
		validateServicePath(fs, p+".path", s.Path)
	}
}

func validateServicePath(fs *fieldErrors, path string, p *string) {
	if p == nil || *p == "/" || *p == "" {
		return
	}
	v := *p
	if v == "//" {
		fs.invalid(path, v, "segment[0] may not be empty")
		return
	}
	if !strings.HasPrefix(v, "/") {
		fs.invalid(path, v, "must start with a '/'")
	}
	check := strings.TrimSuffix(strings.TrimPrefix(v, "/"), "/")
	for i, step := range strings.Split(check, "/") {
		if step == "" {
			fs.invalid(path, v, fmt.Sprintf("segment[%d] may not be empty", i))
			continue
		}
		var seg fieldErrors
		checkDNS1123Subdomain(&seg, path, step)
		for _, e := range seg {
			fs.invalid(path, v, fmt.Sprintf("segment[%d]: %s", i, e.Detail))
		}
	}
}

// validateMatchConditions checks matchConditions' shape; the CEL is not
// compiled.
func validateMatchConditions(fs *fieldErrors, path string, mcs []api.MatchCondition) {
	if len(mcs) > 64 {
		fs.add(FieldTooLong, path, "", "must have at most 64 items")
	}
	seen := map[string]bool{}
	for i, mc := range mcs {
		ip := path + "[" + strconv.Itoa(i) + "]"
		switch {
		case mc.Name == "":
			fs.required(ip+".name", "")
		case seen[mc.Name]:
			fs.add(FieldDuplicate, ip+".name", mc.Name, "")
		default:
			checkQualifiedName(fs, ip+".name", mc.Name)
		}
		seen[mc.Name] = true
		if mc.Expression == "" {
			fs.required(ip+".expression", "")
		}
	}
}

package cluster

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// The bounds of kube's pkg/apis/batch/validation.
const (
	maxPodFailurePolicyRules                   = 20
	maxPodFailurePolicyOnExitCodesValues       = 255
	maxPodFailurePolicyOnPodConditionsPatterns = 20
	maxManagedByLength                         = 63
	maxSuccessPolicySucceededIndexesLength     = 64 * 1024
	maxSuccessPolicyRules                      = 20
)

// httpPathRE is apimachinery's httpPathFmt (IsDomainPrefixedPath).
const httpPathFmt = `[A-Za-z0-9/\-._~%!$&'()*+,;=:]+`

var httpPathRE = regexp.MustCompile("^" + httpPathFmt + "$")

// validateJobPolicies is the part of kube's validateJobSpec about
// managedBy, podFailurePolicy and successPolicy.
func validateJobPolicies(fs *fieldErrors, path string, s *api.JobSpec, indexed bool) {
	if s.ManagedBy != nil {
		checkDomainPrefixedPath(fs, path+".managedBy", *s.ManagedBy)
		if len(*s.ManagedBy) > maxManagedByLength {
			fs.add(FieldTooLong, path+".managedBy", "", fmt.Sprintf("may not be more than %d bytes", maxManagedByLength))
		}
	}
	if s.PodFailurePolicy != nil {
		validatePodFailurePolicy(fs, path+".podFailurePolicy", s)
	}
	if s.SuccessPolicy != nil {
		if !indexed {
			*fs = append(*fs, FieldError{Type: FieldInvalid, Field: path + ".successPolicy", Value: successPolicyValue(s.SuccessPolicy),
				BadValue: json.RawMessage(successPolicyValue(s.SuccessPolicy)), Detail: "requires indexed completion mode"})
		} else {
			validateSuccessPolicy(fs, path+".successPolicy", s)
		}
	}
}

// checkDomainPrefixedPath is apimachinery's IsDomainPrefixedPath: a DNS
// subdomain, "/", and an HTTP path.
func checkDomainPrefixedPath(fs *fieldErrors, path, v string) {
	if v == "" {
		fs.required(path, "")
		return
	}
	host, rest, ok := strings.Cut(v, "/")
	if !ok || host == "" || rest == "" {
		fs.invalid(path, v, `must be a domain-prefixed path (such as "acme.io/foo")`)
		return
	}
	checkDNS1123Subdomain(fs, path, host)
	if !httpPathRE.MatchString(rest) {
		fs.invalid(path, rest, "Invalid path (regex used for validation is '"+httpPathFmt+"')")
	}
}

// successPolicyValue prints a success policy as kube-apiserver prints
// the internal object in an error (its Go field names).
func successPolicyValue(p *api.SuccessPolicy) string {
	type rule struct {
		SucceededIndexes *string
		SucceededCount   *int32
	}
	v := struct{ Rules []rule }{Rules: []rule{}}
	for _, r := range p.Rules {
		v.Rules = append(v.Rules, rule(r))
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func invalidInt(fs *fieldErrors, path string, v int64, detail string) {
	*fs = append(*fs, FieldError{Type: FieldInvalid, Field: path, Value: strconv.FormatInt(v, 10), BadValue: v, Detail: detail})
}

func tooMany(fs *fieldErrors, path string, n, limit int) {
	*fs = append(*fs, FieldError{Type: FieldTooMany, Field: path, Value: strconv.Itoa(n), BadValue: n,
		Detail: fmt.Sprintf("must have at most %d items", limit)})
}

// validatePodFailurePolicy is kube's validatePodFailurePolicy and the
// rule checks under it (validatePodFailurePolicyRule,
// validatePodFailurePolicyRuleOnExitCodes,
// validatePodFailurePolicyRuleOnPodConditions).
func validatePodFailurePolicy(fs *fieldErrors, path string, s *api.JobSpec) {
	rulesPath := path + ".rules"
	if n := len(s.PodFailurePolicy.Rules); n > maxPodFailurePolicyRules {
		tooMany(fs, rulesPath, n, maxPodFailurePolicyRules)
	}
	containers := map[string]bool{}
	for _, c := range s.Template.Spec.Containers {
		containers[c.Name] = true
	}
	for _, c := range s.Template.Spec.InitContainers {
		containers[c.Name] = true
	}
	for i, rule := range s.PodFailurePolicy.Rules {
		rulePath := fmt.Sprintf("%s[%d]", rulesPath, i)
		switch rule.Action {
		case "":
			fs.required(rulePath+".action", `valid values: ["Count" "FailIndex" "FailJob" "Ignore"]`)
		case "FailIndex":
			if s.BackoffLimitPerIndex == nil {
				fs.invalid(rulePath+".action", rule.Action, "requires the backoffLimitPerIndex to be set")
			}
		case "FailJob", "Ignore", "Count":
		default:
			fs.add(FieldUnsupported, rulePath+".action", rule.Action, `supported values: "Count", "FailIndex", "FailJob", "Ignore"`)
		}
		if rule.OnExitCodes != nil {
			validateOnExitCodes(fs, rulePath+".onExitCodes", rule.OnExitCodes, containers)
		}
		if len(rule.OnPodConditions) > 0 {
			validateOnPodConditions(fs, rulePath+".onPodConditions", rule.OnPodConditions)
		}
		if rule.OnExitCodes != nil && len(rule.OnPodConditions) > 0 {
			fs.invalid(rulePath, "", "specifying both OnExitCodes and OnPodConditions is not supported")
		}
		if rule.OnExitCodes == nil && len(rule.OnPodConditions) == 0 {
			fs.invalid(rulePath, "", "specifying one of OnExitCodes and OnPodConditions is required")
		}
	}
}

func validateOnExitCodes(fs *fieldErrors, path string, oe *api.PodFailurePolicyOnExitCodesRequirement, containers map[string]bool) {
	switch oe.Operator {
	case "":
		fs.required(path+".operator", `valid values: ["In" "NotIn"]`)
	case "In", "NotIn":
	default:
		fs.add(FieldUnsupported, path+".operator", oe.Operator, `supported values: "In", "NotIn"`)
	}
	if oe.ContainerName != nil && !containers[*oe.ContainerName] {
		fs.invalid(path+".containerName", *oe.ContainerName, "must be one of the container or initContainer names in the pod template")
	}
	valuesPath := path + ".values"
	values := json.RawMessage("[]")
	if len(oe.Values) > 0 {
		values, _ = json.Marshal(oe.Values)
	}
	switch n := len(oe.Values); {
	case n == 0:
		*fs = append(*fs, FieldError{Type: FieldInvalid, Field: valuesPath, Value: string(values), BadValue: values, Detail: "at least one value is required"})
	case n > maxPodFailurePolicyOnExitCodesValues:
		tooMany(fs, valuesPath, n, maxPodFailurePolicyOnExitCodesValues)
	}
	ordered := true
	seen := map[int32]bool{}
	for j, v := range oe.Values {
		vp := fmt.Sprintf("%s[%d]", valuesPath, j)
		if oe.Operator == "In" && v == 0 {
			invalidInt(fs, vp, int64(v), "must not be 0 for the In operator")
		}
		if seen[v] {
			*fs = append(*fs, FieldError{Type: FieldDuplicate, Field: vp, Value: strconv.Itoa(int(v)), BadValue: v})
		}
		seen[v] = true
		if j > 0 && oe.Values[j-1] > v {
			ordered = false
		}
	}
	if !ordered {
		*fs = append(*fs, FieldError{Type: FieldInvalid, Field: valuesPath, Value: string(values), BadValue: values, Detail: "must be ordered"})
	}
}

func validateOnPodConditions(fs *fieldErrors, path string, patterns []api.PodFailurePolicyOnPodConditionsPattern) {
	if n := len(patterns); n > maxPodFailurePolicyOnPodConditionsPatterns {
		tooMany(fs, path, n, maxPodFailurePolicyOnPodConditionsPatterns)
	}
	for j, p := range patterns {
		pp := fmt.Sprintf("%s[%d]", path, j)
		if p.Type == "" {
			*fs = append(*fs, FieldError{Type: FieldInvalid, Field: pp + ".type", BadValue: "", Detail: "name part must be non-empty"})
		} else {
			checkQualifiedName(fs, pp+".type", string(p.Type))
		}
		switch p.Status {
		case "":
			fs.required(pp+".status", `valid values: ["False" "True" "Unknown"]`)
		case api.ConditionTrue, api.ConditionFalse, api.ConditionUnknown:
		default:
			fs.add(FieldUnsupported, pp+".status", string(p.Status), `supported values: "False", "True", "Unknown"`)
		}
	}
}

// validateSuccessPolicy is kube's validateSuccessPolicy and
// validateSuccessPolicyRule, for an Indexed job.
func validateSuccessPolicy(fs *fieldErrors, path string, s *api.JobSpec) {
	rulesPath := path + ".rules"
	rules := s.SuccessPolicy.Rules
	if len(rules) == 0 {
		fs.required(rulesPath, "at least one rules must be specified when the successPolicy is specified")
	}
	if len(rules) > maxSuccessPolicyRules {
		tooMany(fs, rulesPath, len(rules), maxSuccessPolicyRules)
	}
	completions := int32(0)
	if s.Completions != nil {
		completions = *s.Completions
	}
	for i, r := range rules {
		rp := fmt.Sprintf("%s[%d]", rulesPath, i)
		if r.SucceededCount == nil && r.SucceededIndexes == nil {
			fs.required(rp, "at least one of succeededCount or succeededIndexes must be specified")
		}
		var total int32
		if r.SucceededIndexes != nil {
			ip := rp + ".succeededIndexes"
			if len(*r.SucceededIndexes) > maxSuccessPolicySucceededIndexesLength {
				fs.add(FieldTooLong, ip, "", fmt.Sprintf("may not be more than %d bytes", maxSuccessPolicySucceededIndexesLength))
			}
			var err error
			if total, err = indexesTotal(*r.SucceededIndexes, completions); err != nil {
				fs.invalid(ip, *r.SucceededIndexes, "error parsing succeededIndexes: "+err.Error())
			}
		}
		if c := r.SucceededCount; c != nil {
			cp := rp + ".succeededCount"
			if *c < 0 {
				invalidInt(fs, cp, int64(*c), "must be greater than or equal to 0")
			}
			if *c > completions {
				invalidInt(fs, cp, int64(*c), fmt.Sprintf("must be less than or equal to %d (the number of specified completions)", completions))
			}
			if r.SucceededIndexes != nil && *c > total {
				invalidInt(fs, cp, int64(*c), fmt.Sprintf("must be less than or equal to %d (the number of indexes in the specified succeededIndexes field)", total))
			}
		}
	}
}

// indexesTotal is kube's validateIndexesFormat: a comma-separated,
// strictly increasing list of indexes and "x-y" intervals below
// completions; it returns how many indexes the list holds.
func indexesTotal(s string, completions int32) (int32, error) {
	if s == "" {
		return 0, nil
	}
	var total int32
	last := int32(-1)
	for _, interval := range strings.Split(s, ",") {
		x, y, err := indexInterval(interval, completions)
		if err != nil {
			return 0, err
		}
		if last >= x {
			return 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", last, x)
		}
		total += y - x + 1
		last = y
	}
	return total, nil
}

func indexInterval(s string, completions int32) (int32, int32, error) {
	parts := strings.Split(s, "-")
	if len(parts) > 2 {
		return 0, 0, fmt.Errorf("the fragment %q violates the requirement that an index interval can have at most two parts separated by '-'", s)
	}
	bound := func(p string) (int32, error) {
		v, err := strconv.Atoi(p)
		if err != nil {
			return 0, fmt.Errorf("cannot convert string to integer for index: %q", p)
		}
		if v >= int(completions) {
			return 0, fmt.Errorf("too large index: %q", p)
		}
		return int32(v), nil
	}
	x, err := bound(parts[0])
	if err != nil {
		return 0, 0, err
	}
	if len(parts) == 1 {
		return x, x, nil
	}
	y, err := bound(parts[1])
	if err != nil {
		return 0, 0, err
	}
	if x >= y {
		return 0, 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", x, y)
	}
	return x, y, nil
}

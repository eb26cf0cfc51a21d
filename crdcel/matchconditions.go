package crdcel

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	celplugin "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/webhook"
)

// maxCompiled bounds the compiled condition sets kept for reuse.
const maxCompiled = 256

var (
	conditionCompiler = sync.OnceValue(func() celplugin.ConditionCompiler {
		return celplugin.NewConditionCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	})
	compiledMu sync.Mutex
	compiled   = map[string]matchconditions.Matcher{}
)

// MatchConditions is a webhook.MatchConditionsFunc: it evaluates a
// webhook's matchConditions with kube-apiserver's own code (k8s.io/apiserver's
// condition compiler over its base CEL environment, and its
// matchconditions matcher with the runtime cost budget of match
// conditions), on the variables object, oldObject and request of the
// request the webhook would be sent. There is no authorizer: an
// expression using `authorizer` cannot be evaluated (the webhook's
// failure policy decides). Compiled conditions are reused (at most 256
// sets kept). Plug it in with webhook.Options{MatchConditions:
// crdcel.MatchConditions}.
func MatchConditions(ctx context.Context, name string, conditions []api.MatchCondition, req *webhook.AdmissionRequest) (bool, error) {
	m := matcherFor(name, conditions)
	attrs, err := versionedAttributes(req)
	if err != nil {
		return false, err
	}
	res := m.Match(ctx, attrs, nil, nil)
	if res.Error != nil {
		return false, res.Error
	}
	return res.Matches, nil
}

// matcherFor compiles conditions, or returns them compiled before.
func matcherFor(name string, conditions []api.MatchCondition) matchconditions.Matcher {
	var key strings.Builder
	key.WriteString(name)
	for _, c := range conditions {
		fmt.Fprintf(&key, "\x00%s\x00%s", c.Name, c.Expression)
	}
	compiledMu.Lock()
	defer compiledMu.Unlock()
	if m, ok := compiled[key.String()]; ok {
		return m
	}
	exprs := make([]celplugin.ExpressionAccessor, len(conditions))
	for i, c := range conditions {
		exprs[i] = &matchconditions.MatchCondition{Name: c.Name, Expression: c.Expression}
	}
	// As kube-apiserver compiles a webhook's conditions: no params, an
	// authorizer declared, stored expressions' environment; failing
	// closed, so that an evaluation error comes back as an error.
	fail := admissionregistrationv1.Fail
	m := matchconditions.NewMatcher(conditionCompiler().CompileCondition(exprs,
		celplugin.OptionalVariableDeclarations{HasParams: false, HasAuthorizer: true},
		environment.StoredExpressions), &fail, "webhook", "validating", name)
	if len(compiled) >= maxCompiled {
		clear(compiled)
	}
	compiled[key.String()] = m
	return m
}

// versionedAttributes is req as kube-apiserver's admission attributes.
func versionedAttributes(req *webhook.AdmissionRequest) (*admission.VersionedAttributes, error) {
	obj, err := toObject(req.Object)
	if err != nil {
		return nil, fmt.Errorf("object: %w", err)
	}
	old, err := toObject(req.OldObject)
	if err != nil {
		return nil, fmt.Errorf("oldObject: %w", err)
	}
	opts, err := toObject(req.Options)
	if err != nil {
		return nil, fmt.Errorf("options: %w", err)
	}
	gvk := schema.GroupVersionKind{Group: req.Kind.Group, Version: req.Kind.Version, Kind: req.Kind.Kind}
	gvr := schema.GroupVersionResource{Group: req.Resource.Group, Version: req.Resource.Version, Resource: req.Resource.Resource}
	dryRun := req.DryRun != nil && *req.DryRun
	info := &user.DefaultInfo{Name: req.UserInfo.Username, UID: req.UserInfo.UID, Groups: req.UserInfo.Groups}
	a := admission.NewAttributesRecord(obj, old, gvk, req.Namespace, req.Name, gvr, req.SubResource,
		admission.Operation(req.Operation), opts, dryRun, info)
	return &admission.VersionedAttributes{Attributes: a, VersionedKind: gvk,
		VersionedObject: admission.NewLazyObject(obj), VersionedOldObject: admission.NewLazyObject(old)}, nil
}

// toObject decodes raw JSON into an unstructured object; absent or null
// is no object (a nil interface, as kube-apiserver's attributes hold it).
func toObject(raw json.RawMessage) (runtime.Object, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	return u, nil
}

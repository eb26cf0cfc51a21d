package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/rbac"
	"sigs.k8s.io/yaml"
)

// The review groups, served beside the kinds: created, answered, never
// stored.
const (
	authorizationV1  = "authorization.k8s.io/v1"
	authenticationV1 = "authentication.k8s.io/v1"
)

// reviewResources are the review resources of each group version, for
// discovery and routing: resource → kind, namespaced.
var reviewResources = map[string][]reviewResource{
	authorizationV1: {
		{"localsubjectaccessreviews", "LocalSubjectAccessReview", true},
		{"selfsubjectaccessreviews", "SelfSubjectAccessReview", false},
		{"selfsubjectrulesreviews", "SelfSubjectRulesReview", false},
		{"subjectaccessreviews", "SubjectAccessReview", false},
	},
	authenticationV1: {
		{"selfsubjectreviews", "SelfSubjectReview", false},
		{"tokenreviews", "TokenReview", false},
	},
}

type reviewResource struct {
	name, kind string
	namespaced bool
}

// serveReview serves the review resources of gv (rest: the path after
// it); false when rest names none of them.
func (s *Server) serveReview(w http.ResponseWriter, r *http.Request, gv string, rest []string) bool {
	ns := ""
	if len(rest) == 3 && rest[0] == "namespaces" {
		ns, rest = rest[1], rest[2:]
	}
	if len(rest) != 1 {
		return false
	}
	var res *reviewResource
	for i, rr := range reviewResources[gv] {
		if rr.name == rest[0] && rr.namespaced == (ns != "") {
			res = &reviewResources[gv][i]
		}
	}
	if res == nil {
		return false
	}
	if r.Method != http.MethodPost {
		writeError(w, newError(http.StatusMethodNotAllowed, "MethodNotAllowed",
			fmt.Sprintf("the server does not allow this method on the requested resource (%s)", r.Method)), nil, "")
		return true
	}
	obj, err := s.review(r, gv, res, ns)
	if err != nil {
		writeError(w, err, nil, "")
		return true
	}
	writeJSON(w, http.StatusCreated, obj)
	return true
}

// review decodes, validates and answers one review.
func (s *Server) review(r *http.Request, gv string, res *reviewResource, ns string) (any, error) {
	if err := checkContentType(r, protobufBodyTypes); err != nil {
		return nil, err
	}
	b, err := readLimited(&request{r: r})
	if err != nil {
		return nil, err
	}
	if isProtobuf(r) { // kubectl's typed clients send protobuf
		if b, err = decodeProtobufBody(b, gv, res.kind); err != nil {
			return nil, err
		}
	}
	u, _ := rbac.UserFrom(r.Context())
	ctx := r.Context()
	tm := api.TypeMeta{APIVersion: gv, Kind: res.kind}
	now := api.NewTime(time.Now().UTC().Truncate(time.Second))
	decode := func(v any) error {
		if err := yaml.Unmarshal(b, v); err != nil {
			return badRequest("the body of the request could not be decoded as a %s: %v", res.kind, err)
		}
		return nil
	}
	switch res.kind {
	case "SelfSubjectAccessReview":
		var o api.SelfSubjectAccessReview
		if err := decode(&o); err != nil {
			return nil, err
		}
		if err := checkAttributes(res.kind, o.Spec.ResourceAttributes, o.Spec.NonResourceAttributes, ""); err != nil {
			return nil, err
		}
		o.TypeMeta, o.CreationTimestamp = tm, now
		o.Status = s.access(ctx, u, o.Spec.ResourceAttributes, o.Spec.NonResourceAttributes)
		return &o, nil
	case "SubjectAccessReview", "LocalSubjectAccessReview":
		var o api.SubjectAccessReview
		if err := decode(&o); err != nil {
			return nil, err
		}
		if o.Spec.User == "" && len(o.Spec.Groups) == 0 {
			return nil, invalid(res.kind, o.Name, "spec.user", `Invalid value: "": at least one of user or group must be specified`)
		}
		if err := checkAttributes(res.kind, o.Spec.ResourceAttributes, o.Spec.NonResourceAttributes, ns); err != nil {
			return nil, err
		}
		if ns != "" && o.Namespace == "" {
			o.Namespace = ns
		}
		if ns != "" && o.Namespace != ns {
			return nil, badRequest("the namespace of the provided object does not match the namespace sent on the request")
		}
		subject := rbac.User{Name: o.Spec.User, UID: o.Spec.UID, Groups: o.Spec.Groups}
		o.TypeMeta, o.CreationTimestamp = tm, now
		o.Status = s.access(ctx, subject, o.Spec.ResourceAttributes, o.Spec.NonResourceAttributes)
		return &o, nil
	case "SelfSubjectRulesReview":
		var o api.SelfSubjectRulesReview
		if err := decode(&o); err != nil {
			return nil, err
		}
		o.TypeMeta, o.CreationTimestamp = tm, now
		o.Status = s.rules(ctx, u, o.Spec.Namespace)
		return &o, nil
	case "SelfSubjectReview":
		var o api.SelfSubjectReview
		if err := decode(&o); err != nil {
			return nil, err
		}
		o.TypeMeta, o.CreationTimestamp = tm, now
		o.Status.UserInfo = api.UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups}
		for k, v := range u.Extra {
			if o.Status.UserInfo.Extra == nil {
				o.Status.UserInfo.Extra = map[string]api.ExtraValue{}
			}
			o.Status.UserInfo.Extra[k] = v
		}
		return &o, nil
	case "TokenReview":
		var o api.TokenReview
		if err := decode(&o); err != nil {
			return nil, err
		}
		if o.Spec.Token == "" {
			return nil, newError(http.StatusUnprocessableEntity, "Invalid",
				fmt.Sprintf("TokenReview.authentication.k8s.io %q is invalid: spec.token: Required value: token must not be empty", o.Name))
		}
		o.TypeMeta, o.CreationTimestamp = tm, now
		o.Status = s.reviewToken(ctx, o.Spec)
		o.Spec.Token = "" // never echoed, as kube's
		return &o, nil
	}
	return nil, notFound()
}

// reviewToken answers a TokenReview: a service account token of
// Options.ServiceAccountTokens for one of spec.audiences (the API
// audiences when empty).
func (s *Server) reviewToken(ctx context.Context, spec api.TokenReviewSpec) api.TokenReviewStatus {
	u, ok, err := s.authenticateToken(ctx, spec.Token, spec.Audiences)
	switch {
	case err != nil:
		// The union authenticator's aggregate, as kube's status.error.
		return api.TokenReviewStatus{Error: "[" + strings.Replace(err.Error(), ": ", ", ", 1) + "]"}
	case !ok:
		return api.TokenReviewStatus{}
	}
	auds := spec.Audiences
	if len(auds) == 0 {
		auds = s.opts.ServiceAccountTokens.Audiences()
	}
	st := api.TokenReviewStatus{Authenticated: true, Audiences: auds,
		User: api.UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups}}
	if len(u.Extra) > 0 {
		st.User.Extra = map[string]api.ExtraValue{}
		for k, v := range u.Extra {
			st.User.Extra[k] = v
		}
	}
	return st
}

func invalid(kind, name, field, detail string) *apiError {
	e := newError(http.StatusUnprocessableEntity, "Invalid",
		fmt.Sprintf("%s.%s %q is invalid: %s: %s", kind, "authorization.k8s.io", name, field, detail))
	e.status.Details = &StatusDetails{Name: name, Group: "authorization.k8s.io", Kind: kind,
		Causes: []StatusCause{{Reason: "FieldValueInvalid", Field: field, Message: detail}}}
	return e
}

// checkAttributes is kube's validation of an access review's spec:
// exactly one of the two attribute sets.
func checkAttributes(kind string, ra *api.ResourceAttributes, nra *api.NonResourceAttributes, _ string) error {
	switch {
	case ra == nil && nra == nil:
		return invalid(kind, "", "spec.resourceAttributes", "Required value: exactly one of nonResourceAttributes or resourceAttributes must be specified")
	case ra != nil && nra != nil:
		return invalid(kind, "", "spec.nonResourceAttributes", "Invalid value: cannot be specified in combination with resourceAttributes")
	}
	return nil
}

// access decides a review's request for u, by RBAC whatever the
// server's authorization mode (what the cluster's roles say).
func (s *Server) access(ctx context.Context, u rbac.User, ra *api.ResourceAttributes, nra *api.NonResourceAttributes) api.SubjectAccessReviewStatus {
	a := rbac.Attributes{User: u}
	if ra != nil {
		a.ResourceRequest, a.Verb, a.Namespace, a.APIGroup, a.APIVersion = true, ra.Verb, ra.Namespace, ra.Group, ra.Version
		a.Resource, a.Subresource, a.Name = ra.Resource, ra.Subresource, ra.Name
	} else {
		a.Verb, a.Path = nra.Verb, nra.Path
	}
	d, reason, err := s.authorizer.Authorize(ctx, a)
	st := api.SubjectAccessReviewStatus{Allowed: d == rbac.Allow, Reason: reason}
	if err != nil {
		st.EvaluationError = err.Error()
	}
	return st
}

// rules lists u's rules in namespace ns (SelfSubjectRulesReview).
func (s *Server) rules(ctx context.Context, u rbac.User, ns string) api.SubjectRulesReviewStatus {
	st := api.SubjectRulesReviewStatus{ResourceRules: []api.ResourceRule{}, NonResourceRules: []api.NonResourceRule{}}
	rules, evalErr, err := s.authorizer.RulesFor(ctx, u, ns)
	for _, r := range rules {
		if len(r.Resources) > 0 {
			st.ResourceRules = append(st.ResourceRules, api.ResourceRule{Verbs: r.Verbs, APIGroups: r.APIGroups,
				Resources: r.Resources, ResourceNames: r.ResourceNames})
		}
		if len(r.NonResourceURLs) > 0 {
			st.NonResourceRules = append(st.NonResourceRules, api.NonResourceRule{Verbs: r.Verbs, NonResourceURLs: r.NonResourceURLs})
		}
	}
	st.EvaluationError = evalErr
	if err != nil {
		st.Incomplete, st.EvaluationError = true, err.Error()
	}
	return st
}

// reviewGroups are the discovery groups of the reviews.
func reviewGroups() []apiGroup {
	var out []apiGroup
	for _, gv := range []string{authenticationV1, authorizationV1} {
		group, version, _ := strings.Cut(gv, "/")
		v := groupVersion{GroupVersion: gv, Version: version}
		out = append(out, apiGroup{Name: group, Versions: []groupVersion{v}, PreferredVersion: v})
	}
	return out
}

// reviewAPIResources are the discovery resources of a review group.
func reviewAPIResources(gv string) ([]apiResource, bool) {
	rs, ok := reviewResources[gv]
	if !ok {
		return nil, false
	}
	out := make([]apiResource, len(rs))
	for i, r := range rs {
		out[i] = apiResource{Name: r.name, Namespaced: r.namespaced, Kind: r.kind, Verbs: []string{"create"}}
	}
	return out, true
}

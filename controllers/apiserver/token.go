package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver/satoken"
	"github.com/ctrlkit/ctrlkit/controllers/rbac"
	"github.com/ctrlkit/ctrlkit/source"
)

// The limits of a TokenRequest's expirationSeconds, as kube-apiserver's
// validation (pkg/apis/authentication/validation) and defaulting.
const (
	minTokenSeconds     = 10 * 60
	maxTokenSeconds     = 1 << 32
	defaultTokenSeconds = 60 * 60
)

// The extra keys of a service account's user, as kube-apiserver's
// (k8s.io/apiserver/pkg/authentication/serviceaccount).
const (
	ExtraPodName      = "authentication.kubernetes.io/pod-name"
	ExtraPodUID       = "authentication.kubernetes.io/pod-uid"
	ExtraNodeName     = "authentication.kubernetes.io/node-name"
	ExtraNodeUID      = "authentication.kubernetes.io/node-uid"
	ExtraCredentialID = "authentication.kubernetes.io/credential-id"
)

// tokenResource is the discovery entry of serviceaccounts/token.
var tokenResource = apiResource{Name: "serviceaccounts/token", Namespaced: true, Group: "authentication.k8s.io",
	Version: "v1", Kind: "TokenRequest", Verbs: []string{"create"}}

func invalidToken(name, field, detail string) *apiError {
	e := newError(http.StatusUnprocessableEntity, "Invalid",
		fmt.Sprintf("TokenRequest.authentication.k8s.io %q is invalid: %s: %s", name, field, detail))
	e.status.Details = &StatusDetails{Name: name, Group: "authentication.k8s.io", Kind: "TokenRequest",
		Causes: []StatusCause{{Reason: "FieldValueInvalid", Field: field, Message: detail}}}
	return e
}

// lookupError is err of a Get of the object resource/name, as its own
// NotFound (the request's resource is the service account's).
func lookupError(err error, resource, name string) error {
	if errors.Is(err, source.ErrNotFound) {
		e := newError(http.StatusNotFound, "NotFound", fmt.Sprintf("%s %q not found", resource, name))
		e.status.Details = &StatusDetails{Name: name, Kind: resource}
		return e
	}
	return err
}

func tokenConflict(resource, name, msg string) *apiError {
	e := newError(http.StatusConflict, "Conflict", fmt.Sprintf("Operation cannot be fulfilled on %s %q: %s", resource, name, msg))
	e.status.Details = &StatusDetails{Name: name, Kind: resource}
	return e
}

// serveToken serves POST serviceaccounts/{name}/token as kube-apiserver's
// TokenREST: the body is an authentication.k8s.io/v1 TokenRequest; the
// answer, 201, the request with status.token (a JWT Options.ServiceAccountTokens
// signs) and status.expirationTimestamp.
func (h *typed[T]) serveToken(req *request) {
	if req.r.Method != http.MethodPost {
		h.fail(req, methodNotAllowed(req))
		return
	}
	out, err := h.srv.issueToken(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	writeJSON(req.w, http.StatusCreated, out)
}

func (s *Server) issueToken(req *request) (*api.ServiceAccountTokenRequest, error) {
	ctx := req.r.Context()
	if err := checkContentType(req.r, protobufBodyTypes); err != nil {
		return nil, err
	}
	b, err := readLimited(req)
	if err != nil {
		return nil, err
	}
	if isProtobuf(req.r) {
		if b, err = decodeProtobufBody(b, "authentication.k8s.io/v1", "TokenRequest"); err != nil {
			return nil, err
		}
	}
	var tr api.ServiceAccountTokenRequest
	if err := yaml.Unmarshal(b, &tr); err != nil {
		return nil, badRequest("the body of the request could not be decoded as a TokenRequest: %v", err)
	}
	if tr.Kind != "" && (tr.Kind != "TokenRequest" || tr.APIVersion != "authentication.k8s.io/v1") {
		return nil, badRequest("not a TokenRequest object: %s, Kind=%s", tr.APIVersion, tr.Kind)
	}
	if tr.Name != "" && tr.Name != req.name {
		return nil, invalidToken(req.name, "metadata.name", fmt.Sprintf("Invalid value: %q: must match the service account name if specified", tr.Name))
	}
	if tr.Namespace != "" && tr.Namespace != req.namespace {
		return nil, invalidToken(req.name, "metadata.namespace", fmt.Sprintf("Invalid value: %q: must match the service account namespace if specified", tr.Namespace))
	}
	sa, _, err := s.c.ServiceAccounts().Get(ctx, api.NamespacedKey(req.namespace, req.name))
	if err != nil {
		return nil, err
	}
	if tr.UID != "" && tr.UID != sa.UID {
		return nil, tokenConflict("TokenRequest.authentication.k8s.io", req.name,
			fmt.Sprintf("the UID in the token request (%s) does not match the UID of the service account (%s)", tr.UID, sa.UID))
	}
	issuer := s.opts.ServiceAccountTokens
	if len(tr.Spec.Audiences) == 0 {
		tr.Spec.Audiences = issuer.Audiences()
	}
	tr.Name, tr.Namespace, tr.UID = sa.Name, sa.Namespace, sa.UID
	now := time.Now()
	tr.CreationTimestamp = api.NewTime(now.UTC().Truncate(time.Second))
	tr.Status = api.ServiceAccountTokenRequestStatus{}
	exp := int64(defaultTokenSeconds)
	if tr.Spec.ExpirationSeconds != nil {
		exp = *tr.Spec.ExpirationSeconds
	}
	switch {
	case exp < minTokenSeconds:
		return nil, invalidToken("", "spec.expirationSeconds", fmt.Sprintf("Invalid value: %d: may not specify a duration less than 10 minutes", exp))
	case exp > maxTokenSeconds:
		return nil, invalidToken("", "spec.expirationSeconds", fmt.Sprintf("Invalid value: %d: may not specify a duration larger than 2^32 seconds", exp))
	}
	c := satoken.Claims{
		Subject: satoken.Username(sa.Namespace, sa.Name), Audience: tr.Spec.Audiences, ID: satoken.NewID(),
		Kubernetes: satoken.Private{Namespace: sa.Namespace, ServiceAccount: satoken.Ref{Name: sa.Name, UID: string(sa.UID)}},
	}
	if ref := tr.Spec.BoundObjectRef; ref != nil {
		uid, err := s.bindToken(ctx, req.namespace, sa.Name, ref, &c.Kubernetes)
		if err != nil {
			return nil, err
		}
		if ref.UID != "" && ref.UID != string(uid) {
			return nil, tokenConflict(ref.Kind, ref.Name, fmt.Sprintf("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", ref.UID))
		}
	}
	if max := int64(s.opts.ServiceAccountMaxTokenExpiration / time.Second); max > 0 && exp > max {
		admission.Warn(ctx, fmt.Sprintf("requested expiration of %d seconds shortened to %d seconds", exp, max))
		exp = max
	}
	tr.Spec.ExpirationSeconds = &exp
	c.IssuedAt, c.NotBefore, c.Expiry = now.Unix(), now.Unix(), now.Add(time.Duration(exp)*time.Second).Unix()
	tok, err := issuer.Sign(c)
	if err != nil {
		return nil, fmt.Errorf("failed to generate token: %w", err)
	}
	tr.TypeMeta = api.TypeMeta{APIVersion: "authentication.k8s.io/v1", Kind: "TokenRequest"}
	tr.Status = api.ServiceAccountTokenRequestStatus{Token: tok,
		ExpirationTimestamp: api.NewTime(now.Add(time.Duration(exp) * time.Second).UTC().Truncate(time.Second))}
	return &tr, nil
}

// bindToken looks up a TokenRequest's bound object, records it in p and
// returns its UID, as kube's TokenREST: a Pod (of the same service
// account; its node named too), a Secret or a Node.
func (s *Server) bindToken(ctx context.Context, ns, sa string, ref *api.BoundObjectReference, p *satoken.Private) (api.UID, error) {
	gvk := api.TypeMeta{APIVersion: ref.APIVersion, Kind: ref.Kind}.GroupVersionKind()
	group := gvk.Group
	switch {
	case group == "" && ref.Kind == "Pod":
		pod, _, err := s.c.Pods().Get(ctx, api.NamespacedKey(ns, ref.Name))
		if err != nil {
			return "", lookupError(err, "pods", ref.Name)
		}
		if pod.Spec.ServiceAccountName != sa {
			return "", badRequest("cannot bind token for serviceaccount %q to pod running with different serviceaccount name.", sa)
		}
		p.Pod = &satoken.Ref{Name: pod.Name, UID: string(pod.UID)}
		if n := pod.Spec.NodeName; n != "" {
			p.Node = &satoken.Ref{Name: n}
			if node, _, err := s.c.Nodes().Get(ctx, n); err == nil {
				p.Node.UID = string(node.UID)
			} else if !errors.Is(err, source.ErrNotFound) {
				return "", err
			}
		}
		return pod.UID, nil
	case group == "" && ref.Kind == "Node":
		node, _, err := s.c.Nodes().Get(ctx, ref.Name)
		if err != nil {
			return "", lookupError(err, "nodes", ref.Name)
		}
		p.Node = &satoken.Ref{Name: node.Name, UID: string(node.UID)}
		return node.UID, nil
	case group == "" && ref.Kind == "Secret":
		secret, _, err := s.c.Secrets().Get(ctx, api.NamespacedKey(ns, ref.Name))
		if err != nil {
			return "", lookupError(err, "secrets", ref.Name)
		}
		p.Secret = &satoken.Ref{Name: secret.Name, UID: string(secret.UID)}
		return secret.UID, nil
	}
	// schema.GroupVersionKind's String, "/v1, Kind=X" for the core group.
	return "", badRequest("cannot bind token to object of type %s/%s, Kind=%s", gvk.Group, gvk.Version, gvk.Kind)
}

// ErrInvalidToken wraps why a service account token this server issued
// does not authenticate (expired, its service account or bound object
// gone); the request is 401 Unauthorized.
var ErrInvalidToken = errors.New("invalid bearer token")

// AuthenticateToken authenticates a bearer token as a service account
// token of Options.ServiceAccountTokens, as kube-apiserver's service
// account authenticator: the signature, issuer, an API audience and the
// token's times, then the service account (same UID, not deleted) and the
// bound object (same UID, not deleted more than satoken.Leeway ago) must
// still exist. ok is false for a token this server did not issue (not a
// service account token of its key); err wraps ErrInvalidToken for one it
// issued that no longer authenticates. The user is
// system:serviceaccount:NS:NAME in system:serviceaccounts,
// system:serviceaccounts:NS and system:authenticated, with the pod, node
// and credential id in its extra, as kube's.
func (s *Server) AuthenticateToken(ctx context.Context, token string) (u rbac.User, ok bool, err error) {
	return s.authenticateToken(ctx, token, nil)
}

// authenticateToken is AuthenticateToken for the given audiences (nil:
// the API audiences).
func (s *Server) authenticateToken(ctx context.Context, token string, audiences []string) (u rbac.User, ok bool, err error) {
	issuer := s.opts.ServiceAccountTokens
	if issuer == nil {
		return rbac.User{}, false, nil
	}
	now := time.Now()
	c, err := issuer.Verify(token, now, audiences...)
	if errors.Is(err, satoken.ErrNotMine) {
		return rbac.User{}, false, nil
	}
	if err != nil {
		return rbac.User{}, true, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	invalid := func(msg string, args ...any) (rbac.User, bool, error) {
		return rbac.User{}, true, fmt.Errorf("%w: %s", ErrInvalidToken, fmt.Sprintf(msg, args...))
	}
	cutoff := now.Add(-satoken.Leeway)
	deleted := func(m api.ObjectMeta) bool {
		return m.DeletionTimestamp != nil && m.DeletionTimestamp.Time.Before(cutoff)
	}
	k := c.Kubernetes
	sa, _, err := s.c.ServiceAccounts().Get(ctx, api.NamespacedKey(k.Namespace, k.ServiceAccount.Name))
	switch {
	case errors.Is(err, source.ErrNotFound):
		return invalid("serviceaccounts %q not found", k.ServiceAccount.Name)
	case err != nil:
		return rbac.User{}, true, err
	case string(sa.UID) != k.ServiceAccount.UID:
		return invalid("service account UID (%s) does not match claim (%s)", sa.UID, k.ServiceAccount.UID)
	case deleted(sa.ObjectMeta):
		return invalid("service account %s/%s has been deleted", k.Namespace, sa.Name)
	}
	extra := map[string][]string{}
	if c.ID != "" {
		extra[ExtraCredentialID] = []string{"JTI=" + c.ID}
	}
	if r := k.Secret; r != nil {
		secret, _, err := s.c.Secrets().Get(ctx, api.NamespacedKey(k.Namespace, r.Name))
		switch {
		case err != nil || deleted(secret.ObjectMeta):
			return invalid("service account token has been invalidated")
		case string(secret.UID) != r.UID:
			return invalid("secret UID (%s) does not match service account secret ref claim (%s)", secret.UID, r.UID)
		}
	}
	if r := k.Pod; r != nil {
		pod, _, err := s.c.Pods().Get(ctx, api.NamespacedKey(k.Namespace, r.Name))
		switch {
		case err != nil || deleted(pod.ObjectMeta):
			return invalid("service account token has been invalidated")
		case string(pod.UID) != r.UID:
			return invalid("pod UID (%s) does not match service account pod ref claim (%s)", pod.UID, r.UID)
		}
		extra[ExtraPodName], extra[ExtraPodUID] = []string{r.Name}, []string{r.UID}
	}
	if r := k.Node; r != nil {
		if k.Pod == nil { // a node-bound token: the node must still be there
			node, _, err := s.c.Nodes().Get(ctx, r.Name)
			switch {
			case err != nil || deleted(node.ObjectMeta):
				return invalid("service account token has been invalidated")
			case string(node.UID) != r.UID:
				return invalid("node UID (%s) does not match service account node ref claim (%s)", node.UID, r.UID)
			}
		}
		extra[ExtraNodeName] = []string{r.Name}
		if r.UID != "" {
			extra[ExtraNodeUID] = []string{r.UID}
		}
	}
	u = rbac.ServiceAccountUser(k.Namespace, sa.Name, string(sa.UID))
	if len(extra) > 0 {
		u.Extra = extra
	}
	return u, true, nil
}

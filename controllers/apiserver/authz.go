package apiserver

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/rbac"
)

// The authorization modes of Options.AuthorizationMode.
const (
	// AuthorizationAlwaysAllow allows every request (the default, as
	// before RBAC was served).
	AuthorizationAlwaysAllow = "AlwaysAllow"
	// AuthorizationRBAC allows a request only when RBAC does
	// (package rbac), else answers 403 Forbidden as kube-apiserver.
	AuthorizationRBAC = "RBAC"
)

// requester returns the identity of r: the one its context carries
// (rbac.WithUser, set by the authentication in front of the server),
// else the admin's — a server without authentication serves everyone as
// the admin — with impersonation applied.
func (s *Server) requester(r *http.Request) (rbac.User, error) {
	u, ok := rbac.UserFrom(r.Context())
	if !ok {
		u = rbac.Admin()
	}
	return s.impersonate(r, u)
}

// impersonate applies the Impersonate-User, Impersonate-Group and
// Impersonate-Uid headers, each checked as kube-apiserver checks them:
// the requester must be allowed to "impersonate" users (or
// serviceaccounts, for a service account's name), groups and uids.
func (s *Server) impersonate(r *http.Request, u rbac.User) (rbac.User, error) {
	name := r.Header.Get("Impersonate-User")
	groups := r.Header.Values("Impersonate-Group")
	uid := r.Header.Get("Impersonate-Uid")
	if name == "" {
		if len(groups) > 0 || uid != "" {
			return u, badRequest("requested %v without impersonating a user", append(groups, uid))
		}
		return u, nil
	}
	check := func(a rbac.Attributes) error {
		a.User, a.Verb, a.ResourceRequest = u, "impersonate", true
		if s.opts.AuthorizationMode != AuthorizationRBAC {
			return nil
		}
		d, reason, err := s.authorizer.Authorize(r.Context(), a)
		if err != nil {
			return err
		}
		if d != rbac.Allow {
			return forbidden(a, reason)
		}
		return nil
	}
	target := rbac.User{Name: name, UID: uid}
	if ns, sa, ok := rbac.SplitServiceAccountUsername(name); ok {
		if err := check(rbac.Attributes{Namespace: ns, Resource: "serviceaccounts", Name: sa}); err != nil {
			return u, err
		}
		if len(groups) == 0 {
			target.Groups = rbac.ServiceAccountUser(ns, sa, "").Groups
		}
	} else if err := check(rbac.Attributes{Resource: "users", Name: name}); err != nil {
		return u, err
	}
	for _, g := range groups {
		if err := check(rbac.Attributes{Resource: "groups", Name: g}); err != nil {
			return u, err
		}
		target.Groups = append(target.Groups, g)
	}
	if uid != "" {
		if err := check(rbac.Attributes{APIGroup: "authentication.k8s.io", Resource: "uids", Name: uid}); err != nil {
			return u, err
		}
	}
	if name != rbac.Anonymous && !target.InGroup(rbac.AllAuthenticated) {
		target.Groups = append(target.Groups, rbac.AllAuthenticated)
	}
	return target, nil
}

// forbidden is kube-apiserver's 403 for a request a does not allow
// (ForbiddenStatusErr with the authorizer's reason).
func forbidden(a rbac.Attributes, reason string) *apiError {
	var msg string
	if !a.ResourceRequest {
		msg = fmt.Sprintf("forbidden: User %q cannot %s path %q", a.User.Name, a.Verb, a.Path)
	} else {
		res := a.Resource
		if a.Subresource != "" {
			res += "/" + a.Subresource
		}
		scope := "at the cluster scope"
		if a.Namespace != "" {
			scope = fmt.Sprintf("in the namespace %q", a.Namespace)
		}
		cannot := fmt.Sprintf("User %q cannot %s resource %q in API group %q %s", a.User.Name, a.Verb, res, a.APIGroup, scope)
		qualified := a.Resource
		if a.APIGroup != "" {
			qualified += "." + a.APIGroup
		}
		if a.Name != "" {
			msg = fmt.Sprintf("%s %q is forbidden: %s", qualified, a.Name, cannot)
		} else {
			msg = fmt.Sprintf("%s is forbidden: %s", qualified, cannot)
		}
	}
	if reason != "" {
		msg += ": " + reason
	}
	e := newError(http.StatusForbidden, "Forbidden", msg)
	e.status.Details = &StatusDetails{Name: a.Name, Group: a.APIGroup, Kind: a.Resource}
	return e
}

// requestAttributes are the authorization attributes of r, as
// kube-apiserver's RequestInfoFactory reads a path: /api/v1/… and
// /apis/<group>/<version>/… are resource requests (a namespace, a
// resource, a name, a subresource; the verb from the method, list and
// watch for collections, deletecollection), anything else a non-resource
// request with the method as its verb.
func requestAttributes(r *http.Request, u rbac.User) rbac.Attributes {
	a := rbac.Attributes{User: u, Path: r.URL.Path, Verb: strings.ToLower(r.Method)}
	p := strings.Trim(r.URL.Path, "/")
	segs := strings.Split(p, "/")
	switch {
	case len(segs) >= 3 && segs[0] == "api":
		a.APIVersion, segs = segs[1], segs[2:]
	case len(segs) >= 4 && segs[0] == "apis":
		a.APIGroup, a.APIVersion, segs = segs[1], segs[2], segs[3:]
	default:
		return a
	}
	a.ResourceRequest = true
	watch := false
	if segs[0] == "watch" {
		watch, segs = true, segs[1:]
	}
	if q := r.URL.Query().Get("watch"); q == "true" || q == "1" {
		watch = true
	}
	if len(segs) >= 2 && segs[0] == "namespaces" {
		if len(segs) >= 3 && segs[2] != "status" && segs[2] != "finalize" {
			a.Namespace, segs = segs[1], segs[2:]
		} else {
			a.Namespace = segs[1]
		}
	}
	if len(segs) > 0 {
		a.Resource = segs[0]
	}
	if len(segs) > 1 {
		a.Name = segs[1]
	}
	if len(segs) > 2 {
		a.Subresource = segs[2]
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		a.Verb = "get"
		if a.Name == "" {
			a.Verb = "list"
		}
		if watch {
			a.Verb = "watch"
		}
	case http.MethodPost:
		a.Verb = "create"
	case http.MethodPut:
		a.Verb = "update"
	case http.MethodPatch:
		a.Verb = "patch"
	case http.MethodDelete:
		a.Verb = "delete"
		if a.Name == "" {
			a.Verb = "deletecollection"
		}
	}
	return a
}

// authorize answers r with its 403 (or impersonation's error) and
// returns false when it may not proceed; it returns the request with
// the requester in its context otherwise.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	u, err := s.requester(r)
	if err != nil {
		writeError(w, err, nil, "")
		return r, false
	}
	r = r.WithContext(rbac.WithUser(r.Context(), u))
	info := admission.UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups}
	if s.opts.AuthorizationMode != AuthorizationRBAC {
		r = r.WithContext(admission.WithRequest(r.Context(), info))
		return r, true
	}
	// Under RBAC, roles and bindings are checked for escalation as they
	// are stored (escalation.go).
	r = r.WithContext(admission.WithRequest(r.Context(), info, s.escalationCheck(u)))
	a := requestAttributes(r, u)
	d, reason, err := s.authorizer.Authorize(r.Context(), a)
	if err != nil {
		writeError(w, newError(http.StatusInternalServerError, "InternalError", err.Error()), nil, "")
		return r, false
	}
	if d != rbac.Allow {
		writeError(w, forbidden(a, reason), nil, "")
		return r, false
	}
	return r, true
}

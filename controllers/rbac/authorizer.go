package rbac

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/source"
)

// Decision is an authorizer's answer.
type Decision int

// The decisions.
const (
	// NoOpinion: nothing allows the request (RBAC never denies outright;
	// with it alone, the request is forbidden).
	NoOpinion Decision = iota
	// Allow: a rule allows it.
	Allow
)

// Authorizer decides requests as kube-apiserver's authorizers
// --authorization-mode=RBAC: system:masters may do anything; anyone else
// what the rules of the roles bound to them allow, read from the
// cluster's Roles, ClusterRoles, RoleBindings and ClusterRoleBindings at
// each decision.
type Authorizer struct {
	c client.Client
}

// New returns the authorizer of c's RBAC objects.
func New(c client.Client) *Authorizer { return &Authorizer{c: c} }

// Authorize decides a. Reason says which binding allowed ("RBAC: allowed
// by ClusterRoleBinding …"), or, for NoOpinion, the errors met (a binding
// to a missing role), as kube's.
func (z *Authorizer) Authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	if a.User.InGroup(SystemPrivilegedGroup) {
		return Allow, "", nil
	}
	var reason string
	var errs []error
	err := z.visit(ctx, a.User, a.Namespace, func(source string, rule *api.PolicyRule, err error) bool {
		if err != nil {
			errs = append(errs, err)
			return true
		}
		if RuleAllows(a, rule) {
			reason = "RBAC: allowed by " + source
			return false
		}
		return true
	})
	if reason != "" {
		return Allow, reason, nil
	}
	if err != nil {
		return NoOpinion, "", err
	}
	if len(errs) > 0 {
		return NoOpinion, "RBAC: " + aggregate(errs), nil
	}
	return NoOpinion, "", nil
}

// RulesFor returns every rule bound to u in namespace ns (cluster-wide
// bindings, and ns's RoleBindings when ns is not empty), and the errors
// met as one message ("" if none): what SelfSubjectRulesReview lists.
func (z *Authorizer) RulesFor(ctx context.Context, u User, ns string) ([]api.PolicyRule, string, error) {
	var rules []api.PolicyRule
	var errs []error
	err := z.visit(ctx, u, ns, func(_ string, rule *api.PolicyRule, err error) bool {
		if err != nil {
			errs = append(errs, err)
		} else {
			rules = append(rules, *rule)
		}
		return true
	})
	if len(errs) > 0 {
		return rules, aggregate(errs), err
	}
	return rules, "", err
}

func aggregate(errs []error) string {
	if len(errs) == 1 {
		return errs[0].Error()
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return "[" + strings.Join(msgs, ", ") + "]"
}

// visit calls f with each rule bound to u (kube's VisitRulesFor): the
// ClusterRoleBindings', then namespace ns's RoleBindings'. f returns
// false to stop. A binding whose role is missing is an error passed to
// f; a failure to list is returned.
func (z *Authorizer) visit(ctx context.Context, u User, ns string, f func(source string, rule *api.PolicyRule, err error) bool) error {
	crbs, err := list[*api.ClusterRoleBinding](ctx, z.c, "")
	if err != nil {
		return err
	}
	for _, b := range crbs {
		s, ok := firstSubject(u, b.Subjects, "")
		if !ok {
			continue
		}
		rules, err := z.roleRules(ctx, b.RoleRef, "")
		if err != nil {
			if !f("", nil, err) {
				return nil
			}
			continue
		}
		src := fmt.Sprintf("ClusterRoleBinding %q of %s %q to %s", b.Name, b.RoleRef.Kind, b.RoleRef.Name, describeSubject(s, ""))
		for i := range rules {
			if !f(src, &rules[i], nil) {
				return nil
			}
		}
	}
	if ns == "" {
		return nil
	}
	rbs, err := list[*api.RoleBinding](ctx, z.c, ns)
	if err != nil {
		return err
	}
	for _, b := range rbs {
		s, ok := firstSubject(u, b.Subjects, b.Namespace)
		if !ok {
			continue
		}
		rules, err := z.roleRules(ctx, b.RoleRef, b.Namespace)
		if err != nil {
			if !f("", nil, err) {
				return nil
			}
			continue
		}
		src := fmt.Sprintf("RoleBinding %q of %s %q to %s", b.Name+"/"+b.Namespace, b.RoleRef.Kind, b.RoleRef.Name, describeSubject(s, b.Namespace))
		for i := range rules {
			if !f(src, &rules[i], nil) {
				return nil
			}
		}
	}
	return nil
}

func firstSubject(u User, subjects []api.Subject, ns string) (api.Subject, bool) {
	for _, s := range subjects {
		if appliesTo(u, s, ns) {
			return s, true
		}
	}
	return api.Subject{}, false
}

func describeSubject(s api.Subject, bindingNamespace string) string {
	if s.Kind == api.ServiceAccountKind {
		ns := s.Namespace
		if ns == "" {
			ns = bindingNamespace
		}
		return fmt.Sprintf("%s %q", s.Kind, s.Name+"/"+ns)
	}
	return fmt.Sprintf("%s %q", s.Kind, s.Name)
}

// roleRules returns the rules of the role ref names (kube's
// GetRoleReferenceRules).
func (z *Authorizer) roleRules(ctx context.Context, ref api.RoleRef, ns string) ([]api.PolicyRule, error) {
	switch ref.Kind {
	case "Role":
		st, err := client.For[*api.Role](z.c)
		if err != nil {
			return nil, fmt.Errorf("rbac: %w", err)
		}
		r, _, err := st.Get(ctx, ns+"/"+ref.Name)
		if err != nil {
			return nil, notFoundOr(err, "roles.rbac.authorization.k8s.io", ref.Name)
		}
		return r.Rules, nil
	case "ClusterRole":
		st, err := client.For[*api.ClusterRole](z.c)
		if err != nil {
			return nil, fmt.Errorf("rbac: %w", err)
		}
		r, _, err := st.Get(ctx, ref.Name)
		if err != nil {
			return nil, notFoundOr(err, "clusterroles.rbac.authorization.k8s.io", ref.Name)
		}
		return r.Rules, nil
	}
	return nil, fmt.Errorf("unsupported role reference kind: %q", ref.Kind)
}

func notFoundOr(err error, resource, name string) error {
	if errors.Is(err, source.ErrNotFound) {
		return &notFoundError{resource: resource, name: name}
	}
	return err
}

// notFoundError is a missing role: kube's NotFound message, and
// errors.Is(err, source.ErrNotFound).
type notFoundError struct{ resource, name string }

func (e *notFoundError) Error() string        { return fmt.Sprintf("%s %q not found", e.resource, e.name) }
func (e *notFoundError) Is(target error) bool { return target == source.ErrNotFound }

// list returns the objects of T in namespace ns ("" all).
func list[T api.Object](ctx context.Context, c client.Client, ns string) ([]T, error) {
	st, err := client.For[T](c)
	if err != nil {
		return nil, fmt.Errorf("rbac: %w", err)
	}
	if ns == "" {
		l, err := st.List(ctx, source.ListOptions{})
		return l.Items, err
	}
	sel, err := st.Select(client.SelectOptions{Namespace: ns})
	if err != nil {
		return nil, err
	}
	l, err := sel.List(ctx, source.ListOptions{})
	return l.Items, err
}

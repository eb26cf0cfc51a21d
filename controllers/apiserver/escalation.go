package apiserver

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/rbac"
	"github.com/ctrlkit/ctrlkit/source"
)

// fullAuthority is every verb on everything: what setting a ClusterRole's
// aggregationRule requires.
var fullAuthority = []api.PolicyRule{
	{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
	{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
}

// escalationCheck is RBAC's escalation prevention, as kube-apiserver's
// policy-based storage of roles and bindings (pkg/registry/rbac), run
// under --authorization-mode=RBAC on every create and update the
// requester u makes:
//   - a Role or ClusterRole may grant only rules u holds (in its
//     namespace, or cluster-wide), unless u may "escalate" it; setting or
//     changing a ClusterRole's aggregationRule takes every permission;
//   - a RoleBinding or ClusterRoleBinding may bind only a role whose rules
//     u holds, unless u may "bind" that role;
//
// members of system:masters are never checked. The refusal is 403 with
// kube's message.
func (s *Server) escalationCheck(u rbac.User) admission.ValidatingFunc {
	return func(ctx context.Context, a admission.Attributes) error {
		if (a.Operation != admission.Create && a.Operation != admission.Update) || a.Subresource != "" ||
			u.InGroup(rbac.SystemPrivilegedGroup) {
			return nil
		}
		if a.Operation == admission.Update && onlyGCFieldsChanged(a.Object, a.OldObject) {
			return nil
		}
		switch o := a.Object.(type) {
		case *api.Role:
			return s.noRoleEscalation(ctx, u, "roles", a, o.Rules, false)
		case *api.ClusterRole:
			agg := hasAggregationRule(o)
			if old, ok := a.OldObject.(*api.ClusterRole); ok && hasAggregationRule(old) {
				agg = true
			}
			return s.noRoleEscalation(ctx, u, "clusterroles", a, o.Rules, agg)
		case *api.RoleBinding:
			return s.noBindingEscalation(ctx, u, o.RoleRef, a.Namespace)
		case *api.ClusterRoleBinding:
			return s.noBindingEscalation(ctx, u, o.RoleRef, "")
		}
		return nil
	}
}

func hasAggregationRule(r *api.ClusterRole) bool {
	return r.AggregationRule != nil && len(r.AggregationRule.ClusterRoleSelectors) > 0
}

// onlyGCFieldsChanged is kube's IsOnlyMutatingGCFields: an update that
// changes nothing but owner references and finalizers is not checked, so
// the garbage collector can always finish.
func onlyGCFieldsChanged(obj, old api.Object) bool {
	if obj == nil || old == nil {
		return false
	}
	o := old.DeepCopyObject()
	om, nm := o.GetObjectMeta(), obj.GetObjectMeta()
	om.OwnerReferences, om.Finalizers = nm.OwnerReferences, nm.Finalizers
	om.ResourceVersion, om.Generation = nm.ResourceVersion, nm.Generation
	a, err1 := json.Marshal(o)
	b, err2 := json.Marshal(obj)
	return err1 == nil && err2 == nil && string(a) == string(b)
}

func (s *Server) allowed(ctx context.Context, a rbac.Attributes) bool {
	d, _, err := s.authorizer.Authorize(ctx, a)
	return err == nil && d == rbac.Allow
}

func (s *Server) noRoleEscalation(ctx context.Context, u rbac.User, resource string, a admission.Attributes, rules []api.PolicyRule, aggregation bool) error {
	if s.allowed(ctx, rbac.Attributes{User: u, Verb: "escalate", ResourceRequest: true, Namespace: a.Namespace,
		APIGroup: api.RBACGroup, APIVersion: "*", Resource: resource, Name: a.Name}) {
		return nil
	}
	if err := s.authorizer.ConfirmNoEscalation(ctx, u, a.Namespace, rules); err != nil {
		return escalationError(err)
	}
	if aggregation {
		if err := s.authorizer.ConfirmNoEscalation(ctx, u, a.Namespace, fullAuthority); err != nil {
			if errors.Is(err, rbac.ErrEscalation) {
				return &admission.ForbiddenError{Message: "must have cluster-admin privileges to use the aggregationRule"}
			}
			return err
		}
	}
	return nil
}

func (s *Server) noBindingEscalation(ctx context.Context, u rbac.User, ref api.RoleRef, ns string) error {
	resource := "roles"
	if ref.Kind == "ClusterRole" {
		resource = "clusterroles"
	}
	if s.allowed(ctx, rbac.Attributes{User: u, Verb: "bind", ResourceRequest: true, Namespace: ns,
		APIGroup: ref.APIGroup, APIVersion: "*", Resource: resource, Name: ref.Name}) {
		return nil
	}
	rules, err := s.authorizer.RoleRules(ctx, ref, ns)
	if errors.Is(err, source.ErrNotFound) {
		return lookupError(err, resource+"."+api.RBACGroup, ref.Name)
	}
	if err != nil {
		return err
	}
	if err := s.authorizer.ConfirmNoEscalation(ctx, u, ns, rules); err != nil {
		return escalationError(err)
	}
	return nil
}

// escalationError makes ConfirmNoEscalation's refusal a 403.
func escalationError(err error) error {
	if errors.Is(err, rbac.ErrEscalation) {
		msg := err.Error()
		if p := rbac.ErrEscalation.Error() + ": "; len(msg) > len(p) && msg[:len(p)] == p {
			msg = msg[len(p):]
		}
		return &admission.ForbiddenError{Message: msg}
	}
	return err
}

package rbac

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/source"
)

// Aggregate sets the rules of every ClusterRole with an AggregationRule
// to the union of the rules of the ClusterRoles its selectors match
// (other than itself), in name order, each rule once, as kube's
// clusterrole-aggregation controller does; a role already up to date is
// not written. Roles that aggregate aggregated roles (admin aggregates
// edit, which aggregates view) are passed over until nothing changes, as
// the controller's resyncs converge, at most once per role.
func Aggregate(ctx context.Context, c client.Client) error {
	st, err := client.For[*api.ClusterRole](c)
	if err != nil {
		return fmt.Errorf("rbac: %w", err)
	}
	for pass := 0; ; pass++ {
		l, err := st.List(ctx, source.ListOptions{})
		if err != nil {
			return err
		}
		changed, err := aggregateOnce(ctx, st, l.Items)
		if err != nil || !changed || pass >= len(l.Items) {
			return err
		}
	}
}

func aggregateOnce(ctx context.Context, st client.Resource[*api.ClusterRole], roles []*api.ClusterRole) (bool, error) {
	changed := false
	for _, r := range roles {
		if r.AggregationRule == nil {
			continue
		}
		rules, err := aggregatedRules(r, roles)
		if err != nil {
			continue // an invalid selector aggregates nothing, as kube's controller skips it
		}
		if reflect.DeepEqual(rules, r.Rules) || (len(rules) == 0 && len(r.Rules) == 0) {
			continue
		}
		cp := r.DeepCopy()
		cp.Rules = rules
		if _, err := st.Update(ctx, cp, r.ResourceVersion); err != nil && !errors.Is(err, source.ErrConflict) && !errors.Is(err, source.ErrNotFound) {
			return changed, err
		}
		changed = true
	}
	return changed, nil
}

func aggregatedRules(r *api.ClusterRole, all []*api.ClusterRole) ([]api.PolicyRule, error) {
	var sels []api.Selector
	for i := range r.AggregationRule.ClusterRoleSelectors {
		s, err := r.AggregationRule.ClusterRoleSelectors[i].AsSelector()
		if err != nil {
			return nil, err
		}
		sels = append(sels, s)
	}
	var rules []api.PolicyRule
	for _, o := range all { // the list is in name order
		if o.Name == r.Name {
			continue
		}
		match := false
		for _, s := range sels {
			match = match || s.Matches(o.Labels)
		}
		if !match {
			continue
		}
		for _, rule := range o.Rules {
			if !containsRule(rules, rule) {
				rules = append(rules, rule)
			}
		}
	}
	return rules, nil
}

func containsRule(rules []api.PolicyRule, rule api.PolicyRule) bool {
	for i := range rules {
		if reflect.DeepEqual(rules[i], rule) {
			return true
		}
	}
	return false
}

// RunAggregation aggregates (Aggregate) now and again at every change to
// a ClusterRole, until ctx ends: the clusterrole-aggregation controller.
func RunAggregation(ctx context.Context, c client.Client) error {
	st, err := client.For[*api.ClusterRole](c)
	if err != nil {
		return fmt.Errorf("rbac: %w", err)
	}
	for ctx.Err() == nil {
		events, err := st.Watch(ctx, source.WatchOptions{})
		if err != nil {
			return err
		}
		if err := Aggregate(ctx, c); err != nil && ctx.Err() == nil {
			return err
		}
		for range events {
			if err := Aggregate(ctx, c); err != nil && ctx.Err() == nil {
				return err
			}
		}
	}
	return ctx.Err()
}

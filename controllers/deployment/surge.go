package deployment

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// ErrInvalidStrategy is returned (wrapped) by Decide for a rolling update
// whose maxSurge and maxUnavailable are both zero, or that does not
// resolve: kube-apiserver rejects such a Deployment, and the controller
// refuses to roll it out.
var ErrInvalidStrategy = errors.New("deployment: invalid rolling update strategy")

// ResolveFenceposts resolves maxSurge (a percentage rounds up) and
// maxUnavailable (a percentage rounds down) against desired replicas, as
// kcm's ResolveFenceposts: a nil value is 0, and when both resolve to 0
// maxUnavailable becomes 1, so that a rollout can always make progress
// (1% of 10 replicas rounds down to 0).
func ResolveFenceposts(maxSurge, maxUnavailable *api.IntOrString, desired int32) (surge, unavailable int32, err error) {
	var zero api.IntOrString
	if maxSurge == nil {
		maxSurge = &zero
	}
	if maxUnavailable == nil {
		maxUnavailable = &zero
	}
	s, err := maxSurge.ScaledValue(int(desired), true)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: maxSurge: %w", ErrInvalidStrategy, err)
	}
	u, err := maxUnavailable.ScaledValue(int(desired), false)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: maxUnavailable: %w", ErrInvalidStrategy, err)
	}
	if s == 0 && u == 0 {
		u = 1
	}
	return int32(s), int32(u), nil
}

// validateStrategy rejects what kube-apiserver's validation rejects: a
// rolling update with maxSurge and maxUnavailable both explicitly zero
// (0 or "0%"), and values that are not numbers or percentages.
func validateStrategy(d *api.Deployment) error {
	if !isRollingUpdate(d) {
		return nil
	}
	ru := d.Spec.Strategy.RollingUpdate
	if ru == nil {
		return nil
	}
	isZero := func(v *api.IntOrString) bool {
		if v == nil {
			return false // defaulted to 25% by the API
		}
		if v.Type == api.TypeInt {
			return v.IntVal == 0
		}
		return strings.TrimSuffix(v.StrVal, "%") == "0"
	}
	if isZero(ru.MaxSurge) && isZero(ru.MaxUnavailable) {
		return fmt.Errorf("%w: maxSurge and maxUnavailable may not both be 0", ErrInvalidStrategy)
	}
	_, _, err := ResolveFenceposts(ru.MaxSurge, ru.MaxUnavailable, replicas(d))
	return err
}

func isRollingUpdate(d *api.Deployment) bool {
	return d.Spec.Strategy.Type == api.RollingUpdateDeploymentStrategyType || d.Spec.Strategy.Type == ""
}

// replicas returns d's spec.replicas (1 when unset, the API default).
func replicas(d *api.Deployment) int32 {
	if d.Spec.Replicas == nil {
		return 1
	}
	return *d.Spec.Replicas
}

// rsReplicas returns rs's spec.replicas (1 when unset, the API default).
func rsReplicas(rs *api.ReplicaSet) int32 {
	if rs.Spec.Replicas == nil {
		return 1
	}
	return *rs.Spec.Replicas
}

func fenceposts(d *api.Deployment) (surge, unavailable int32) {
	ru := d.Spec.Strategy.RollingUpdate
	if ru == nil {
		ru = &api.RollingUpdateDeployment{}
	}
	s, u, err := ResolveFenceposts(ru.MaxSurge, ru.MaxUnavailable, replicas(d))
	if err != nil {
		return 0, 1 // Decide validated the strategy first; be safe anyway
	}
	return s, u
}

// maxSurge is kcm's MaxSurge: 0 unless a rolling update.
func maxSurge(d *api.Deployment) int32 {
	if !isRollingUpdate(d) {
		return 0
	}
	s, _ := fenceposts(d)
	return s
}

// maxUnavailable is kcm's MaxUnavailable: 0 unless a rolling update of
// at least one replica, and never more than replicas.
func maxUnavailable(d *api.Deployment) int32 {
	if !isRollingUpdate(d) || replicas(d) == 0 {
		return 0
	}
	_, u := fenceposts(d)
	return min(u, replicas(d))
}

// minAvailable is kcm's MinAvailable: replicas - maxUnavailable, or 0.
func minAvailable(d *api.Deployment) int32 {
	if !isRollingUpdate(d) {
		return 0
	}
	return replicas(d) - maxUnavailable(d)
}

// newRSNewReplicas is kcm's NewRSNewReplicas: how far the new ReplicaSet
// may grow now. A rolling update grows it by what maxSurge leaves over the
// spec.replicas of all the ReplicaSets, never past replicas; Recreate
// sets it to replicas at once (the old ones are gone by then).
func newRSNewReplicas(d *api.Deployment, all []*api.ReplicaSet, newRS *api.ReplicaSet) int32 {
	if !isRollingUpdate(d) {
		return replicas(d)
	}
	current := specSum(all)
	maxTotal := replicas(d) + maxSurge(d)
	if current >= maxTotal {
		return rsReplicas(newRS)
	}
	up := min(maxTotal-current, replicas(d)-rsReplicas(newRS))
	return rsReplicas(newRS) + up
}

// roundToInt32 rounds half away from zero (kcm's integer.RoundToInt32).
func roundToInt32(f float64) int32 { return int32(math.Round(f)) }

// replicaSetFraction is kcm's getReplicaSetFraction: how much rs grows
// (or shrinks) when the deployment's capacity, replicas + maxSurge, goes
// from the max-replicas annotation to its current value.
func replicaSetFraction(rs *api.ReplicaSet, d *api.Deployment) int32 {
	if replicas(d) == 0 {
		return -rsReplicas(rs)
	}
	capacity := replicas(d) + maxSurge(d)
	before, ok := int32Annotation(rs, api.AnnotationMaxReplicas)
	if !ok || before == 0 {
		// The annotation was removed or zeroed by someone else: fall back to
		// the deployment's current size, or do not scale at all.
		before = d.Status.Replicas
		if before == 0 {
			return 0
		}
	}
	size := float64(rsReplicas(rs)) * float64(capacity) / float64(before)
	return roundToInt32(size) - rsReplicas(rs)
}

// proportion is kcm's getProportion: rs's share of toAdd, bounded by what
// is left of it once added has been given to the ReplicaSets before rs.
func proportion(rs *api.ReplicaSet, d *api.Deployment, toAdd, added int32) int32 {
	if rs == nil || rsReplicas(rs) == 0 || toAdd == 0 || toAdd == added {
		return 0
	}
	f := replicaSetFraction(rs, d)
	left := toAdd - added
	if toAdd > 0 {
		return min(f, left)
	}
	return max(f, left)
}

// specSum is kcm's GetReplicaCountForReplicaSets.
func specSum(rss []*api.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += rsReplicas(rs)
		}
	}
	return n
}

// statusSum adds a status field over rss.
func statusSum(rss []*api.ReplicaSet, f func(*api.ReplicaSetStatus) int32) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += f(&rs.Status)
		}
	}
	return n
}

// available returns what rs counts as available. It is the status's
// availableReplicas, but never more than spec.replicas: a ReplicaSet just
// scaled down still reports the pods it is about to delete, and counting
// them would let a rolling update scale down twice for one set of
// available pods (kcm counts them; see doc.go).
func available(rs *api.ReplicaSet) int32 {
	return min(rs.Status.AvailableReplicas, rsReplicas(rs))
}

func availableSum(rss []*api.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += available(rs)
		}
	}
	return n
}

// active returns the ReplicaSets with spec.replicas > 0
// (kcm's FilterActiveReplicaSets).
func active(rss []*api.ReplicaSet) []*api.ReplicaSet {
	var out []*api.ReplicaSet
	for _, rs := range rss {
		if rs != nil && rsReplicas(rs) > 0 {
			out = append(out, rs)
		}
	}
	return out
}

// byCreation orders oldest first, then by name
// (kcm's ReplicaSetsByCreationTimestamp).
func byCreation(a, b *api.ReplicaSet) int {
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// bySizeNewer orders larger first, then newer first
// (kcm's ReplicaSetsBySizeNewer), for scaling up.
func bySizeNewer(a, b *api.ReplicaSet) int {
	if ra, rb := rsReplicas(a), rsReplicas(b); ra != rb {
		return int(rb) - int(ra)
	}
	return byCreation(b, a)
}

// bySizeOlder orders larger first, then older first
// (kcm's ReplicaSetsBySizeOlder), for scaling down.
func bySizeOlder(a, b *api.ReplicaSet) int {
	if ra, rb := rsReplicas(a), rsReplicas(b); ra != rb {
		return int(rb) - int(ra)
	}
	return byCreation(a, b)
}

// byRevision orders by revision, then by creation
// (kcm's ReplicaSetsByRevision).
func byRevision(a, b *api.ReplicaSet) int {
	ra, rb := revision(a), revision(b)
	if ra != rb {
		if ra < rb {
			return -1
		}
		return 1
	}
	return byCreation(a, b)
}

// proportionalSizes is the heart of kcm's scale for a rolling update
// whose replicas changed mid-rollout: it spreads the difference between
// replicas + maxSurge and the ReplicaSets' current sizes over the active
// ReplicaSets in proportion to their sizes, the rounding leftover going to
// the largest. It returns the new size of each ReplicaSet, by name.
func proportionalSizes(d *api.Deployment, activeRSs []*api.ReplicaSet) map[string]int32 {
	all := slices.Clone(activeRSs)
	var allowed int32
	if replicas(d) > 0 {
		allowed = replicas(d) + maxSurge(d)
	}
	toAdd := allowed - specSum(all)
	switch {
	case toAdd > 0:
		slices.SortFunc(all, bySizeNewer)
	case toAdd < 0:
		slices.SortFunc(all, bySizeOlder)
	}
	sizes := make(map[string]int32, len(all))
	var added int32
	for _, rs := range all {
		if toAdd == 0 {
			sizes[rs.Name] = rsReplicas(rs)
			continue
		}
		p := proportion(rs, d, toAdd, added)
		sizes[rs.Name] = rsReplicas(rs) + p
		added += p
	}
	if toAdd != 0 && len(all) > 0 {
		first := all[0].Name
		sizes[first] = max(sizes[first]+toAdd-added, 0)
	}
	return sizes
}

package deployment

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Plan is what one sync of a Deployment decided, for the shell to carry
// out in this order: Create, Update, Delete, Status, Revision. A failed
// write stops the rest; the next sync decides again from what it sees.
type Plan struct {
	// Create is the new ReplicaSet to create, or nil.
	Create *api.ReplicaSet
	// Update holds changed copies of existing ReplicaSets (their
	// resourceVersion is the cached one: the precondition of the write).
	Update []*api.ReplicaSet
	// Delete holds old, empty ReplicaSets beyond revisionHistoryLimit.
	Delete []*api.ReplicaSet
	// Status is the Deployment's new status, or nil if it has not changed.
	Status *api.DeploymentStatus
	// Revision, when not empty, is the new value of the Deployment's own
	// revision annotation.
	Revision string
	// RequeueAfter, when positive, is when the Deployment must be synced
	// again although nothing changes meanwhile: its progress deadline.
	RequeueAfter time.Duration
	// Events describe the scaling done, as kcm records them.
	Events []Event
}

// Event is an event the shell records about the Deployment.
type Event struct {
	// Warning is true for a Warning event, false for Normal.
	Warning bool
	// Reason is CamelCase, e.g. ScalingReplicaSet.
	Reason string
	// Message is for humans.
	Message string
}

// state is one sync's working set: deep copies that the decision
// functions change as kcm's sync changes the objects through the API.
type state struct {
	now     time.Time
	orig    *api.Deployment
	d       *api.Deployment   // copy; d.Status is the status being built
	rss     []*api.ReplicaSet // copies of every owned ReplicaSet, and the new one once planned
	pods    []*api.Pod
	created *api.ReplicaSet
	changed map[*api.ReplicaSet]bool
	deleted []*api.ReplicaSet
	events  []Event
	rollout bool // the status was judged for progress (syncRolloutStatus)
}

// Decide is the Deployment controller's sync as a pure function: given a
// Deployment, the ReplicaSets it owns (already claimed), the pods those
// own (only Recreate looks at them), and the time, it returns what to
// write. It follows kcm's syncDeployment step by step; see doc.go. Its
// arguments are not changed. The error wraps ErrInvalidStrategy when the
// rolling update parameters are invalid.
func Decide(d *api.Deployment, rss []*api.ReplicaSet, pods []*api.Pod, now time.Time) (Plan, error) {
	s := &state{
		now:     now.Truncate(time.Second), // the API keeps condition times in seconds
		orig:    d,
		d:       d.DeepCopy(),
		pods:    pods,
		changed: map[*api.ReplicaSet]bool{},
	}
	for _, rs := range rss {
		s.rss = append(s.rss, rs.DeepCopy())
	}
	slices.SortFunc(s.rss, byCreation)

	if d.Spec.Selector == nil || (len(d.Spec.Selector.MatchLabels) == 0 && len(d.Spec.Selector.MatchExpressions) == 0) {
		s.event(true, ReasonSelectingAll, "This deployment is selecting all pods. A non-empty selector is required.")
		if s.d.Status.ObservedGeneration < d.Generation {
			s.d.Status.ObservedGeneration = d.Generation
		}
		return s.plan(), nil
	}
	if d.DeletionTimestamp != nil {
		newRS, old := s.syncRevision(false)
		s.status(newRS, old, false)
		return s.plan(), nil
	}
	if err := validateStrategy(d); err != nil {
		return Plan{}, err
	}
	s.pausedConditions()
	if d.Spec.Paused {
		s.sync()
		return s.plan(), nil
	}
	if s.isScalingEvent() {
		s.sync()
		return s.plan(), nil
	}
	if isRollingUpdate(d) {
		s.rolloutRolling()
	} else {
		s.rolloutRecreate()
	}
	return s.plan(), nil
}

func (s *state) event(warning bool, reason, format string, args ...any) {
	s.events = append(s.events, Event{Warning: warning, Reason: reason, Message: fmt.Sprintf(format, args...)})
}

// plan turns the working set into the writes.
func (s *state) plan() Plan {
	p := Plan{Create: s.created, Delete: s.deleted, Events: s.events}
	for _, rs := range s.rss {
		if s.changed[rs] && rs != s.created {
			p.Update = append(p.Update, rs)
		}
	}
	if !statusEqual(&s.orig.Status, &s.d.Status) {
		st := s.d.Status
		p.Status = &st
	}
	if rev := s.d.Annotations[api.AnnotationDeploymentRevision]; rev != s.orig.Annotations[api.AnnotationDeploymentRevision] {
		p.Revision = rev
	}
	p.RequeueAfter = s.requeueStuck()
	return p
}

// split finds the new ReplicaSet — the oldest whose template equals the
// Deployment's but for the hash label (kcm's FindNewReplicaSet) — and
// the old ones.
func (s *state) split() (newRS *api.ReplicaSet, old []*api.ReplicaSet) {
	for _, rs := range s.rss {
		if newRS == nil && equalIgnoreHash(&rs.Spec.Template, &s.d.Spec.Template) {
			newRS = rs
			continue
		}
		old = append(old, rs)
	}
	return newRS, old
}

// syncRevision is kcm's getAllReplicaSetsAndSyncRevision: the new
// ReplicaSet gets revision max(old)+1 (a rollback bumps the revision of
// the old ReplicaSet that becomes new again), the Deployment's
// annotations and minReadySeconds; when create is set and there is none,
// one is planned, sized by newRSNewReplicas.
func (s *state) syncRevision(create bool) (newRS *api.ReplicaSet, old []*api.ReplicaSet) {
	newRS, old = s.split()
	var maxOld int64
	for _, rs := range old {
		maxOld = max(maxOld, revision(rs))
	}
	newRevision := maxOld + 1
	d := s.d
	if newRS != nil {
		changed := copyAnnotations(d, newRS)
		if revision(newRS) < newRevision {
			if newRS.Annotations == nil {
				newRS.Annotations = map[string]string{}
			}
			newRS.Annotations[api.AnnotationDeploymentRevision] = strconv.FormatInt(newRevision, 10)
			changed = true
		}
		if newRS.Spec.MinReadySeconds != d.Spec.MinReadySeconds {
			newRS.Spec.MinReadySeconds = d.Spec.MinReadySeconds
			changed = true
		}
		if changed {
			s.changed[newRS] = true
		}
		s.setRevision(newRS.Annotations[api.AnnotationDeploymentRevision])
		if hasProgressDeadline(d) && getCondition(&d.Status, ConditionProgressing) == nil {
			setCondition(&d.Status, newCondition(ConditionProgressing, api.ConditionTrue, ReasonFoundNewReplicaSet,
				fmt.Sprintf("Found new replica set %q", newRS.Name), s.now))
		}
		return newRS, old
	}
	if !create {
		return nil, old
	}
	template := d.Spec.Template.DeepCopy()
	hash := PodTemplateHash(template, d.Status.CollisionCount)
	template.Labels = maps.Clone(template.Labels)
	if template.Labels == nil {
		template.Labels = map[string]string{}
	}
	template.Labels[api.LabelPodTemplateHash] = hash
	selector := d.Spec.Selector.DeepCopy()
	if selector.MatchLabels == nil {
		selector.MatchLabels = map[string]string{}
	}
	selector.MatchLabels[api.LabelPodTemplateHash] = hash
	zero := int32(0)
	rs := &api.ReplicaSet{
		TypeMeta: api.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: api.ObjectMeta{
			Name:            d.Name + "-" + hash,
			Namespace:       d.Namespace,
			OwnerReferences: []api.OwnerReference{api.NewControllerRef(s.orig)},
			Labels:          maps.Clone(template.Labels),
		},
		Spec: api.ReplicaSetSpec{
			Replicas:        &zero,
			MinReadySeconds: d.Spec.MinReadySeconds,
			Selector:        selector,
			Template:        *template,
		},
	}
	n := newRSNewReplicas(d, append(slices.Clone(old), rs), rs)
	rs.Spec.Replicas = &n
	rs.Annotations = map[string]string{}
	copyAnnotations(d, rs)
	rs.Annotations[api.AnnotationDeploymentRevision] = strconv.FormatInt(newRevision, 10)
	setReplicasAnnotations(rs, replicas(d), replicas(d)+maxSurge(d))
	rs.CreationTimestamp = api.NewTime(s.now) // the newest; the store sets its own
	s.created = rs
	s.rss = append(s.rss, rs)
	s.changed[rs] = true
	if n > 0 {
		s.event(false, ReasonScalingReplicaSet, "Scaled up replica set %s from 0 to %d", rs.Name, n)
	}
	s.setRevision(rs.Annotations[api.AnnotationDeploymentRevision])
	if hasProgressDeadline(d) {
		setCondition(&d.Status, newCondition(ConditionProgressing, api.ConditionTrue, ReasonNewReplicaSetCreated,
			fmt.Sprintf("Created new replica set %q", rs.Name), s.now))
	}
	return rs, old
}

// setRevision sets the Deployment's revision annotation (kcm's
// SetDeploymentRevision).
func (s *state) setRevision(rev string) {
	if s.d.Annotations[api.AnnotationDeploymentRevision] == rev {
		return
	}
	s.d.Annotations = maps.Clone(s.d.Annotations)
	if s.d.Annotations == nil {
		s.d.Annotations = map[string]string{}
	}
	s.d.Annotations[api.AnnotationDeploymentRevision] = rev
}

// scaleTo is kcm's scaleReplicaSet: it sets rs's size and, whenever it
// writes, the desired/max replicas annotations. It reports a size change.
func (s *state) scaleTo(rs *api.ReplicaSet, n int32) bool {
	d := s.d
	sizeChanged := rsReplicas(rs) != n
	if !sizeChanged && !replicasAnnotationsNeedUpdate(rs, replicas(d), replicas(d)+maxSurge(d)) {
		return false
	}
	from := rsReplicas(rs)
	rs.Spec.Replicas = &n
	setReplicasAnnotations(rs, replicas(d), replicas(d)+maxSurge(d))
	s.changed[rs] = true
	if sizeChanged {
		dir := "up"
		if n < from {
			dir = "down"
		}
		s.event(false, ReasonScalingReplicaSet, "Scaled %s replica set %s from %d to %d", dir, rs.Name, from, n)
	}
	return sizeChanged
}

// scaleIfNeeded is kcm's scaleReplicaSetAndRecordEvent: no write when
// the size is already right.
func (s *state) scaleIfNeeded(rs *api.ReplicaSet, n int32) bool {
	if rsReplicas(rs) == n {
		return false
	}
	return s.scaleTo(rs, n)
}

// isScalingEvent: an active ReplicaSet's desired-replicas annotation
// differs from the Deployment's replicas (kcm's isScalingEvent).
func (s *state) isScalingEvent() bool {
	newRS, old := s.syncRevision(false)
	for _, rs := range active(append(old, newRS)) {
		if want, ok := int32Annotation(rs, api.AnnotationDesiredReplicas); ok && want != replicas(s.d) {
			return true
		}
	}
	return false
}

// sync is kcm's sync: scale for a paused Deployment or a scaling event,
// clean up when paused, and write the status without judging progress.
func (s *state) sync() {
	newRS, old := s.syncRevision(false)
	s.scale(newRS, old)
	if s.d.Spec.Paused {
		s.cleanup(old)
	}
	s.status(newRS, old, false)
}

// scale is kcm's scale: a single active (or the latest) ReplicaSet takes
// all the replicas; a saturated new one leaves the old ones nothing;
// otherwise a rolling update scales every active ReplicaSet in
// proportion.
func (s *state) scale(newRS *api.ReplicaSet, old []*api.ReplicaSet) {
	d := s.d
	if one := activeOrLatest(newRS, old); one != nil {
		s.scaleIfNeeded(one, replicas(d))
		return
	}
	if isSaturated(d, newRS) {
		for _, rs := range active(old) {
			s.scaleIfNeeded(rs, 0)
		}
		return
	}
	if !isRollingUpdate(d) {
		return
	}
	all := active(append(slices.Clone(old), newRS))
	sizes := proportionalSizes(d, all)
	for _, rs := range all {
		s.scaleTo(rs, sizes[rs.Name])
	}
}

// activeOrLatest is kcm's FindActiveOrLatest: the only active
// ReplicaSet, or the newest when none is active, or nil.
func activeOrLatest(newRS *api.ReplicaSet, old []*api.ReplicaSet) *api.ReplicaSet {
	if newRS == nil && len(old) == 0 {
		return nil
	}
	old = slices.Clone(old)
	slices.SortFunc(old, func(a, b *api.ReplicaSet) int { return byCreation(b, a) })
	all := active(append(old, newRS))
	switch len(all) {
	case 0:
		if newRS != nil {
			return newRS
		}
		return old[0]
	case 1:
		return all[0]
	}
	return nil
}

// isSaturated: the new ReplicaSet has all the replicas and they are all
// available (kcm's IsSaturated).
func isSaturated(d *api.Deployment, rs *api.ReplicaSet) bool {
	if rs == nil {
		return false
	}
	want, ok := int32Annotation(rs, api.AnnotationDesiredReplicas)
	return ok && rsReplicas(rs) == replicas(d) && want == replicas(d) && rs.Status.AvailableReplicas == replicas(d)
}

// cleanup deletes the oldest ReplicaSets beyond revisionHistoryLimit that
// are empty — spec and status 0, status up to date, not being deleted
// (kcm's cleanupDeployment).
func (s *state) cleanup(old []*api.ReplicaSet) {
	d := s.d
	if d.Spec.RevisionHistoryLimit == nil || *d.Spec.RevisionHistoryLimit == math.MaxInt32 {
		return
	}
	var cleanable []*api.ReplicaSet
	for _, rs := range old {
		if rs.DeletionTimestamp == nil {
			cleanable = append(cleanable, rs)
		}
	}
	diff := len(cleanable) - int(*d.Spec.RevisionHistoryLimit)
	if diff <= 0 {
		return
	}
	slices.SortFunc(cleanable, byRevision)
	for _, rs := range cleanable[:diff] {
		if rs.Status.Replicas != 0 || rsReplicas(rs) != 0 || rs.Generation > rs.Status.ObservedGeneration || s.changed[rs] {
			continue
		}
		s.deleted = append(s.deleted, rs)
	}
}

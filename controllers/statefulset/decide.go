package statefulset

import (
	"slices"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// op is the kind of one action.
type op int

const (
	createClaim op = iota // create claim (before its pod)
	updateClaim           // write claim's owner references (retention policy)
	createPod             // create pod
	deletePod             // delete pod
	updatePod             // write pod's identity labels
)

func (o op) String() string {
	return [...]string{"createClaim", "updateClaim", "createPod", "deletePod", "updatePod"}[o]
}

// action is one write the shell performs, in order. why says which kcm
// step asked for it (scale-up, failed, scale-down, update, …).
type action struct {
	op    op
	pod   *api.Pod
	claim *api.PersistentVolumeClaim
	why   string
}

// input is what one sync observed: the set, the revisions it controls,
// the member pods it controls, the claims of its namespace by name, and
// the instant.
type input struct {
	set       *api.StatefulSet
	revisions []*api.ControllerRevision
	pods      []*api.Pod
	claims    map[string]*api.PersistentVolumeClaim
	now       time.Time
}

// plan is what decide returns.
type plan struct {
	revisions revisionPlan
	// actions are performed in order; the shell stops at the first
	// error.
	actions []action
	// deleteRevisions trims the history, after the status is written.
	deleteRevisions []*api.ControllerRevision
	// status is the set's new status.
	status api.StatefulSetStatus
	// requeueAfter > 0 asks for a sync then: the next pod becoming
	// available after minReadySeconds.
	requeueAfter time.Duration
}

// decide is kcm's UpdateStatefulSet (stateful_set_control.go) as a pure
// function: revisions, then the members in ordinal order (create, replace
// failed, wait), then the condemned ones from the top, then the rolling
// update; see the package documentation.
func decide(in input) (plan, error) {
	set, now := in.set, in.now
	rp, err := chooseRevisions(set, in.revisions)
	if err != nil {
		return plan{}, err
	}
	currentTmpl, err := templateOf(rp.current)
	if err != nil {
		return plan{}, err
	}
	updateTmpl := &set.Spec.Template
	d := &decider{in: in, p: plan{revisions: rp}, minReady: set.Spec.MinReadySeconds}

	start, n := startOrdinal(set), replicaCount(set)
	replicas := make([]*api.Pod, n)
	var condemned []*api.Pod
	for _, p := range in.pods {
		switch o := ordinalOf(p); {
		case o < 0:
		case inRange(set, o):
			replicas[o-start] = p
		default:
			condemned = append(condemned, p)
		}
	}
	partition := 0
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil {
		partition = int(*ru.Partition)
	}
	rolling := set.Spec.UpdateStrategy.Type != "OnDelete"
	for i := range replicas {
		if replicas[i] == nil { // newVersionedStatefulSetPod
			if rolling && i < partition {
				replicas[i] = newPod(set, currentTmpl, rp.current.Name, start+i)
			} else {
				replicas[i] = newPod(set, updateTmpl, rp.update.Name, start+i)
			}
		}
	}
	slices.SortFunc(condemned, func(a, b *api.Pod) int { return ordinalOf(b) - ordinalOf(a) })
	d.p.status = d.status(replicas, condemned)
	d.p.requeueAfter = d.nextAvailable(replicas, condemned)
	d.p.deleteRevisions = historyToDelete(set, in.revisions, in.pods, rp.current.Name, rp.update.Name)

	var firstUnavailable *api.Pod
	for _, p := range replicas {
		if isUnavailable(p, d.minReady, now) {
			firstUnavailable = p
			break
		}
	}
	if firstUnavailable == nil {
		for i := len(condemned) - 1; i >= 0; i-- {
			if isUnavailable(condemned[i], d.minReady, now) {
				firstUnavailable = condemned[i]
				break
			}
		}
	}
	if set.DeletionTimestamp != nil {
		return d.done(), nil
	}
	monotonic := set.Spec.PodManagementPolicy != api.ParallelPodManagement

	for _, p := range replicas {
		if d.processReplica(p, monotonic) && monotonic {
			return d.done(), nil
		}
	}
	for _, p := range condemned {
		d.fixClaims(p, false)
	}
	for _, p := range condemned {
		if d.processCondemned(p, firstUnavailable, monotonic) && monotonic {
			return d.done(), nil
		}
	}
	if !rolling {
		return d.done(), nil
	}
	d.rollingUpdate(replicas, partition)
	return d.done(), nil
}

// decider accumulates a plan.
type decider struct {
	in       input
	p        plan
	minReady int32
}

func (d *decider) add(a action) { d.p.actions = append(d.p.actions, a) }

// done completes a rolling update in the status (completeRollingUpdate)
// and returns the plan.
func (d *decider) done() plan {
	st := &d.p.status
	if d.in.set.Spec.UpdateStrategy.Type != "OnDelete" && st.UpdatedReplicas == st.Replicas && st.ReadyReplicas == st.Replicas {
		st.CurrentReplicas = st.UpdatedReplicas
		st.CurrentRevision = st.UpdateRevision
	}
	return d.p
}

// processReplica is kcm's processReplica for the member p; it reports
// whether an OrderedReady set must stop here.
func (d *decider) processReplica(p *api.Pod, monotonic bool) bool {
	set, now := d.in.set, d.in.now
	if isTerminal(p) {
		// Succeeded counts too: an evicted or node-rebooted pod's phase
		// follows its containers' exit codes. The replacement is made
		// once this one is gone.
		if !isTerminating(p) {
			d.add(action{op: deletePod, pod: p, why: "terminated pod is recreated"})
		}
		return true
	}
	if !isCreated(p) {
		if d.claimsStale(p) {
			return true
		}
		d.createClaims(p, "create")
		d.add(action{op: createPod, pod: p, why: "scale up"})
		return monotonic
	}
	if p.Status.Phase == api.PodPending {
		d.createClaims(p, "missing")
	}
	if monotonic && (isTerminating(p) || !isRunningAndReady(p) || !isRunningAndAvailable(p, d.minReady, now)) {
		return true
	}
	if !identityMatches(set, p) {
		cp := p.DeepCopy()
		setIdentity(set, cp)
		d.add(action{op: updatePod, pod: cp, why: "identity"})
	}
	d.fixClaims(p, true)
	return false
}

// processCondemned is kcm's processCondemned: a pod beyond the replicas
// is deleted once every lower one is healthy (OrderedReady), except that
// the first unhealthy pod may go at once; it reports whether to stop.
func (d *decider) processCondemned(p, firstUnavailable *api.Pod, monotonic bool) bool {
	if isTerminating(p) {
		return monotonic
	}
	if monotonic && p != firstUnavailable && !isRunningAndAvailable(p, d.minReady, d.in.now) {
		return true
	}
	d.add(action{op: deletePod, pod: p, why: "scale down"})
	return true
}

// rollingUpdate is updateStatefulSetAfterInvariantEstablished (kcm's
// MaxUnavailableStatefulSet path): with u members unavailable, delete up
// to maxUnavailable−u pods not at the update revision, from the highest
// ordinal down to the partition. The controller recreates them at the
// update revision.
func (d *decider) rollingUpdate(replicas []*api.Pod, partition int) {
	set := d.in.set
	maxU := 1
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.MaxUnavailable != nil {
		maxU = scaledUp(*ru.MaxUnavailable, replicaCount(set))
		if maxU < 1 {
			maxU = 1
		}
	}
	unavailable := 0
	for _, p := range replicas {
		if isUnavailable(p, d.minReady, d.in.now) {
			unavailable++
		}
	}
	if unavailable >= maxU {
		return
	}
	deleted := 0
	for i := len(replicas) - 1; i >= partition && deleted < maxU-unavailable; i-- {
		p := replicas[i]
		if isCreated(p) && revisionOf(p) != d.p.revisions.update.Name && !isTerminating(p) {
			d.add(action{op: deletePod, pod: p, why: "update"})
			deleted++
			d.p.status.CurrentReplicas--
		}
	}
}

// scaledUp is intstr.GetScaledValueFromIntOrPercent rounding up.
func scaledUp(v api.IntOrString, total int) int {
	if v.Type == api.TypeInt {
		return int(v.IntVal)
	}
	s := v.StrVal
	if len(s) == 0 || s[len(s)-1] != '%' {
		return v.IntValue()
	}
	pct := api.FromString(s[:len(s)-1]).IntValue()
	return (pct*total + 99) / 100
}

// claimsStale is PodClaimIsStale: with whenScaled Delete, a claim of p
// still owned by an earlier pod of that name (which the garbage
// collector is about to delete with it), or one being deleted, blocks
// p's creation.
func (d *decider) claimsStale(p *api.Pod) bool {
	for _, t := range d.in.set.Spec.VolumeClaimTemplates {
		c, ok := d.in.claims[claimName(d.in.set, t.Name, ordinalOf(p))]
		if !ok {
			continue
		}
		if c.DeletionTimestamp != nil {
			return true
		}
		if policy(d.in.set).WhenScaled == remove {
			for _, r := range c.OwnerReferences {
				if r.Kind == "Pod" && r.Name == p.Name && r.UID != p.UID {
					return true
				}
			}
		}
	}
	return false
}

// createClaims adds the creation of p's missing claims, owned as the
// retention policy says.
func (d *decider) createClaims(p *api.Pod, why string) {
	set := d.in.set
	for i := range set.Spec.VolumeClaimTemplates {
		t := &set.Spec.VolumeClaimTemplates[i]
		if _, ok := d.in.claims[claimName(set, t.Name, ordinalOf(p))]; ok {
			continue
		}
		c := newClaim(set, t, ordinalOf(p))
		c.OwnerReferences, _ = claimRefs(set, c, p, true)
		d.add(action{op: createClaim, claim: c, pod: p, why: why})
	}
}

// fixClaims adds the updates that make the owner references of p's
// claims match the retention policy (UpdatePodClaimForRetentionPolicy);
// inRange says whether p is a member or condemned.
func (d *decider) fixClaims(p *api.Pod, member bool) {
	set := d.in.set
	for _, t := range set.Spec.VolumeClaimTemplates {
		c, ok := d.in.claims[claimName(set, t.Name, ordinalOf(p))]
		if !ok || c.DeletionTimestamp != nil {
			continue
		}
		if refs, changed := claimRefs(set, c, p, member); changed {
			cp := c.DeepCopy()
			cp.OwnerReferences = refs
			d.add(action{op: updateClaim, claim: cp, pod: p, why: "retention policy"})
		}
	}
}

// policy returns the claim retention policy, Retain/Retain by default.
func policy(set *api.StatefulSet) api.StatefulSetPersistentVolumeClaimRetentionPolicy {
	p := api.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: retain, WhenScaled: retain}
	if r := set.Spec.PersistentVolumeClaimRetentionPolicy; r != nil {
		if r.WhenDeleted != "" {
			p.WhenDeleted = r.WhenDeleted
		}
		if r.WhenScaled != "" {
			p.WhenScaled = r.WhenScaled
		}
	}
	return p
}

// claimRefs is updateClaimOwnerRefForSetAndPod: whenDeleted Delete makes
// the set an owner of the claim (the garbage collector deletes it with
// the set); whenScaled Delete makes a condemned pod its owner instead (it
// goes with the pod). It returns the claim's new owner references and
// whether they changed.
func claimRefs(set *api.StatefulSet, c *api.PersistentVolumeClaim, p *api.Pod, member bool) ([]api.OwnerReference, bool) {
	pol := policy(set)
	wantSet := pol.WhenDeleted == remove && (member || pol.WhenScaled != remove)
	wantPod := pol.WhenScaled == remove && !member && p.UID != ""
	refs := slices.Clone(c.OwnerReferences)
	changed := false
	setRef := api.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: set.Name, UID: set.UID}
	podRef := api.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID}
	for _, x := range []struct {
		ref  api.OwnerReference
		want bool
	}{{setRef, wantSet}, {podRef, wantPod}} {
		i := slices.IndexFunc(refs, func(r api.OwnerReference) bool { return r.UID == x.ref.UID && r.UID != "" })
		if x.ref.Kind == "Pod" && !x.want { // drop any reference to a pod of this name
			n := len(refs)
			refs = slices.DeleteFunc(refs, func(r api.OwnerReference) bool { return r.Kind == "Pod" && r.Name == p.Name })
			changed = changed || len(refs) != n
			continue
		}
		switch {
		case x.want && i < 0:
			refs = append(refs, x.ref)
			changed = true
		case !x.want && i >= 0:
			refs = slices.Delete(refs, i, i+1)
			changed = true
		}
	}
	if len(refs) == 0 {
		refs = nil
	}
	return refs, changed
}

// status is updateStatus over the members and the condemned pods.
func (d *decider) status(replicas, condemned []*api.Pod) api.StatefulSetStatus {
	set, rp := d.in.set, d.p.revisions
	cc := rp.collisionCount
	st := api.StatefulSetStatus{
		ObservedGeneration: set.Generation,
		CurrentRevision:    rp.current.Name,
		UpdateRevision:     rp.update.Name,
		CollisionCount:     &cc,
		Conditions:         set.Status.Conditions,
	}
	for _, p := range slices.Concat(replicas, condemned) {
		if !isCreated(p) {
			continue
		}
		st.Replicas++
		if isRunningAndReady(p) {
			st.ReadyReplicas++
			if isRunningAndAvailable(p, d.minReady, d.in.now) {
				st.AvailableReplicas++
			}
		}
		if !isTerminating(p) {
			if revisionOf(p) == rp.current.Name {
				st.CurrentReplicas++
			}
			if revisionOf(p) == rp.update.Name {
				st.UpdatedReplicas++
			}
		}
	}
	return st
}

// nextAvailable returns how long until the first ready pod becomes
// available, 0 if none is waiting.
func (d *decider) nextAvailable(pods ...[]*api.Pod) time.Duration {
	if d.minReady == 0 {
		return 0
	}
	var next time.Duration
	for _, p := range slices.Concat(pods...) {
		at, ok := availableAt(p, d.minReady)
		if !ok || isRunningAndAvailable(p, d.minReady, d.in.now) {
			continue
		}
		if w := at.Sub(d.in.now) + time.Second; next == 0 || w < next {
			next = w // a little after, as availability needs strictly more than minReadySeconds
		}
	}
	return next
}

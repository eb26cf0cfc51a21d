package daemonset

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/ctrlutil"
	"github.com/ctrlkit/ctrlkit/source"
)

// revisionData is the Data of the ControllerRevision of ds's template:
// the patch that restores it, {"spec":{"template":{…,"$patch":"replace"}}}
// (kcm's getPatch). Two templates have the same revision exactly when
// their data are equal (kcm's Match).
func revisionData(ds *api.DaemonSet) []byte {
	b, err := json.Marshal(&ds.Spec.Template)
	if err != nil {
		panic("daemonset: encoding a pod template: " + err.Error()) // api types always encode
	}
	var t map[string]json.RawMessage
	if err := json.Unmarshal(b, &t); err != nil {
		panic("daemonset: decoding a pod template: " + err.Error())
	}
	t["$patch"] = json.RawMessage(`"replace"`)
	out, err := json.Marshal(map[string]map[string]map[string]json.RawMessage{"spec": {"template": t}})
	if err != nil {
		panic("daemonset: encoding a revision: " + err.Error())
	}
	return out
}

// safeAlphabet is the alphabet of kcm's rand.SafeEncodeString.
const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// templateHash is the controller-revision-hash of ds's template: the
// 32-bit FNV-1a hash of the template's JSON followed, when collisionCount
// is set, by the count as 4 little-endian bytes, its decimal digits
// mapped onto a safe alphabet — kcm's ComputeHash, which hashes a dump of
// the Go struct instead of JSON, so the values differ from kcm's.
func templateHash(t *api.PodTemplateSpec, collisionCount *int32) string {
	b, err := json.Marshal(t)
	if err != nil {
		panic("daemonset: encoding a pod template: " + err.Error())
	}
	h := fnv.New32a()
	h.Write(b)
	if collisionCount != nil {
		h.Write(binary.LittleEndian.AppendUint32(nil, uint32(*collisionCount)))
	}
	digits := []byte(strconv.FormatUint(uint64(h.Sum32()), 10))
	for i, c := range digits {
		digits[i] = safeAlphabet[int(c)%len(safeAlphabet)]
	}
	return string(digits)
}

// newRevision is the ControllerRevision snapshot of ds's template (kcm's
// snapshot): named <set>-<hash>, labelled with the template's labels and
// the hash, carrying the set's annotations, controlled by the set.
func newRevision(ds *api.DaemonSet, revision int64) *api.ControllerRevision {
	hash := templateHash(&ds.Spec.Template, ds.Status.CollisionCount)
	labels := maps.Clone(ds.Spec.Template.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[api.LabelControllerRevisionHash] = hash
	return &api.ControllerRevision{
		TypeMeta: api.TypeMeta{APIVersion: "apps/v1", Kind: "ControllerRevision"},
		ObjectMeta: api.ObjectMeta{
			Name:            ds.Name + "-" + hash,
			Namespace:       ds.Namespace,
			Labels:          labels,
			Annotations:     maps.Clone(ds.Annotations),
			OwnerReferences: []api.OwnerReference{api.NewControllerRef(ds)},
		},
		Data:     revisionData(ds),
		Revision: revision,
	}
}

// splitHistory separates the revisions that match ds's template from the
// old ones and returns the revision number the current one must have:
// one more than the highest old revision (kcm's constructHistory).
func splitHistory(ds *api.DaemonSet, revs []*api.ControllerRevision) (cur, old []*api.ControllerRevision, next int64) {
	data := revisionData(ds)
	for _, r := range revs {
		if bytes.Equal(r.Data, data) {
			cur = append(cur, r)
		} else {
			old = append(old, r)
			next = max(next, r.Revision)
		}
	}
	return cur, old, next + 1
}

// historyToDelete returns the old revisions to delete so that at most
// limit remain, oldest revision first, never one whose hash a live pod
// carries (kcm's cleanupHistory).
func historyToDelete(old []*api.ControllerRevision, pods []*api.Pod, limit int) []*api.ControllerRevision {
	kill := len(old) - limit
	if kill <= 0 {
		return nil
	}
	live := map[string]bool{}
	for _, p := range pods {
		if h := p.Labels[api.LabelControllerRevisionHash]; h != "" {
			live[h] = true
		}
	}
	sorted := slices.Clone(old)
	slices.SortStableFunc(sorted, func(a, b *api.ControllerRevision) int { return int(a.Revision - b.Revision) })
	var out []*api.ControllerRevision
	for _, r := range sorted {
		if kill == 0 {
			break
		}
		if live[r.Labels[api.LabelControllerRevisionHash]] {
			continue
		}
		out = append(out, r)
		kill--
	}
	return out
}

// constructHistory claims ds's ControllerRevisions and returns the
// current one — created if missing, deduplicated if several, its
// revision number raised above the old ones — and the old ones (kcm's
// constructHistory, controlledHistories, dedupCurHistories and
// snapshot). relabelled reports that deduplication relabelled pods: the
// pod cache does not show it yet.
func (m *manager) constructHistory(ctx context.Context, ds *api.DaemonSet, sel api.Selector) (cur *api.ControllerRevision, old []*api.ControllerRevision, relabelled bool, err error) {
	key := api.Key(ds)
	all := m.revisions.Lister().Namespace(ds.Namespace).List(nil)
	claimed, err := ctrlutil.NewClaimer(ds, sel, m.liveSet(key), m.revWriter).Claim(ctx, all)
	if err != nil {
		return nil, nil, false, err
	}
	for i, r := range claimed {
		if _, ok := r.Labels[api.LabelControllerRevisionHash]; ok {
			continue
		}
		// A revision made by another client without the label gets its
		// name as hash, as kcm labels it.
		cp := r.DeepCopy()
		if cp.Labels == nil {
			cp.Labels = map[string]string{}
		}
		cp.Labels[api.LabelControllerRevisionHash] = cp.Name
		if _, err := m.revWriter.Update(ctx, cp, r.ResourceVersion); err != nil {
			return nil, nil, false, fmt.Errorf("daemonset: label revision %s: %w", cp.Name, err)
		}
		claimed[i] = cp
	}
	curs, old, next := splitHistory(ds, claimed)
	if len(curs) == 0 {
		r, err := m.snapshot(ctx, ds, next)
		return r, old, false, err
	}
	keep := curs[0]
	for _, r := range curs[1:] {
		if r.Revision >= keep.Revision {
			keep = r
		}
	}
	for _, r := range curs {
		if r == keep {
			continue
		}
		n, err := m.relabelPods(ctx, ds, keep.Labels[api.LabelControllerRevisionHash])
		if err != nil {
			return nil, nil, false, err
		}
		relabelled = relabelled || n > 0
		if _, err := m.revWriter.Delete(ctx, api.Key(r), ""); err != nil && !errors.Is(err, source.ErrNotFound) {
			return nil, nil, false, fmt.Errorf("daemonset: delete duplicate revision %s: %w", r.Name, err)
		}
	}
	if keep.Revision < next {
		cp := keep.DeepCopy()
		cp.Revision = next
		if _, err := m.revWriter.Update(ctx, cp, keep.ResourceVersion); err != nil {
			return nil, nil, false, fmt.Errorf("daemonset: renumber revision %s: %w", cp.Name, err)
		}
		keep = cp
	}
	return keep, old, relabelled, nil
}

// snapshot creates the revision of ds's template. A revision of that
// name that holds the same template is taken as it is; one that holds
// another (a hash collision) bumps status.collisionCount, so that the
// next sync names its revision differently, and fails this sync.
func (m *manager) snapshot(ctx context.Context, ds *api.DaemonSet, revision int64) (*api.ControllerRevision, error) {
	r := newRevision(ds, revision)
	if _, err := m.revWriter.Create(ctx, r); err == nil {
		return r, nil
	} else if !errors.Is(err, source.ErrAlreadyExists) {
		return nil, fmt.Errorf("daemonset: create revision %s: %w", r.Name, err)
	}
	existing, _, err := m.revClient.Get(ctx, api.Key(r))
	if err != nil {
		return nil, fmt.Errorf("daemonset: get revision %s: %w", r.Name, err)
	}
	if bytes.Equal(existing.Data, r.Data) {
		return existing, nil
	}
	live, _, err := m.setClient.Get(ctx, api.Key(ds))
	if err != nil {
		return nil, fmt.Errorf("daemonset: get %s: %w", api.Key(ds), err)
	}
	if !equalPtr(live.Status.CollisionCount, ds.Status.CollisionCount) {
		return nil, fmt.Errorf("daemonset: %s: stale collision count; will retry", api.Key(ds))
	}
	n := int32(0)
	if live.Status.CollisionCount != nil {
		n = *live.Status.CollisionCount
	}
	n++
	live.Status.CollisionCount = &n
	if _, err := m.setClient.UpdateStatus(ctx, live); err != nil {
		return nil, fmt.Errorf("daemonset: bump collision count of %s: %w", api.Key(ds), err)
	}
	return nil, fmt.Errorf("daemonset: %s: hash collision on revision %s; collisionCount is now %d", api.Key(ds), r.Name, n)
}

// relabelPods gives every pod of ds the hash label of the kept revision
// before a duplicate revision is deleted, and returns how many it
// changed.
func (m *manager) relabelPods(ctx context.Context, ds *api.DaemonSet, hash string) (int, error) {
	n := 0
	for _, p := range m.pods.Lister().Namespace(ds.Namespace).List(nil) {
		if !api.IsControlledBy(p, ds) || p.Labels[api.LabelControllerRevisionHash] == hash {
			continue
		}
		cp := p.DeepCopy()
		if cp.Labels == nil {
			cp.Labels = map[string]string{}
		}
		cp.Labels[api.LabelControllerRevisionHash] = hash
		if _, err := m.podWriter.Update(ctx, cp, p.ResourceVersion); err != nil {
			if errors.Is(err, source.ErrNotFound) {
				continue
			}
			return n, fmt.Errorf("daemonset: relabel pod %s: %w", p.Name, err)
		}
		n++
	}
	return n, nil
}

// cleanupHistory deletes the old revisions beyond revisionHistoryLimit
// (default 10) that no pod of the set runs.
func (m *manager) cleanupHistory(ctx context.Context, ds *api.DaemonSet, old []*api.ControllerRevision, pods []*api.Pod) error {
	limit := 10
	if l := ds.Spec.RevisionHistoryLimit; l != nil {
		limit = int(*l)
	}
	var errs []error
	for _, r := range historyToDelete(old, pods, limit) {
		if _, err := m.revWriter.Delete(ctx, api.Key(r), ""); err != nil && !errors.Is(err, source.ErrNotFound) {
			errs = append(errs, fmt.Errorf("daemonset: delete revision %s: %w", r.Name, err))
		}
	}
	return errors.Join(errs...)
}

func equalPtr(a, b *int32) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

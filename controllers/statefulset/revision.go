package statefulset

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// revisionData is a ControllerRevision's data for template: kcm's
// getPatch, the strategic merge patch {"spec":{"template":{…,
// "$patch":"replace"}}} that replaces the set's template with the
// revision's.
func revisionData(template *api.PodTemplateSpec) (json.RawMessage, error) {
	raw, err := json.Marshal(template)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	m["$patch"] = json.RawMessage(`"replace"`)
	return json.Marshal(map[string]any{"spec": map[string]any{"template": m}})
}

// templateOf returns the template a revision records (ApplyRevision).
func templateOf(rev *api.ControllerRevision) (*api.PodTemplateSpec, error) {
	var d struct {
		Spec struct {
			Template map[string]json.RawMessage `json:"template"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(rev.Data, &d); err != nil {
		return nil, fmt.Errorf("revision %s: %w", rev.Name, err)
	}
	if d.Spec.Template == nil {
		return nil, fmt.Errorf("revision %s: no spec.template", rev.Name)
	}
	delete(d.Spec.Template, "$patch")
	raw, err := json.Marshal(d.Spec.Template)
	if err != nil {
		return nil, err
	}
	t := new(api.PodTemplateSpec)
	if err := json.Unmarshal(raw, t); err != nil {
		return nil, fmt.Errorf("revision %s: %w", rev.Name, err)
	}
	return t, nil
}

// safeAlphabet is apimachinery's rand.SafeEncodeString alphabet: no
// vowels, no 0/1/3, so a hash never spells a word.
const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// hashRevision is kcm's history.HashControllerRevision: FNV-32a of the
// data and, when non-zero, the collision count (little endian), its
// decimal digits spelled in the safe alphabet.
func hashRevision(data []byte, collisionCount int32) string {
	h := fnv.New32a()
	h.Write(data)
	if collisionCount != 0 {
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], uint32(collisionCount))
		h.Write(b[:])
	}
	dec := strconv.FormatInt(int64(h.Sum32()), 10)
	out := make([]byte, len(dec))
	for i := range len(dec) {
		out[i] = safeAlphabet[int(dec[i])%len(safeAlphabet)]
	}
	return string(out)
}

// newRevision is the ControllerRevision of set's current template, named
// "<set>-<hash>", labelled with the template's labels and the hash,
// controlled by set.
func newRevision(set *api.StatefulSet, revision int64, collisionCount int32) (*api.ControllerRevision, error) {
	data, err := revisionData(&set.Spec.Template)
	if err != nil {
		return nil, fmt.Errorf("statefulset: revision data: %w", err)
	}
	hash := hashRevision(data, collisionCount)
	prefix := set.Name
	if len(prefix) > 223 { // ControllerRevisionName: room for the hash in 253 characters
		prefix = prefix[:223]
	}
	labels := maps.Clone(set.Spec.Template.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[api.LabelControllerRevisionHash] = hash
	return &api.ControllerRevision{
		TypeMeta: api.TypeMeta{APIVersion: "apps/v1", Kind: "ControllerRevision"},
		ObjectMeta: api.ObjectMeta{
			Name:            prefix + "-" + hash,
			Namespace:       set.Namespace,
			Labels:          labels,
			OwnerReferences: []api.OwnerReference{api.NewControllerRef(set)},
		},
		Data:     data,
		Revision: revision,
	}, nil
}

// equalRevision is history.EqualRevision: same hash label (when both
// have one) and the same data.
func equalRevision(a, b *api.ControllerRevision) bool {
	ha, oka := a.Labels[api.LabelControllerRevisionHash]
	hb, okb := b.Labels[api.LabelControllerRevisionHash]
	if oka && okb && ha != hb {
		return false
	}
	return bytes.Equal(compact(a.Data), compact(b.Data))
}

func compact(raw []byte) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

// sortRevisions orders revisions by Revision, then name
// (history.SortControllerRevisions).
func sortRevisions(revs []*api.ControllerRevision) []*api.ControllerRevision {
	out := slices.Clone(revs)
	slices.SortStableFunc(out, func(a, b *api.ControllerRevision) int {
		if a.Revision != b.Revision {
			if a.Revision < b.Revision {
				return -1
			}
			return 1
		}
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	return out
}

// revisionPlan is what getStatefulSetRevisions decides.
type revisionPlan struct {
	current, update *api.ControllerRevision
	collisionCount  int32
	create          bool // update is new: create it
	renumber        bool // update is an older revision rolled back to: write its new Revision
}

// errCollision: the update revision's name is taken by different data
// even after bumping the collision count many times.
var errCollision = errors.New("statefulset: controller revision name collisions")

// chooseRevisions is kcm's getStatefulSetRevisions, pure: the update
// revision is the newest revision if it records the set's template, an
// older equal one renumbered to the next revision (a rollback), or a new
// one; a new one whose name is taken by a different revision bumps the
// collision count. The current revision is status.currentRevision, or
// the update revision when there is none.
func chooseRevisions(set *api.StatefulSet, revs []*api.ControllerRevision) (revisionPlan, error) {
	revs = sortRevisions(revs)
	var cc int32
	if set.Status.CollisionCount != nil {
		cc = *set.Status.CollisionCount
	}
	next := int64(1)
	if n := len(revs); n > 0 {
		next = revs[n-1].Revision + 1
	}
	var p revisionPlan
	for range 100 {
		upd, err := newRevision(set, next, cc)
		if err != nil {
			return revisionPlan{}, err
		}
		var equal []*api.ControllerRevision
		for _, r := range revs {
			if equalRevision(r, upd) {
				equal = append(equal, r)
			}
		}
		switch {
		case len(equal) > 0 && equal[len(equal)-1] == revs[len(revs)-1]:
			p.update = revs[len(revs)-1]
		case len(equal) > 0:
			r := equal[len(equal)-1].DeepCopy()
			r.Revision = next
			p.update, p.renumber = r, true
		default:
			if i := slices.IndexFunc(revs, func(r *api.ControllerRevision) bool { return r.Name == upd.Name }); i >= 0 {
				cc++ // same name, other data: a hash collision
				continue
			}
			p.update, p.create = upd, true
		}
		p.collisionCount = cc
		for _, r := range revs {
			if r.Name == set.Status.CurrentRevision {
				p.current = r
				break
			}
		}
		if p.current == nil || p.current.Name == p.update.Name {
			p.current = p.update
		}
		return p, nil
	}
	return revisionPlan{}, errCollision
}

// historyToDelete is truncateHistory: the revisions that are neither the
// current nor the update revision nor any pod's, oldest first, beyond
// revisionHistoryLimit (default 10; negative keeps all).
func historyToDelete(set *api.StatefulSet, revs []*api.ControllerRevision, pods []*api.Pod, current, update string) []*api.ControllerRevision {
	limit := 10
	if set.Spec.RevisionHistoryLimit != nil {
		limit = int(*set.Spec.RevisionHistoryLimit)
	}
	live := map[string]bool{current: true, update: true}
	for _, p := range pods {
		live[revisionOf(p)] = true
	}
	var hist []*api.ControllerRevision
	for _, r := range sortRevisions(revs) {
		if !live[r.Name] {
			hist = append(hist, r)
		}
	}
	if limit < 0 || len(hist) <= limit {
		return nil
	}
	return hist[:len(hist)-limit]
}

package scheduler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/informer"
)

// Delayed binding (WaitForFirstConsumer) in VolumeBinding, as
// kube-scheduler's volumebinding/binder.go: FindPodVolumes in the Filter,
// AssumePodVolumes in Reserve, BindPodVolumes in PreBind.

// The names kube's storage helpers (k8s.io/component-helpers/storage/volume)
// give the annotations, binding mode and provisioner VolumeBinding reads.
const (
	// AnnSelectedNode on a claim of delayed binding: the node the
	// scheduler chose for its first consumer, where the provisioner is
	// to make its volume.
	AnnSelectedNode = "volume.kubernetes.io/selected-node"
	// AnnBetaStorageClass is the beta annotation naming a claim's or a
	// volume's class; it takes precedence over spec.storageClassName.
	AnnBetaStorageClass = "volume.beta.kubernetes.io/storage-class"
	// AnnBoundByController on a volume the scheduler or the
	// PersistentVolume controller bound.
	AnnBoundByController = "pv.kubernetes.io/bound-by-controller"
	// NoProvisioner is the provisioner of classes that provision
	// nothing (static local volumes).
	NoProvisioner = "kubernetes.io/no-provisioner"
	// VolumeBindingWaitForFirstConsumer is the StorageClass binding mode
	// whose claims VolumeBinding binds for the node it chooses.
	VolumeBindingWaitForFirstConsumer api.VolumeBindingMode = "WaitForFirstConsumer"
)

// ReasonBindConflict rejects a node where an unbound claim of delayed
// binding has neither an available matching volume nor a provisioner
// that can make one (binder.go, ErrReasonBindConflict).
const ReasonBindConflict = "node(s) didn't find available persistent volumes to bind"

// DefaultBindTimeout is kube-scheduler's VolumeBindingArgs
// bindTimeoutSeconds default: how long PreBind waits for the claims it
// bound or had provisioned to be fully bound.
const DefaultBindTimeout = 600 * time.Second

// StorageClassLookup returns the StorageClass called name, as a lister
// does; it must not block.
type StorageClassLookup func(name string) (*api.StorageClass, bool)

// VolumeLister lists every PersistentVolume, as a lister does; it must
// not block.
type VolumeLister func() []*api.PersistentVolume

// StorageClassesFrom returns a StorageClassLookup over an informer's
// lister of StorageClasses, for Options.StorageClasses.
func StorageClassesFrom(l informer.Lister[*api.StorageClass]) StorageClassLookup { return l.Get }

// VolumeListFrom returns a VolumeLister over an informer's lister of
// PersistentVolumes, for Options.VolumeList.
func VolumeListFrom(l informer.Lister[*api.PersistentVolume]) VolumeLister {
	return func() []*api.PersistentVolume { return l.List(nil) }
}

// VolumeWriter makes VolumeBinding's PreBind writes.
type VolumeWriter interface {
	// BindVolume pre-binds pv to claim as kube's GetBindVolumeToClaim:
	// spec.claimRef names the claim (with its uid and resourceVersion)
	// and, when the volume was not bound to the claim already (a user's
	// pre-binding), AnnBoundByController is set; the update is
	// conditioned on pv's
	// resourceVersion. It returns the volume as stored.
	BindVolume(ctx context.Context, pv *api.PersistentVolume, claim *api.PersistentVolumeClaim) (*api.PersistentVolume, error)
	// SelectNode sets claim's AnnSelectedNode annotation to node, the
	// update conditioned on claim's resourceVersion, and returns the
	// claim as stored.
	SelectNode(ctx context.Context, claim *api.PersistentVolumeClaim, node string) (*api.PersistentVolumeClaim, error)
}

// delayEnv is what VolumeBinding's PreFilter needs for claims of delayed
// binding; nil treats every claim as of Immediate binding.
type delayEnv struct {
	classes StorageClassLookup
	list    VolumeLister
	// assumed are the volumes pre-bound in an in-flight PreBind (volume
	// name → claim key), which no other claim may take.
	assumed map[string]string
}

// delayedClaim is an unbound claim of delayed binding and what the
// Filter matches it against.
type delayedClaim struct {
	claim *api.PersistentVolumeClaim
	// selected is the claim's AnnSelectedNode ("" without; hasSelected
	// tells an empty value apart): only that node fits, provisioning.
	selected    string
	hasSelected bool
	// prebound is a volume whose claimRef names the claim: when the
	// node admits it, it is the match; otherwise there is none.
	prebound *api.PersistentVolume
	// candidates are the Available volumes of the claim's class that
	// satisfy it (selector, access modes, volume mode, capacity),
	// smallest first (then by name).
	candidates []*api.PersistentVolume
	// provisioner is the class's provisioner ("" or NoProvisioner:
	// nothing is provisioned), topology its allowedTopologies.
	provisioner string
	topology    []api.TopologySelectorTerm
}

// volumeBinding is one claim pre-bound to one volume by PreBind.
type volumeBinding struct {
	pv    *api.PersistentVolume
	claim *api.PersistentVolumeClaim
}

// volumePlan is what PreBind writes for the chosen node: volumes to
// pre-bind and claims to annotate for provisioning there.
type volumePlan struct {
	bindings   []volumeBinding
	provisions []*api.PersistentVolumeClaim
}

// claimClass is GetPersistentVolumeClaimClass: the beta annotation, then
// spec.storageClassName.
func claimClass(c *api.PersistentVolumeClaim) string {
	if v, ok := c.Annotations[AnnBetaStorageClass]; ok {
		return v
	}
	if c.Spec.StorageClassName != nil {
		return *c.Spec.StorageClassName
	}
	return ""
}

// volumeClass is GetPersistentVolumeClass.
func volumeClass(v *api.PersistentVolume) string {
	if c, ok := v.Annotations[AnnBetaStorageClass]; ok {
		return c
	}
	return v.Spec.StorageClassName
}

// delayedClass returns the class of claim when it is of delayed binding
// (IsDelayBindingMode: a class that exists with mode
// WaitForFirstConsumer), else nil.
func (e *delayEnv) delayedClass(c *api.PersistentVolumeClaim) *api.StorageClass {
	name := claimClass(c)
	if name == "" {
		return nil
	}
	sc, ok := e.classes(name)
	if !ok || sc == nil || sc.VolumeBindingMode == nil || *sc.VolumeBindingMode != VolumeBindingWaitForFirstConsumer {
		return nil
	}
	return sc
}

// volumeBoundToClaim is IsVolumeBoundToClaim.
func volumeBoundToClaim(v *api.PersistentVolume, c *api.PersistentVolumeClaim) bool {
	r := v.Spec.ClaimRef
	return r != nil && r.Name == c.Name && r.Namespace == c.Namespace && (r.UID == "" || r.UID == c.UID)
}

// newDelayedClaims builds the Filter's view of the delayed claims, sorted
// by requested size as findMatchingVolumes sorts them. volumes are all
// the volumes (listed once for the pod).
func (e *delayEnv) newDelayedClaims(claims []*api.PersistentVolumeClaim, classes []*api.StorageClass) []*delayedClaim {
	all := e.list()
	out := make([]*delayedClaim, 0, len(claims))
	for i, c := range claims {
		dc := &delayedClaim{claim: c, provisioner: classes[i].Provisioner, topology: classes[i].AllowedTopologies}
		dc.selected, dc.hasSelected = c.Annotations[AnnSelectedNode]
		dc.prebound, dc.candidates = e.matchingVolumes(c, all)
		out = append(out, dc)
	}
	slices.SortStableFunc(out, func(a, b *delayedClaim) int {
		qa, qb := a.claim.Spec.Resources.Requests[api.ResourceStorage], b.claim.Spec.Resources.Requests[api.ResourceStorage]
		return qa.Cmp(qb)
	})
	return out
}

// matchingVolumes is FindMatchingVolume's node-independent part for c:
// the first volume pre-bound to it, and the volumes it could take.
func (e *delayEnv) matchingVolumes(c *api.PersistentVolumeClaim, all []*api.PersistentVolume) (prebound *api.PersistentVolume, candidates []*api.PersistentVolume) {
	want := c.Spec.Resources.Requests[api.ResourceStorage]
	class := claimClass(c)
	var sel interface{ Matches(map[string]string) bool }
	if c.Spec.Selector != nil {
		s, err := c.Spec.Selector.AsSelector()
		if err != nil {
			return nil, nil // kube: an error; the claim matches no volume
		}
		sel = s
	}
	mode := func(m *api.PersistentVolumeMode) api.PersistentVolumeMode {
		if m == nil {
			return "Filesystem"
		}
		return *m
	}
	key := api.Key(c)
	for _, v := range all {
		if owner, ok := e.assumed[v.Name]; ok && owner != key {
			continue // pre-bound to another claim by an in-flight PreBind
		}
		if v.Spec.ClaimRef != nil && !volumeBoundToClaim(v, c) {
			continue
		}
		have := v.Spec.Capacity[api.ResourceStorage]
		if have.Cmp(want) < 0 || mode(v.Spec.VolumeMode) != mode(c.Spec.VolumeMode) || v.DeletionTimestamp != nil {
			continue
		}
		if volumeBoundToClaim(v, c) {
			if prebound == nil {
				prebound = v
			}
			continue
		}
		if v.Status.Phase != "Available" || sel != nil && !sel.Matches(v.Labels) || volumeClass(v) != class {
			continue
		}
		if !slices.ContainsFunc(c.Spec.AccessModes, func(m api.PersistentVolumeAccessMode) bool { return !slices.Contains(v.Spec.AccessModes, m) }) {
			candidates = append(candidates, v)
		}
	}
	slices.SortStableFunc(candidates, func(a, b *api.PersistentVolume) int {
		qa, qb := a.Spec.Capacity[api.ResourceStorage], b.Spec.Capacity[api.ResourceStorage]
		return cmp.Or(qa.Cmp(qb), cmp.Compare(a.Name, b.Name))
	})
	return prebound, candidates
}

// volumeAdmits reports whether v's required node affinity admits a node
// with the labels of pc.labelsNode, set by findDelayed
// (CheckNodeAffinity: labels only).
func volumeAdmits(pc *podCtx, v *api.PersistentVolume) bool {
	if v.Spec.NodeAffinity == nil || v.Spec.NodeAffinity.Required == nil {
		return true
	}
	return v.Spec.NodeAffinity.Required.Matches(pc.labelsNode)
}

// matchTopology is MatchTopologySelectorTerms: no terms match every
// node; otherwise some term's every requirement has the node's label
// among its values.
func matchTopology(terms []api.TopologySelectorTerm, labels map[string]string) bool {
	if len(terms) == 0 {
		return true
	}
	for _, t := range terms {
		ok := true
		for _, r := range t.MatchLabelExpressions {
			if v, has := labels[r.Key]; !has || !slices.Contains(r.Values, v) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// canProvision is checkVolumeProvisions for one claim: its class has a
// provisioner and the class's allowedTopologies admit the node. (Storage
// capacity — CSIStorageCapacity — is not modelled, so a node never lacks
// free storage.)
func (dc *delayedClaim) canProvision(labels map[string]string) bool {
	return dc.provisioner != "" && dc.provisioner != NoProvisioner && matchTopology(dc.topology, labels)
}

// findDelayed is FindPodVolumes' part for the delayed claims on node n:
// whether every claim gets a volume there — one whose node affinity
// admits n (smallest first, each volume to one claim), or one its
// class's provisioner can make there; a claim with AnnSelectedNode fits
// its selected node only, and is provisioned. With plan set, it records
// the bindings and provisions.
func findDelayed(pc *podCtx, n *NodeInfo, plan *volumePlan) bool {
	delayed := pc.volumes.delayed
	for _, dc := range delayed {
		if dc.hasSelected && dc.selected != n.Name {
			return false
		}
	}
	pc.withLabels(n.labels)
	chosen := pc.chosenPVs[:0]
	defer func() { pc.chosenPVs = chosen[:0] }()
	for _, dc := range delayed {
		if dc.hasSelected {
			continue
		}
		var pv *api.PersistentVolume
		if dc.prebound != nil && !slices.Contains(chosen, dc.prebound) {
			if volumeAdmits(pc, dc.prebound) {
				pv = dc.prebound
			}
		} else {
			for _, v := range dc.candidates {
				if !slices.Contains(chosen, v) && volumeAdmits(pc, v) {
					pv = v
					break
				}
			}
		}
		if pv != nil {
			chosen = append(chosen, pv)
			if plan != nil {
				plan.bindings = append(plan.bindings, volumeBinding{pv: pv, claim: dc.claim})
			}
			continue
		}
		if !dc.canProvision(n.labels) {
			return false
		}
		if plan != nil {
			plan.provisions = append(plan.provisions, dc.claim)
		}
	}
	for _, dc := range delayed {
		if !dc.hasSelected {
			continue
		}
		if !dc.canProvision(n.labels) {
			return false
		}
		if plan != nil {
			plan.provisions = append(plan.provisions, dc.claim)
		}
	}
	return true
}

// bindVolumes is VolumeBinding's PreBind (BindPodVolumes): it writes the
// plan — each volume's claimRef, then each claim's AnnSelectedNode — and
// then checks every second, for up to Options.BindTimeout, that the
// claims are fully bound (checkBindings); it fails at once when a
// binding was undone (a claimRef reset, the selected node removed by a
// provisioner that failed, a volume on a node it does not admit) or the
// pod is gone.
func (s *Scheduler) bindVolumes(ctx context.Context, key, node string, plan *volumePlan) error {
	w := s.opts.VolumeWriter
	written := make([]*api.PersistentVolume, len(plan.bindings))
	for i, b := range plan.bindings {
		pv, err := w.BindVolume(ctx, b.pv, b.claim)
		if err != nil {
			return err
		}
		written[i] = pv
	}
	claims := make([]*api.PersistentVolumeClaim, len(plan.provisions))
	for i, c := range plan.provisions {
		cur, err := w.SelectNode(ctx, c, node)
		if err != nil {
			return err
		}
		claims[i] = cur
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.BindTimeout)
	defer cancel()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("binding volumes: %w", ctx.Err())
		case <-tick.C:
		}
		done, err := s.checkBindings(key, node, plan, written, claims)
		if err != nil {
			return fmt.Errorf("binding volumes: %w", err)
		}
		if done {
			return nil
		}
	}
}

// checkBindings is kube's checkBindings over the scheduler's lookups.
func (s *Scheduler) checkBindings(key, node string, plan *volumePlan, written []*api.PersistentVolume, claims []*api.PersistentVolumeClaim) (bool, error) {
	s.mu.Lock()
	_, pending := s.pending[key]
	var labels map[string]string
	n, haveNode := s.cache.Node(node)
	if haveNode {
		labels = maps.Clone(n.labels)
	}
	s.mu.Unlock()
	if !haveNode {
		return false, fmt.Errorf("failed to get node %q: node %q not found", node, node)
	}
	if !pending {
		_, name, _ := api.SplitKey(key)
		return false, fmt.Errorf("pod does not exist any more: pods %q not found", name)
	}
	labelsOnly := &api.Node{ObjectMeta: api.ObjectMeta{Labels: labels}}
	affinityOK := func(pv *api.PersistentVolume) error {
		if a := pv.Spec.NodeAffinity; a != nil && a.Required != nil && !a.Required.Matches(labelsOnly) {
			return fmt.Errorf("pv %q node affinity doesn't match node %q: no matching NodeSelectorTerms", pv.Name, node)
		}
		return nil
	}
	for i, b := range plan.bindings {
		pv, ok := s.opts.Volumes(written[i].Name)
		if !ok || pv == nil {
			return false, fmt.Errorf("failed to check binding: persistentvolume %q not found", written[i].Name)
		}
		pvc, ok := s.opts.Claims(b.claim.Namespace, b.claim.Name)
		if !ok || pvc == nil {
			return false, fmt.Errorf("failed to check binding: persistentvolumeclaim %q not found", api.Key(b.claim))
		}
		if olderThan(pv.ResourceVersion, written[i].ResourceVersion) {
			return false, nil
		}
		if err := affinityOK(pv); err != nil {
			return false, err
		}
		if pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.UID == "" {
			return false, fmt.Errorf("ClaimRef got reset for pv %q", pv.Name)
		}
		if !ClaimBound(pvc) {
			return false, nil
		}
	}
	for _, c := range claims {
		pvc, ok := s.opts.Claims(c.Namespace, c.Name)
		if !ok || pvc == nil {
			return false, fmt.Errorf("failed to check provisioning pvc: persistentvolumeclaim %q not found", api.Key(c))
		}
		if olderThan(pvc.ResourceVersion, c.ResourceVersion) {
			return false, nil
		}
		if pvc.Annotations == nil {
			return false, fmt.Errorf("selectedNode annotation reset for PVC %q", pvc.Name)
		}
		if pvc.Annotations[AnnSelectedNode] != node {
			return false, fmt.Errorf("provisioning failed for PVC %q", pvc.Name)
		}
		if pvc.Spec.VolumeName != "" {
			pv, ok := s.opts.Volumes(pvc.Spec.VolumeName)
			if !ok || pv == nil {
				return false, nil // not observed yet
			}
			if err := affinityOK(pv); err != nil {
				return false, err
			}
		}
		if !ClaimBound(pvc) {
			return false, nil
		}
	}
	return true, nil
}

// olderThan reports whether resourceVersion cached precedes written, when
// both are decimal (as the cluster's and kube's are); otherwise false.
func olderThan(cached, written string) bool {
	c, err1 := strconv.ParseUint(cached, 10, 64)
	w, err2 := strconv.ParseUint(written, 10, 64)
	return err1 == nil && err2 == nil && c < w
}

// errNoVolumeWriter is New's error for StorageClasses without the rest.
var errNoVolumeWriter = errors.New("scheduler: Options.StorageClasses needs Claims, Volumes, VolumeList and VolumeWriter")

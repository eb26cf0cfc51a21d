package persistentvolume

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Annotations the PersistentVolume controller reads and writes (their
// names in k8s.io/component-helpers/storage/volume).
const (
	// AnnBindCompleted on a claim: its binding finished.
	AnnBindCompleted = "pv.kubernetes.io/bind-completed"
	// AnnBoundByController on a claim or volume: the controller, not a
	// user, bound it.
	AnnBoundByController = "pv.kubernetes.io/bound-by-controller"
	// AnnProvisionedBy on a volume: the provisioner that made it, the
	// one to delete it.
	AnnProvisionedBy = "pv.kubernetes.io/provisioned-by"
	// AnnStorageProvisioner on a claim: the provisioner asked to make
	// its volume.
	AnnStorageProvisioner = "volume.kubernetes.io/storage-provisioner"
	// AnnDefaultStorageClass on a StorageClass marks the default class.
	AnnDefaultStorageClass = "storageclass.kubernetes.io/is-default-class"
	// AnnSelectedNode on a claim of a WaitForFirstConsumer class: the
	// node the scheduler chose for the claim's first pod; the claim is
	// bound or provisioned for that node only once it is set.
	AnnSelectedNode = "volume.kubernetes.io/selected-node"
	// LabelHostname is the node label a provisioned volume's node
	// affinity names (local-path's kubernetes.io/hostname).
	LabelHostname = "kubernetes.io/hostname"
	// NoProvisioner is the provisioner of classes of static volumes
	// only (local volumes): nothing is provisioned for them.
	NoProvisioner = "kubernetes.io/no-provisioner"
)

// BindingWaitForFirstConsumer is the StorageClass volumeBindingMode
// that delays binding and provisioning until a pod using the claim is
// scheduled (AnnSelectedNode).
const BindingWaitForFirstConsumer api.VolumeBindingMode = "WaitForFirstConsumer"

// The phases.
const (
	volumePending   api.PersistentVolumePhase      = "Pending"
	volumeAvailable api.PersistentVolumePhase      = "Available"
	volumeBound     api.PersistentVolumePhase      = "Bound"
	volumeReleased  api.PersistentVolumePhase      = "Released"
	volumeFailed    api.PersistentVolumePhase      = "Failed"
	claimPending    api.PersistentVolumeClaimPhase = "Pending"
	claimBound      api.PersistentVolumeClaimPhase = "Bound"
	claimLost       api.PersistentVolumeClaimPhase = "Lost"
)

// claimPlan is what syncing one claim decides. The shell writes, in
// order: claim (its spec and annotations), volume (spec), volumeStatus,
// claimStatus, provision.
type claimPlan struct {
	// claim, if set, is the claim with a new spec or annotations.
	claim *api.PersistentVolumeClaim
	// volume, if set, is a volume with a new claimRef or annotations.
	volume *api.PersistentVolume
	// volumePhase, if set, is the volume's new phase.
	volumePhase api.PersistentVolumePhase
	// claimStatus, if set, is the claim's new status.
	claimStatus *api.PersistentVolumeClaimStatus
	// provision, if set, is a volume to create for the claim.
	provision *api.PersistentVolume
	// event, if set, is an event to record on the claim, of type
	// eventType ("" is Warning).
	event, eventMessage, eventType string
}

// claimWorld is what the cache holds that a claim's sync reads.
type claimWorld struct {
	volumes []*api.PersistentVolume
	classes []*api.StorageClass
	// node returns the Node called name; nil means no node is known.
	node func(name string) (*api.Node, bool)
	// pods are the active pods of the claim's namespace that use it
	// (podUsesClaim): findPodsByPVCKey's index.
	pods []*api.Pod
}

// defaultClass is the default StorageClass: the newest of those
// annotated as default (kcm's GetDefaultClass since 1.26), nil if none.
func defaultClass(classes []*api.StorageClass) *api.StorageClass {
	var best *api.StorageClass
	for _, c := range classes {
		if c.Annotations[AnnDefaultStorageClass] != "true" {
			continue
		}
		if best == nil || c.CreationTimestamp.After(best.CreationTimestamp.Time) ||
			(c.CreationTimestamp.Equal(best.CreationTimestamp.Time) && c.Name < best.Name) {
			best = c
		}
	}
	return best
}

// AnnBetaStorageClass is the class annotation that predates
// spec.storageClassName; where set, it wins, as kube's
// GetPersistentVolumeClaimClass and GetPersistentVolumeClass read it.
const AnnBetaStorageClass = "volume.beta.kubernetes.io/storage-class"

// classOf is a claim's class: the beta annotation, else
// spec.storageClassName, else "".
func classOf(c *api.PersistentVolumeClaim) string {
	if class, ok := c.Annotations[AnnBetaStorageClass]; ok {
		return class
	}
	if c.Spec.StorageClassName == nil {
		return ""
	}
	return *c.Spec.StorageClassName
}

// volumeClassOf is a volume's class: the beta annotation, else
// spec.storageClassName.
func volumeClassOf(v *api.PersistentVolume) string {
	if class, ok := v.Annotations[AnnBetaStorageClass]; ok {
		return class
	}
	return v.Spec.StorageClassName
}

// boundTo reports whether v's claimRef names claim (by namespace and
// name, and by UID once it has one).
func boundTo(v *api.PersistentVolume, c *api.PersistentVolumeClaim) bool {
	r := v.Spec.ClaimRef
	return r != nil && r.Namespace == c.Namespace && r.Name == c.Name && (r.UID == "" || r.UID == c.UID)
}

// fits reports whether v satisfies c: class, access modes, volume mode,
// label selector and size (checkVolumeSatisfyClaim and FindMatchingVolume's
// filters).
func fits(v *api.PersistentVolume, c *api.PersistentVolumeClaim) bool {
	if v.DeletionTimestamp != nil || volumeClassOf(v) != classOf(c) {
		return false
	}
	for _, m := range c.Spec.AccessModes {
		if !slices.Contains(v.Spec.AccessModes, m) {
			return false
		}
	}
	mode := func(m *api.PersistentVolumeMode) api.PersistentVolumeMode {
		if m == nil {
			return "Filesystem"
		}
		return *m
	}
	if mode(v.Spec.VolumeMode) != mode(c.Spec.VolumeMode) {
		return false
	}
	if c.Spec.Selector != nil {
		sel, err := c.Spec.Selector.AsSelector()
		if err != nil || !sel.Matches(v.Labels) {
			return false
		}
	}
	want := c.Spec.Resources.Requests[api.ResourceStorage]
	have, ok := v.Spec.Capacity[api.ResourceStorage]
	return ok && have.Cmp(want) >= 0
}

// findVolume is FindMatchingVolume: a volume pre-bound to the claim if
// it fits, else the smallest available volume that fits. With delay (a
// WaitForFirstConsumer class) only a volume pre-bound to the claim is
// taken: matching an unbound volume to a node is the scheduler's
// (VolumeBinding pre-binds it), the controller only finishes the
// binding or provisions for the selected node.
func findVolume(c *api.PersistentVolumeClaim, volumes []*api.PersistentVolume, delay bool) *api.PersistentVolume {
	var best *api.PersistentVolume
	for _, v := range volumes {
		if !fits(v, c) {
			continue
		}
		if v.Spec.ClaimRef != nil {
			if boundTo(v, c) {
				return v
			}
			continue
		}
		if delay {
			continue
		}
		if best == nil {
			best = v
			continue
		}
		vs, bs := v.Spec.Capacity[api.ResourceStorage], best.Spec.Capacity[api.ResourceStorage]
		if cmp := vs.Cmp(bs); cmp < 0 || (cmp == 0 && v.Name < best.Name) {
			best = v
		}
	}
	return best
}

// decideClaim is syncClaim (pv_controller.go) for claim c.
func decideClaim(c *api.PersistentVolumeClaim, w claimWorld) claimPlan {
	if c.DeletionTimestamp != nil {
		return claimPlan{}
	}
	if c.Spec.VolumeName == "" {
		return decideUnbound(c, w)
	}
	var v *api.PersistentVolume
	for _, x := range w.volumes {
		if x.Name == c.Spec.VolumeName {
			v = x
		}
	}
	switch {
	case v == nil: // the volume is gone: the data may be lost
		if c.Status.Phase == claimLost {
			return claimPlan{}
		}
		st := c.Status.DeepCopy()
		st.Phase = claimLost
		return claimPlan{claimStatus: st, event: "ClaimLost", eventMessage: "Bound claim has lost its PersistentVolume. Data on the volume is lost!"}
	case v.Spec.ClaimRef == nil || boundTo(v, c):
		return bind(c, v)
	default: // the volume is bound to another claim
		if c.Status.Phase == claimLost {
			return claimPlan{}
		}
		st := c.Status.DeepCopy()
		st.Phase = claimLost
		return claimPlan{claimStatus: st, event: "ClaimMisbound", eventMessage: "Two claims are bound to the same volume, this one is bound incorrectly"}
	}
}

func decideUnbound(c *api.PersistentVolumeClaim, w claimWorld) claimPlan {
	if _, beta := c.Annotations[AnnBetaStorageClass]; c.Spec.StorageClassName == nil && !beta {
		// Retroactive default StorageClass assignment: a claim without
		// a class (in its spec or the beta annotation) gets the default
		// one once there is one.
		if d := defaultClass(w.classes); d != nil {
			cp := c.DeepCopy()
			cp.Spec.StorageClassName = &d.Name
			return claimPlan{claim: cp}
		}
	}
	var class *api.StorageClass
	for _, sc := range w.classes {
		if sc.Name == classOf(c) {
			class = sc
		}
	}
	// IsDelayBindingMode: a class of mode WaitForFirstConsumer; the
	// scheduler's choice of a node (IsDelayBindingProvisioning) ends
	// the wait.
	delay := classOf(c) != "" && class != nil && class.VolumeBindingMode != nil &&
		*class.VolumeBindingMode == BindingWaitForFirstConsumer
	if v := findVolume(c, w.volumes, delay); v != nil {
		return bind(c, v)
	}
	nodeName, selected := c.Annotations[AnnSelectedNode]
	var node *api.Node
	if selected && w.node != nil {
		if n, ok := w.node(nodeName); ok {
			node = n
		}
	}
	pending := func(p claimPlan) claimPlan {
		if c.Status.Phase != claimPending {
			p.claimStatus = &api.PersistentVolumeClaimStatus{Phase: claimPending}
		}
		return p
	}
	if delay && !selected {
		return pending(waitForConsumer(w.pods))
	}
	if class == nil || class.Provisioner == NoProvisioner {
		return pending(claimPlan{event: "FailedBinding", eventType: "Normal",
			eventMessage: "no persistent volumes available for this claim and no storage class is set"})
	}
	if selected && node == nil {
		// provisionClaimOperation: the selected node must exist; its
		// informer's add event retries.
		return claimPlan{event: "ProvisioningFailed",
			eventMessage: fmt.Sprintf("Failed to get target node: node %q not found", nodeName)}
	}
	p := claimPlan{provision: provisioned(c, class, node)}
	if c.Annotations[AnnStorageProvisioner] != class.Provisioner {
		cp := c.DeepCopy()
		if cp.Annotations == nil {
			cp.Annotations = map[string]string{}
		}
		cp.Annotations[AnnStorageProvisioner] = class.Provisioner
		p.claim = cp
	}
	for _, v := range w.volumes {
		if v.Name == p.provision.Name { // provisioned already, not yet bound
			p.provision = nil
		}
	}
	return p
}

// waitForConsumer is emitEventForUnboundDelayBindingClaim: the claim of
// a WaitForFirstConsumer class waits for a pod (WaitForFirstConsumer)
// or for its pods to be scheduled (WaitForPodScheduled).
func waitForConsumer(pods []*api.Pod) claimPlan {
	var names []string
	for _, p := range pods {
		if p.Spec.NodeName == "" {
			names = append(names, p.Name)
		}
	}
	slices.Sort(names)
	switch len(names) {
	case 0:
		return claimPlan{event: "WaitForFirstConsumer", eventType: "Normal",
			eventMessage: "waiting for first consumer to be created before binding"}
	case 1:
		return claimPlan{event: "WaitForPodScheduled", eventType: "Normal",
			eventMessage: fmt.Sprintf("waiting for pod %s to be scheduled", names[0])}
	default:
		return claimPlan{event: "WaitForPodScheduled", eventType: "Normal",
			eventMessage: fmt.Sprintf("waiting for pods %s to be scheduled", strings.Join(names, ","))}
	}
}

// podUsesClaim reports whether pod p is active (not Succeeded or
// Failed) and mounts the claim called name of its namespace, directly
// or as an ephemeral volume's claim <pod>-<volume> (kcm's PodPVCIndex).
func podUsesClaim(p *api.Pod, name string) bool {
	if p.Status.Phase == "Succeeded" || p.Status.Phase == "Failed" {
		return false
	}
	for _, v := range p.Spec.Volumes {
		switch {
		case v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == name:
			return true
		case v.Ephemeral != nil && p.Name+"-"+v.Name == name:
			return true
		}
	}
	return false
}

// provisioned is the volume the simulated provisioner makes for c
// (provisionClaimOperation): named pvc-<claim uid>, of the requested size
// and access modes, the class's reclaim policy (default Delete) and mount
// options, pre-bound to c; for a claim with a selected node, with a
// node affinity on kubernetes.io/hostname = that node (as local-path
// provisions: the node's hostname label, else its name).
func provisioned(c *api.PersistentVolumeClaim, class *api.StorageClass, node *api.Node) *api.PersistentVolume {
	policy := api.PersistentVolumeReclaimPolicy("Delete")
	if class.ReclaimPolicy != nil {
		policy = *class.ReclaimPolicy
	}
	name := "pvc-" + string(c.UID)
	v := &api.PersistentVolume{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "PersistentVolume"},
		ObjectMeta: api.ObjectMeta{Name: name, Annotations: map[string]string{
			AnnProvisionedBy: class.Provisioner,
		}},
		Spec: api.PersistentVolumeSpec{
			Capacity:                      api.ResourceList{api.ResourceStorage: c.Spec.Resources.Requests[api.ResourceStorage]},
			PersistentVolumeSource:        api.PersistentVolumeSource{CSI: &api.CSIPersistentVolumeSource{Driver: class.Provisioner, VolumeHandle: name}},
			AccessModes:                   slices.Clone(c.Spec.AccessModes),
			ClaimRef:                      claimRef(c),
			PersistentVolumeReclaimPolicy: policy,
			StorageClassName:              class.Name,
			MountOptions:                  slices.Clone(class.MountOptions),
			VolumeMode:                    c.Spec.VolumeMode,
		},
	}
	if node != nil {
		host := node.Labels[LabelHostname]
		if host == "" {
			host = node.Name
		}
		v.Spec.NodeAffinity = &api.VolumeNodeAffinity{Required: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
			MatchExpressions: []api.NodeSelectorRequirement{{Key: LabelHostname, Operator: "In", Values: []string{host}}},
		}}}}
	}
	return v
}

func claimRef(c *api.PersistentVolumeClaim) *api.ObjectReference {
	return &api.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: c.Namespace, Name: c.Name,
		UID: c.UID, ResourceVersion: c.ResourceVersion}
}

// bind binds c and v both ways (bind: bindVolumeToClaim,
// updateVolumePhase, bindClaimToVolume, updateClaimStatus), writing only
// what is not yet so.
func bind(c *api.PersistentVolumeClaim, v *api.PersistentVolume) claimPlan {
	var p claimPlan
	if r := v.Spec.ClaimRef; r == nil || r.UID != c.UID || r.Namespace != c.Namespace || r.Name != c.Name {
		cp := v.DeepCopy()
		cp.Spec.ClaimRef = claimRef(c)
		if r == nil {
			if cp.Annotations == nil {
				cp.Annotations = map[string]string{}
			}
			cp.Annotations[AnnBoundByController] = "yes"
		}
		p.volume = cp
	}
	if v.Status.Phase != volumeBound {
		p.volumePhase = volumeBound
	}
	if c.Spec.VolumeName != v.Name || c.Annotations[AnnBindCompleted] != "yes" {
		cp := c.DeepCopy()
		if cp.Annotations == nil {
			cp.Annotations = map[string]string{}
		} else {
			cp.Annotations = maps.Clone(cp.Annotations)
		}
		if cp.Spec.VolumeName != v.Name {
			cp.Spec.VolumeName = v.Name
			cp.Annotations[AnnBoundByController] = "yes"
		}
		cp.Annotations[AnnBindCompleted] = "yes"
		p.claim = cp
	}
	st := api.PersistentVolumeClaimStatus{Phase: claimBound, AccessModes: slices.Clone(v.Spec.AccessModes),
		Capacity: api.ResourceList{api.ResourceStorage: v.Spec.Capacity[api.ResourceStorage]}}
	if c.Status.Phase != st.Phase || !slices.Equal(c.Status.AccessModes, st.AccessModes) ||
		!c.Status.Capacity[api.ResourceStorage].Equal(st.Capacity[api.ResourceStorage]) {
		p.claimStatus = &st
	}
	return p
}

// volumePlan is what syncing one volume decides.
type volumePlan struct {
	// phase, if set, is the volume's new phase.
	phase api.PersistentVolumePhase
	// released: the claim is gone; confirm it with a live read before
	// acting.
	released bool
	// delete the volume (reclaim policy Delete of a released volume).
	delete bool
	// event, if set, is a warning to record on the volume.
	event, eventMessage string
}

// decideVolume is syncVolume for v, with c the claim its claimRef names
// as the cache has it (nil if none there).
func decideVolume(v *api.PersistentVolume, c *api.PersistentVolumeClaim) volumePlan {
	if v.DeletionTimestamp != nil {
		return volumePlan{}
	}
	phase := func(ph api.PersistentVolumePhase) volumePlan {
		if v.Status.Phase == ph {
			return volumePlan{}
		}
		return volumePlan{phase: ph}
	}
	r := v.Spec.ClaimRef
	switch {
	case r == nil:
		return phase(volumeAvailable)
	case r.UID == "": // pre-bound by a user; the claim's sync binds it
		return phase(volumeAvailable)
	case c == nil || c.UID != r.UID: // the claim was deleted
		p := volumePlan{released: true}
		switch v.Spec.PersistentVolumeReclaimPolicy {
		case "Delete":
			p.delete = true
		case "Retain", "":
			p.phase = volumeReleased
		default: // Recycle is deprecated and not simulated
			p.phase = volumeFailed
			p.event, p.eventMessage = "VolumeFailedRecycle", "recycling is not supported"
		}
		if !p.delete && v.Status.Phase == p.phase {
			return volumePlan{}
		}
		return p
	case c.Spec.VolumeName == v.Name:
		return phase(volumeBound)
	default: // bound to the claim, which is not yet bound to it: the claim's sync finishes
		return volumePlan{}
	}
}

// Package persistentvolume is a small PersistentVolume controller: it binds
// PersistentVolumeClaims to PersistentVolumes, provisions volumes for
// claims of a StorageClass the way an external provisioner would
// (simulated: the volume is an object, nothing is allocated), and
// reclaims volumes whose claim is gone — kube-controller-manager's
// persistentvolume-binder-controller (pkg/controller/volume/persistentvolume,
// pv_controller.go) reduced to what StatefulSets need.
//
// The controller depends on the client contract (package
// controllers/client: New takes a client.Client) and informers only; the
// in-process cluster is one implementation. Its read-your-writes gates
// order resourceVersions with the informers' comparers (the source's).
//
// # Usage
//
//	ctl, err := persistentvolume.New(c, f, persistentvolume.Options{})
//	f.Start(ctx)
//	go ctl.Run(ctx)
//
// # Algorithm
//
// Claims and volumes are synced separately (requests "claim:ns/name" and
// "volume:name" on one queue), each by a pure function of the object and
// what the cache holds (decideClaim, decideVolume) whose result the shell
// writes through the client.
//
// A claim's class, and a volume's, is the beta annotation
// volume.beta.kubernetes.io/storage-class where set (it wins, as kube's
// GetPersistentVolumeClaimClass), else spec.storageClassName.
//
// A claim without spec.volumeName:
//
//  1. with no class (spec.storageClassName nil, not "", and no beta
//     annotation), gets the default
//     StorageClass — the newest annotated
//     storageclass.kubernetes.io/is-default-class "true" — written into
//     its spec (kcm's retroactive default class assignment, which also
//     stands in for the DefaultStorageClass admission plugin the store
//     does not run);
//  2. is bound to a volume pre-bound to it (claimRef naming it) if that
//     fits, else to the smallest Available volume that fits: same class,
//     every requested access mode, same volume mode, the claim's label
//     selector, capacity at least the request (FindMatchingVolume);
//     binding writes the volume's claimRef (annotated
//     pv.kubernetes.io/bound-by-controller), its phase Bound, the claim's
//     spec.volumeName and pv.kubernetes.io/bind-completed, and the
//     claim's status Bound with the volume's capacity and access modes;
//  3. with no volume and a class whose provisioner is not
//     kubernetes.io/no-provisioner, gets a provisioned volume: named
//     pvc-<claim uid>, of the requested size and access modes, the
//     class's reclaim policy (default Delete) and mount options, a CSI
//     source of driver = the provisioner, annotated
//     pv.kubernetes.io/provisioned-by, pre-bound to the claim — bound on
//     the next sync; the claim is annotated
//     volume.kubernetes.io/storage-provisioner (event
//     ProvisioningSucceeded);
//  4. otherwise stays Pending (event FailedBinding).
//
// A claim of a class whose volumeBindingMode is WaitForFirstConsumer
// (IsDelayBindingMode) is bound in step 2 only to a volume pre-bound to
// it — matching an unbound volume to a node is the scheduler's
// VolumeBinding plugin's, which pre-binds it (claimRef) — and is
// neither matched nor provisioned until the scheduler writes the node
// it chose into the annotation volume.kubernetes.io/selected-node
// (AnnSelectedNode). Until then it stays Pending with the Normal event
// WaitForFirstConsumer ("waiting for first consumer to be created
// before binding"), or WaitForPodScheduled ("waiting for pod web-0 to
// be scheduled") while active pods using it (a claim volume or an
// ephemeral volume's claim) have no node. Once selected, it is
// provisioned for that node: the volume gets a required node affinity
// on kubernetes.io/hostname = the node's hostname label (its name if
// it has none), as local-path provisions; a selected node not in the
// cache is a ProvisioningFailed event, retried when the node appears.
//
// A claim with spec.volumeName finishes a half-done binding, or turns
// Lost when its volume is gone (ClaimLost) or bound to another claim
// (ClaimMisbound).
//
// A volume without claimRef (or pre-bound, without a claim UID yet) is
// Available; one whose claim is Bound to it is Bound; one whose claim is
// gone — checked with a live read, not only the cache — is reclaimed by
// its persistentVolumeReclaimPolicy: Retain leaves it Released (never
// bound again until an administrator clears its claimRef), Delete
// deletes it (the provisioner's deleter, simulated). Recycle is not
// simulated: the volume turns Failed.
//
// # Pods
//
// Pods matter only to WaitForFirstConsumer claims: a pod's creation, or
// a change of its node, re-syncs its unbound claims (their events). The
// scheduler's VolumeBinding plugin keeps a pod with unbound claims
// Pending, pre-binds static volumes and selects the node to provision
// for; controllers/kubelet does not look at claims. An Immediate claim
// is bound within one sync of its creation (two with provisioning), so
// a StatefulSet pod's claim is bound before its pod runs.
//
// # Left out
//
// The class's allowedTopologies and topology beyond the selected node,
// the pvc-protection and pv-protection finalizers (their own
// controllers), rescheduling (removing the selected node after a
// provisioning failure: the simulated provisioner does not fail),
// Recycle, volume expansion and resizing conditions, data
// sources and populators, in-tree and CSI migration, external
// provisioners (every class but kubernetes.io/no-provisioner is
// provisioned by the simulation), the periodic resync (15 s in kcm:
// every change here is event-driven), and the binder's metrics.
//
// # Wiring and Run
//
// Its informers are wired with reconcile.WatchEvents: a claim's events
// enqueue it and the volumes bound to it; a volume's enqueue it and its
// claim, or every unbound claim; a storage class's add or update
// enqueues every unbound claim; a node's add enqueues the unbound
// claims that selected it; a pod's add, or a change of its node,
// enqueues its unbound claims. Run returns once every worker has
// exited: ctx's error after a clean drain, or the error of a drain that
// did not end cleanly (it wraps reconcile.ErrShutdownTimeout or
// workqueue.ErrDrainAborted), never reduced to ctx's error.
package persistentvolume

// Package cluster is what kube-apiserver does on writes, over ctrlkit's
// sources: a Cluster holds one typed Store per kind registered in
// controllers/api (api.Registered), under the resource name, scope and
// subresources of its registration (c.Pods() is a *Store[*api.Pod],
// StoreFor[T] finds one generically; the kinds a user adds with
// api.Register are Store[api.Object]s holding objects of the kind's Go
// type, DynamicStore finds them, client.For types them, and a kind
// registered after New is opened at its first use; Kinds lists every
// kind served), and every Store is a source.ListWatcher[T] for informers and a
// source.Writer[T] for controllers, whose writes behave as Kubernetes'.
//
// # CustomResourceDefinitions
//
// A stored CustomResourceDefinition serves its kind at once — where
// kube-apiserver's controllers take a moment — as *api.Unstructured
// objects (crd.go): each write of a definition is defaulted and validated
// as kube-apiserver's (controllers/apiextensions), gets the
// customresourcecleanup.apiextensions.k8s.io finalizer, and its status
// is written with it: the accepted names, NamesAccepted (False when
// another kind of the group holds a name), Established, the storage
// version among status.storedVersions. Every served version has its own
// store (DynamicStore with that version) over one storage at
// /registry/<group>/<plural>: objects are stored at the storage version
// and read at the served one (None conversion: only apiVersion changes),
// with that version's defaults applied on read. A write prunes the fields
// the version's schema does not know (UnknownFields lists them, for an
// API server's fieldValidation), sets its defaults and validates it
// against the schema (a 422 listing every violation); the status
// subresource is pruned, defaulted and validated too; generation counts
// every change but metadata and status; the scale subresource reads and
// writes the version's specReplicasPath, statusReplicasPath and
// labelSelectorPath; selectableFields are field selectors. Deleting the
// definition marks it Terminating, deletes its objects (those with
// finalizers wait for them; creates are refused with
// ErrMethodNotAllowed) and, once none is left, drops the finalizer, so
// the definition goes and its kind is no longer served. A cluster over a
// backend that holds definitions serves their kinds from New.
// x-kubernetes-validations (CEL) rules are not evaluated.
//
// # Usage
//
//	c, err := cluster.New(ctx, cluster.Options{})          // in memory
//	_, err = c.Deployments().Create(ctx, d)               // d now holds uid, defaults, resourceVersion
//	d.Spec.Replicas = ptr(int32(3))
//	_, err = c.Deployments().Update(ctx, d, "")           // precondition: d.ResourceVersion
//	unscheduled, err := c.Pods().Select(cluster.SelectOptions{FieldSelector: "spec.nodeName="})
//	// hand c.Deployments() or unscheduled to an informer
//
// # Create
//
// Create sets the uid (a random UUID), creationTimestamp (whole seconds),
// generation 1 (kinds with a spec), apiVersion and kind, the name from
// generateName plus five random characters (retried on a collision), and
// namespace "default" for a namespaced object without one; it resets the
// server-owned fields the caller set (resourceVersion, deletionTimestamp,
// status — except a Node's, which its kubelet registers with). It then
// applies the defaults of kube-apiserver's SetDefaults functions: pods
// (and pod templates) restartPolicy Always, terminationGracePeriodSeconds
// 30, dnsPolicy ClusterFirst, schedulerName default-scheduler, container
// ports' protocol TCP, imagePullPolicy; pods get requests equal to their
// limits where a container limits but does not request a resource
// (api.DefaultRequestsFromLimits), the not-ready and
// unreachable NoExecute tolerations of 300 s (the DefaultTolerationSeconds
// plugin) and status.phase Pending; Deployments replicas 1, strategy
// RollingUpdate with maxSurge and maxUnavailable 25%, revisionHistoryLimit
// 10, progressDeadlineSeconds 600; ReplicaSets, ReplicationControllers and
// StatefulSets replicas 1 (StatefulSets podManagementPolicy OrderedReady,
// updateStrategy RollingUpdate); Jobs parallelism and completions 1,
// backoffLimit 6, and a generated selector on
// batch.kubernetes.io/controller-uid unless spec.manualSelector; CronJobs
// concurrencyPolicy Allow, successful and failed history limits 3 and 1;
// Services type ClusterIP, ports' protocol TCP and targetPort = port;
// Namespaces spec.finalizers [kubernetes], phase Active and the
// kubernetes.io/metadata.name label.
//
// Validation reports every field error with its path in an *InvalidError
// (errors.Is(err, ErrInvalid)): names (DNS-1123 subdomains; namespaces
// DNS-1123 labels; services DNS-1035 labels), label and annotation keys
// and values, owner references, containers (a name, an image, unique
// names, ports), restart policies (Always for Deployments, ReplicaSets,
// ReplicationControllers, DaemonSets and StatefulSets; OnFailure or Never
// for Jobs and CronJobs), a workload's selector (required, and matching
// its template's labels), non-negative replicas, parallelism, completions
// and backoffLimit, service ports and types, cron job names of at most 52
// characters. Ported from kube-apiserver's core validation as well
// (validate_ported.go names the upstream functions): ConfigMap and Secret
// data keys ([-._a-zA-Z0-9]+, not "." or "..", not starting with "..", at
// most 253 characters; no key in both data and binaryData), their data at
// most 1 MiB, the Secret types' required keys, annotations at most
// 256 KiB in all, container resources (standard or domain-qualified names,
// no negative quantity, requests no more than limits), port names
// (IANA service names, unique in a container), host and node ports, env
// var names (printable ASCII but '='), volume names (unique DNS-1123
// labels) and mounts (naming a volume, unique paths), image pull,
// termination message and DNS policies, activeDeadlineSeconds; and from
// apps and batch: non-negative minReadySeconds, revisionHistoryLimit,
// activeDeadlineSeconds, ttlSecondsAfterFinished, startingDeadlineSeconds
// and history limits, progressDeadlineSeconds above minReadySeconds, a
// Job's completionMode (backoffLimitPerIndex only when Indexed), its
// podFailurePolicy (at most 20 rules, each with a valid action — FailIndex
// only beside backoffLimitPerIndex — and exactly one of onExitCodes: an
// operator, a containerName naming a container or init container, 1 to
// 255 ordered unique values, no 0 with In; or onPodConditions: at most 20
// qualified types with a True, False or Unknown status), its
// successPolicy (Indexed only; 1 to 20 rules with succeededIndexes in
// kube's interval format below completions and succeededCount within
// completions and the indexes) and managedBy (a domain-prefixed path of
// at most 63 bytes), with kube's messages (validate_job.go); a
// HorizontalPodAutoscaler's metrics as kube's autoscaling validation
// checks them (a known type with its source, and no other, set; metric
// names, targets of a known type with positive values, the target each
// source needs; a minReplicas of 0 only beside an Object or External
// metric, HPAScaleToZero being on in v1.37; validate_hpa.go). The
// kinds served without a controller are defaulted and validated as
// kube-apiserver's policy, networking, scheduling, core, discovery and
// storage validation does them (validate_kinds.go): a
// PodDisruptionBudget's minAvailable or maxUnavailable (not both; counts
// or percentages up to 100%), an Ingress's rules, paths, path types and
// backends, an IngressClass's controller (immutable) and parameters, a
// NetworkPolicy's peers, ports and policyTypes (defaulted from its
// rules), a PriorityClass's value (immutable; system- names reserved) and
// preemptionPolicy (default PreemptLowerPriority), a LimitRange's
// min ≤ defaultRequest ≤ default ≤ max, an EndpointSlice's address type
// (immutable), addresses and ports (protocol default TCP), a CSIDriver's
// defaults and immutable fields, a CSINode's drivers and a
// VolumeAttachment's spec (immutable).
//
// Services get a cluster IP (the lowest free one in 10.96.0.0/16, unless
// headless or ExternalName) and, for NodePort and LoadBalancer types, node
// ports (the lowest free in 30000-32767); a requested address that is
// taken or out of range is invalid. Kubernetes picks random free
// addresses; the lowest free one keeps tests predictable.
//
// Namespace lifecycle: a namespaced create in a missing namespace fails
// with source.ErrNotFound, in a terminating one with ErrForbidden (events
// excepted). default, kube-system, kube-public and kube-node-lease (where
// kubelets keep their leases) exist from New on; the first three cannot
// be deleted (ErrForbidden).
//
// Options.Admission runs last, with the object about to be stored, on
// creates and updates; its error aborts the write.
//
// # Update and UpdateStatus
//
// Update's precondition is the object's own metadata.resourceVersion (an
// explicit ifVersion wins; empty writes unconditionally, retrying lost
// races), failing with source.ErrConflict. An update that changes nothing
// — compared by JSON encoding, as kube-apiserver compares the encoded
// bytes — is not written: the stored version is returned and watchers see
// no event, so a controller writing its status every sync does not wake
// itself. Update keeps uid, creationTimestamp, deletion fields and
// generation, ignores status, applies defaults, bumps the generation when
// the spec changed, and rejects changes to immutable fields: a pod's spec
// beyond container images, activeDeadlineSeconds, added tolerations and
// removed scheduling gates; the selector of Deployments, ReplicaSets,
// DaemonSets and Jobs; a Job's template and completions; a StatefulSet's
// spec beyond replicas, template, updateStrategy, minReadySeconds,
// revisionHistoryLimit, ordinals and the claim retention policy; a
// Service's clusterIP once set. UpdateStatus writes only the status,
// generation unchanged. Both overwrite the caller's object with the stored
// one. Cluster.Bind sets a pod's spec.nodeName (the binding subresource).
// Cluster.Evict is the eviction subresource: it checks the pod's
// PodDisruptionBudget and charges its allowance (status.disruptedPods) as
// kube-apiserver's eviction REST does, marks the pod DisruptionTarget and
// deletes it.
//
// # Delete
//
// DeleteWith checks the preconditions (uid, resourceVersion: ErrConflict),
// applies the propagation policy to the finalizers as kube-apiserver does
// (Orphan adds "orphan", Foreground adds "foregroundDeletion", Background
// removes both, none keeps them), and then either removes the object or,
// when it still has finalizers or is a pod bound to a node and deleted
// with a non-zero grace period (the request's, else
// spec.terminationGracePeriodSeconds), sets deletionTimestamp (now plus
// the grace period), deletionGracePeriodSeconds, and bumps the
// generation. Such an object stays until its finalizers are removed by
// Update — removing the last removes it, unless a pod's grace period is
// pending — and a pod until it is deleted again with grace period 0, as
// the kubelet confirms. A pod never scheduled, or Succeeded or Failed, is
// removed at once. A second delete may shorten a grace period. Updates to
// an object being deleted may only remove finalizers and change status.
// Deleting a namespace makes it Terminating; it goes once its
// spec.finalizers are emptied by Update (the namespace controller's job).
// The store runs no timer: nothing is removed when a grace period ends
// unless someone deletes it again.
//
// # Lists and watches
//
// List and Watch serve every object of the kind; Select filters on the
// server side by label and field selector, with the watch cache's
// semantics (source.Filter): an object that starts matching is Added, one
// that stops matching is Deleted. Get returns a private copy; objects from
// List and Watch are shared and read-only.
//
// A pod selection that requires one spec.nodeName (what every kubelet
// watches) is served, as kube-apiserver's watch cache serves it, from one
// watch of the pods shared by all such selections and indexed by node: an
// event reaches only the watches of the node the pod was on before and
// after it, so N kubelets cost O(1) per pod event instead of O(N). The
// shared watch runs while any such watch is open and keeps its last 4,096
// events, to start a watch from the version of the List that seeded it;
// an older version is expired (source.ErrExpired: relist), and a watch
// that falls 65,536 events behind is ended with ErrExpired. Such watches do
// not offer SendInitialEvents (source.ErrUnsupported: list, then watch).
// Their relist — a List not older than a version, what a reflector asks
// for when its watch ended — is served from the shared watch's index
// once it has reached that version, as the watch cache serves it: the
// node's pods, not a read of every pod of the cluster.
//
// # Backends
//
// By default each kind lives in a fake.Source that copies what it stores
// and what Get returns (DeepCopy), so readers never share the writer's
// object. A write that finds a watcher's buffer (131,072 events, so that
// a burst of pod writes at scale fits) full waits for its reader as the
// watch cache does, but with a budget of up to 1 s, refilled by 0.5 s per
// second, instead of the watch cache's 100 ms: the readers are this
// process's own informers, slow only while the writers starve them. A
// watcher still full then is not ended (a relist) but goes on from the
// store's history, as etcd's unsynced watchers do, until it has caught up;
// it is ended only if the history no longer holds what it has yet to
// read (see fake.Options.WatchBudget and CatchUp).
//
// Options.Backend replaces it: a Backend opens one RawStorage per
// resource, storing objects as JSON keyed "namespace/name"; the etcd
// module's clusterstore package is one, with Kubernetes' key layout
// /registry/<resource>/<namespace>/<name>. The clustertest package holds
// the suite every backend passes.
//
// # Limits
//
// A create or update whose object encodes to more than
// Options.MaxObjectBytes of JSON (default 1.5 MiB, etcd's default
// --max-request-bytes) fails with ErrTooLarge, with every backend. The
// in-memory backend's history of past writes, which serves lists and
// watches at older versions, is bounded per kind by count
// (Options.HistorySize, 10,000 writes) and by the encoded size of the past
// versions it alone keeps (Options.HistoryBytes, 32 MiB); older versions
// are expired (source.ErrExpired). An update's stored object shares with
// the version it replaces the maps, slices and pointers that did not
// change (a pod's spec and labels across its status updates), so a past
// version costs what changed in it. ResourceVersions snapshots every
// kind's version, to list each at it later (what a lagging replica may
// serve).
//
// # Left out
//
// Deliberately not done, as kube-apiserver does it: authentication,
// authorization and RBAC; API versions and conversion (objects are stored
// at their current version); re-validation after mutating admission
// (Options.Mutating runs before validating admission, and must keep the
// object valid); server-side apply,
// patches and managedFields; the finalize subresource (Update may shrink a
// namespace's spec.finalizers) and the scale, eviction and ephemeral
// containers subresources; random service addresses, dual stack, and
// address allocation across several Cluster values over one etcd (it is
// serialized within one Cluster value) or on updates that change a
// service's type;
// the LimitRanger, PodSecurity and priority admission plugins (the quota,
// service-account and cron-schedule plugins live with their controllers,
// in packages resourcequota, serviceaccount and cronjob, and plug into
// Options.Admission and Options.Mutating; package controlplane wires
// them); pod QoS class and the defaults of probes, volumes and security
// contexts beyond an empty pod security context; a Job's pod failure and
// success policies; the immutability of ConfigMaps and Secrets marked
// immutable; deletion of terminal pods' dependents; watch bookmarks beyond
// what the backend sends; list pagination with selectors beyond
// per-page filtering; metadata.generation for kinds without a spec.
package cluster

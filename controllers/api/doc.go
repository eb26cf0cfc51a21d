// Package api is ctrlkit's Kubernetes object model: the kinds that the
// reference controllers and the scheduler under controllers/ read and
// write, with the JSON field names of Kubernetes so that a manifest written
// for a real cluster decodes unchanged. It imports nothing from k8s.io.
//
// # Kinds
//
// Pod, Node, Service, Endpoints, ReplicaSet, ReplicationController,
// Deployment, StatefulSet, DaemonSet, ControllerRevision, Job, CronJob,
// Namespace, ResourceQuota, ServiceAccount, ConfigMap, Secret,
// PersistentVolume, PersistentVolumeClaim, StorageClass,
// HorizontalPodAutoscaler (autoscaling/v2), Lease, Event,
// CustomResourceDefinition (apiextensions.k8s.io/v1) and the admission
// webhook configurations ValidatingWebhookConfiguration and
// MutatingWebhookConfiguration (admissionregistration.k8s.io/v1),
// PodDisruptionBudget (policy/v1, its status kept by package
// controllers/disruption), and the kinds served and stored without a
// controller: Ingress, IngressClass and NetworkPolicy
// (networking.k8s.io/v1), PriorityClass (scheduling.k8s.io/v1),
// LimitRange, EndpointSlice (discovery.k8s.io/v1), CSIDriver, CSINode and
// VolumeAttachment (storage.k8s.io/v1), at their current versions (Kinds
// lists them). HorizontalPodAutoscalerV1 is autoscaling/v1's form of
// HorizontalPodAutoscaler, not a stored kind: package apiserver serves it,
// converted to and from the autoscaling/v2 object (kube's rules and
// round-trip annotations). The tables of HorizontalPodAutoscaler are
// kube's (Reference, Targets, MinPods, MaxPods, Replicas).
//
// CustomResourceDefinition's JSONSchemaProps has every field of kube's
// and the same JSON: JSON keeps a raw value (a default, an enum value),
// JSONSchemaPropsOrArray, JSONSchemaPropsOrBool and
// JSONSchemaPropsOrStringArray decode each of their shapes and encode
// them back, and strict decoding checks the fields of whichever shape a
// document has; every CRD published for a real cluster decodes strictly
// and encodes back to an equal JSON document.
//
// Each kind is registered once, in registry.go: a KindInfo with its
// group, version and kind, the older versions Decode accepts, its plural
// resource name, scope, status and scale subresources (and where the
// scale subresource finds its replicas and selector), kubectl's short
// names and categories, and its printer columns (Columns and Cells, as
// kubectl prints them; HumanDuration is their AGE). Registered, InfoOf,
// InfoFor and InfoOfResource read the registrations; the API server's
// discovery, routing and tables, the decoder, the clients (package
// kube's plurals) and the in-process cluster's stores all derive from
// them, so a new built-in kind is its type and one registration, then
// `go generate` here: besides the deep copies it writes, into each
// package with code generic over the kinds (cluster, apiserver,
// garbagecollector, resourcequota, namespace, kube), the instantiation
// for the kind's Go type, which Go cannot make from a run-time type
// (internal/kindgen; its test fails while one is out of date). The
// table is fixed when the package initialises and read-only after.
//
// A user's own kinds join the same registry at run time: Register[T]
// adds a Go type with its KindInfo — group, version, kind, plural,
// scope, short names, categories, printer columns, the status and scale
// subresources (ScaleFieldsOf) and a strategy (Default, Validate,
// ValidateUpdate, returning FieldErrors) — after checking its names as
// kube-apiserver checks a CustomResourceDefinition's (a group with a
// dot, DNS-1035 version and plural, no collision with a registered kind:
// ErrInvalidKind, ErrKindConflict). From then on the lookups, the
// decoder and every cluster, API server and client built on the registry
// serve the kind like a built-in one; its objects stay typed (no map in
// a controller). DeepCopyOf is the deep copy of a type without generated
// code. Registration is program-wide, like a type declaration: the same
// type registered again under the same names returns the first
// registration.
//
// A kind a CustomResourceDefinition defines has no Go type: its objects
// are *Unstructured — typed TypeMeta and ObjectMeta, every other field in
// a JSON map (numbers as int64 or float64) — and its registration,
// UnstructuredKind, belongs to the cluster that serves the definition,
// not to the program's registry. DecodeOptions.Unstructured decodes a
// manifest's custom resources into them.
//
// Each kind embeds TypeMeta inline and
// ObjectMeta as "metadata", as in k8s.io/api; optional scalars are pointers
// where Kubernetes has pointers (spec.replicas is *int32), so "unset" and
// "zero" stay distinct. Timestamps are Time (RFC 3339, seconds) or
// MicroTime; resource amounts are Quantity; ports and surge bounds that are
// "a number or a name/percentage" are IntOrString.
//
// A pointer to every kind implements Object: its metadata, its
// GroupVersionKind, DeepCopyObject, and GetResourceVersion /
// SetResourceVersion, so *Pod etc. satisfy source.Versioned and
// source.VersionSetter and sources can stamp them. Key gives the cache
// key "namespace/name" (client-go's MetaNamespaceKeyFunc) of any of them,
// e.g. as the key function of an indexer of *api.Pod.
//
// # Copies and sharing
//
// Objects are plain structs with maps, slices and pointers; they are not
// safe for concurrent mutation. Objects read from a shared cache must be
// treated as read-only: copy (DeepCopy, generated for every type) before
// changing one. Quantity, Time, MicroTime and IntOrString are values that
// may be copied by assignment and shared freely.
//
// # Manifests
//
// Decode and DecodeFile read YAML or JSON streams — several documents,
// List objects, a top-level sequence of objects — into Objects of the
// concrete types, strictly by default: an unknown field, and a key that
// occurs twice in an object (ErrDuplicateField), is an error naming its
// path, the kind, the object and the document, as kubectl's server-side
// strict validation reports it. Older apiVersions with the
// same schema (batch/v1beta1 CronJob, extensions/v1beta1 and
// apps/v1beta1/v1beta2 workloads, …) decode into the current type, and
// the object's TypeMeta is rewritten to the current version — unless
// DecodeOptions.RefuseRemoved asks to refuse them, as kubectl against a
// v1.37 server does (ErrRemovedVersion). Decode does
// not apply Kubernetes' defaults (replicas 1, restartPolicy Always, …):
// unset fields stay unset and the controllers apply the defaults they
// document. Encode writes an object back as YAML; decoding that again
// gives an equal object. DecodeInto decodes one object, with the same
// strictness, into a type that is not a registered kind (the served
// autoscaling/v1 form of a HorizontalPodAutoscaler).
//
// # Selection and scheduling helpers
//
// ParseCronSchedule parses a CronJob's spec.schedule (the standard cron
// grammar kube-controller-manager uses) into a CronSchedule whose Next
// gives the activations; ValidateCronSchedule is kube-apiserver's check
// of spec.schedule and spec.timeZone, which the in-process cluster runs
// and the CronJob controller shares.
//
// LabelSelector.AsSelector and ParseSelector (the `kubectl -l` syntax)
// produce a Selector; SelectorFromSet turns the map selector of a Service or
// ReplicationController into one. NodeSelectorTerm.Matches and
// PodMatchesNode implement node affinity; Toleration.ToleratesTaint and
// FindUntoleratedTaint implement taint-based filtering, with Kubernetes'
// matching rules. PodRequests (and PodRequestsWith) is the one
// computation of what a pod requests, sidecar init containers and
// overhead included, that the scheduler and resource quota share, and
// PodLimits its counterpart for limits; DefaultRequestsFromLimits is the
// one place a container's requests are derived from its limits
// (kube-apiserver's pod defaulting, which the in-process cluster applies).
//
// YAML is read as sigs.k8s.io/yaml (and so kubectl) reads it: YAML 1.1,
// where an unquoted y, n, yes, no, on or off is a boolean ("name: n" is an
// error for a string field), and where content after a top-level flow
// collection ("{…}" then more text in the same document) is ignored.
//
// # Deliberately left out
//
// Defaulting, validation beyond what decoding needs, field selectors,
// managedFields and selfLink, typed List kinds (a "PodList" document still
// decodes, into Pods), protobuf, ephemeral containers, dynamic resource
// claims, in-place resize status, the cloud and legacy volume plugins
// (only hostPath, emptyDir, configMap, secret, persistentVolumeClaim, nfs,
// projected, downwardAPI and csi are modelled; PersistentVolumes: hostPath,
// local, nfs, csi), and HPA metric sources other than Resource. A manifest
// that uses one of these fails strict decoding with an error naming the
// field, and decodes without it with DecodeOptions.Lenient. Parsed BinarySI
// quantities are capped at 2^63-1 as in Kubernetes; Quantity arithmetic is
// exact beyond it, and its int64 accessors saturate instead of wrapping.
package api

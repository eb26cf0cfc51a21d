// Package patch applies the PATCH bodies that kube-apiserver accepts to
// the JSON document of an object of controllers/api, as the REST server
// of controllers/apiserver needs for `kubectl patch`, `kubectl apply`,
// `kubectl scale` and client-go's Patch.
//
// Apply(t, kind, original, p) returns the patched document; it does not
// validate the result against the kind's schema (the caller decodes it
// strictly, as for a PUT). original is never modified. Numbers are kept
// exactly as written (they are not round-tripped through float64), and
// the result is written with object keys sorted, like encoding/json.
//
// # The three types
//
// JSON ("application/json-patch+json") is RFC 6902: an array of
// operations add, remove, replace, move, copy and test, applied in order,
// all or nothing. Paths are RFC 6901 JSON pointers ("~1" is "/", "~0" is
// "~", so the annotation "a/b" is "/metadata/annotations/a~1b"); in an
// array an index inserts before that element, and "-" appends (add only).
// A path whose parent does not exist, a remove or
// replace of a missing member, an index out of range and a failed test
// fail the patch with an error wrapping ErrUnprocessable (kube-apiserver
// answers 422 for any operation that fails, 400 for a body that is not a
// list of operations); a failed test also wraps ErrTestFailed. Unlike
// evanphx/json-patch, which kube-apiserver uses, a negative index ("-1"
// for the last element) is an error, as RFC 6902 says.
//
// Merge ("application/merge-patch+json") is RFC 7386: the patch is a
// partial object merged recursively into the original; null deletes a
// member; any non-object value, arrays included, replaces the original's
// value whole. The patch must be an object.
//
// StrategicMerge ("application/strategic-merge-patch+json") is
// Kubernetes' own merge patch, the one `kubectl apply` and most of
// `kubectl patch`, `set image`, `rollout restart` send; the next section
// says what it does.
//
// Server-side apply ("application/apply-patch+yaml") and any other
// content type give ErrUnsupportedType (a server answers 415).
//
// # Limits
//
// A patch body is bounded by the server (3 MiB), but what it makes need
// not be: each "copy" of a JSON patch may double the object. Apply keeps
// kube-apiserver's bounds and the cost of a patch linear in its input:
//
//   - A JSON patch of more than MaxOperations (10,000) operations fails
//     with ErrTooLarge before any is applied (kube-apiserver: 413, "The
//     allowed maximum operations in a JSON patch is 10000, got N").
//   - The values the copy operations of one JSON patch duplicate may add
//     up to MaxCopyBytes (3 MiB, kube-apiserver's JSONPatchMaxCopyBytes);
//     past it the patch fails with ErrUnprocessable (422) as soon as the
//     copy passes the limit, having copied no more.
//   - A patched object whose JSON is larger than MaxObjectBytes (3 MiB,
//     the request body limit) fails with ErrTooLarge (413).
//   - Nesting is bounded by encoding/json's limit of 10,000 levels (a
//     deeper patch is a 400).
//   - Work is linear: arrays are edited in place (an insertion or removal
//     shifts the later elements, never reallocates or copies the array),
//     numbers compare by a canonical decimal form (not math/big, which
//     takes 50 ms to expand 1e1000000), and a strategic merge patch finds
//     list elements by merge key or value through maps. What remains
//     proportional to a list's length per operation — the elements a JSON
//     patch shifts, the original elements a "$patch: delete" element is
//     looked for among — is counted against a budget linear in the size
//     of the original and the patch; a patch past it fails with
//     ErrUnprocessable ("too costly"). No patch kubectl or a controller
//     sends comes near it.
//
// A server maps ErrTooLarge to 413 RequestEntityTooLarge, ErrUnprocessable
// to 422 Invalid, ErrUnsupportedType to 415 and any other error to 400.
//
// # Strategic merge patch
//
// Apply does what kube-apiserver does with k8s.io/apimachinery's
// strategicpatch.StrategicMergePatch and the Go type of the kind as
// schema. The patch is a partial object merged recursively, like a merge
// patch, except that:
//
//   - A list whose field has patchStrategy "merge" in k8s.io/api merges:
//     a list of objects by the field's patchMergeKey (each patch element is
//     merged into the original element with the same key, or added), a list
//     of scalars as an ordered set. Any other list is replaced whole
//     (tolerations, container args and command, envFrom, ...).
//   - null deletes a member (and is dropped where there was none).
//   - "$patch": "replace" in an object replaces the object instead of
//     merging it; "$patch": "delete" makes it empty (or drops the member if
//     the original has none). In a list of objects, an element
//     {"$patch": "delete", <key>: v} deletes the elements with that key, and
//     {"$patch": "replace"} makes the patch's other elements the whole list.
//     "$patch": "merge" is an error, as upstream.
//   - "$retainKeys": [names] in an object clears the original's members not
//     named (kubectl sends it for fields with patchStrategy "retainKeys":
//     a Deployment's strategy, a volume's source); the patch may then set
//     only named members.
//   - "$deleteFromPrimitiveList/<field>": [values] removes those values from
//     the list of scalars <field> (kubectl's way to remove a finalizer).
//   - "$setElementOrder/<field>": [keys] orders the merged list <field>: the
//     elements it names in its order, the original's other elements
//     interleaved as upstream's normalizeElementOrder places them. kubectl
//     apply sends it with every merging list it patches, so that the live
//     list follows the manifest's order.
//
// The result's list order equals upstream's, including where a patch both
// deletes and adds elements of one list (upstream orders those against the
// original list as its in-place edits left it; Apply makes the same edits).
//
// The merge keys come from the patchStrategy and patchMergeKey struct tags
// of k8s.io/api v0.37.2, read by gen_strategies.go into strategies_table.go
// for the fields controllers/api has, keyed by Go type name and JSON field
// name; reflection over controllers/api's types tells which type each
// member of the document has. The table:
//
//	field (Go type.json name)                       strategy          merge key
//	ObjectMeta.finalizers                           merge             (scalars)
//	ObjectMeta.ownerReferences                      merge             uid
//	PodSpec.containers, .initContainers             merge             name
//	PodSpec.ephemeralContainers                     merge             name
//	PodSpec.volumes                                 merge,retainKeys  name
//	PodSpec.imagePullSecrets, .schedulingGates      merge             name
//	PodSpec.hostAliases                             merge             ip
//	PodSpec.topologySpreadConstraints               merge             topologyKey
//	Container.env                                   merge             name
//	Container.ports                                 merge             containerPort
//	Container.volumeMounts                          merge             mountPath
//	ContainerStatus.volumeMounts                    merge             mountPath
//	PodStatus.podIPs, .hostIPs                      merge             ip
//	ServiceSpec.ports                               merge             port
//	ServiceAccount.secrets                          merge             name
//	NodeSpec.podCIDRs                               merge             (scalars)
//	NodeStatus.addresses                            merge             type
//	DeploymentSpec.strategy                         retainKeys        -
//	<Kind>Status.conditions of Pod, Node, Namespace, Service, Deployment,
//	  ReplicaSet, ReplicationController, StatefulSet, DaemonSet, Job,
//	  PersistentVolumeClaim, HorizontalPodAutoscaler  merge           type
//
// Fields upstream tags that controllers/api does not model (ephemeral
// containers, volumeDevices, resource claims) are listed at the end of
// strategies_table.go; patching them merges nothing, since the decoder
// rejects them anyway. Unknown kinds are an error: a strategic merge patch
// needs the schema.
//
// Deliberate differences from upstream, none of which kubectl's own
// patches reach in practice: a patch value that replaces the original's
// or has no counterpart in it (a new member or list element, an atomic
// list, a "$patch: replace") is cleaned — nulls in objects dropped,
// directives applied — where upstream copies it verbatim and leaves its
// "$setElementOrder/..." members and {"$patch": "delete", ...} elements to
// the decoder (which would decode the latter as real elements); members of
// opaque types (ControllerRevision's data) merge as plain JSON where
// upstream fails; an unknown "$..." member is an error where upstream
// keeps it; duplicate scalars merge keeping the first (upstream's
// deduplication may reorder them); the members of a patch object are
// applied in sorted order where upstream's order is Go's map order.
package patch

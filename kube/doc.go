// Package kube connects ctrlkit to Kubernetes API servers, through
// k8s.io/client-go's REST machinery: Source[T] is a source.ListWatcher[T]
// and a source.Writer[T] over one resource of client-go's types, so that
// the reflector and the informer run against a cluster; Client is the
// typed client contract of controllers/client over ctrlkit's own types,
// so that controllers run against one.
//
// It is its own module (github.com/ctrlkit/ctrlkit/kube) so that
// client-go's dependencies reach only the programs that import it; the
// core of ctrlkit imports nothing from k8s.io.
//
// # Usage
//
//	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
//	cs, err := kubernetes.NewForConfig(cfg)
//	pods, err := kube.New[*corev1.Pod, *corev1.PodList](cs.CoreV1().RESTClient(), "pods", kube.Options{})
//	inf, err := informer.New(pods, kube.Key, informer.Options[*corev1.Pod]{})
//
//	// The same resource, unstructured, through the dynamic client's configuration:
//	u, err := kube.NewDynamic(cfg, corev1.SchemeGroupVersion.WithResource("pods"), kube.Options{})
//	// Metadata only (*metav1.PartialObjectMetadata), as the metadata client reads it:
//	m, err := kube.NewMetadata(cfg, corev1.SchemeGroupVersion.WithResource("pods"), kube.Options{})
//
// New takes a typed group client's REST client (any client-go typed
// clientset, or one generated for an aggregated API or a CRD) and the
// object and list types; NewDynamic takes a *rest.Config and a
// GroupVersionResource and serves *unstructured.Unstructured; NewMetadata
// serves the same resource's *metav1.PartialObjectMetadata, for caches
// that need only names, labels and owners (it reads, watches and
// deletes; Create and Update return source.ErrUnsupported). Keys are
// "namespace/name", or "name" for cluster-scoped objects (Key, which is
// client-go's MetaNamespaceKeyFunc). Options.Namespace and the
// selectors restrict List and Watch.
//
// # The client contract on a real server
//
// Client implements client.Client (and client.Binder) of package
// controllers/client for ctrlkit's own types (controllers/api), so that
// the reference controllers, and any controller written against the
// contract, run against a Kubernetes API server:
//
//	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
//	c, err := kube.NewClient(cfg, kube.ClientOptions{})  // 20 QPS, burst 30
//	pods, err := client.For[*api.Pod](c)
//	_, err = pods.UpdateStatus(ctx, pod)
//
// Every kind of api.Kinds is served, under the plural and scope of its
// registration in controllers/api (PluralOf, api.InfoOf), which are
// those the API server's discovery gives it; so is every kind a program
// adds with api.Register (before or after NewClient), as the server
// serves it (a CustomResourceDefinition on a real cluster): client.For
// types its Resource, whose objects decode into the kind's Go type.
// Requests go through one rest.RESTClient with raw JSON bodies, so
// kubeconfig authentication, TLS, the token-bucket rate limit
// (ClientOptions.QPS and Burst, kube-controller-manager's
// --kube-api-qps 20 and --kube-api-burst 30 by default) and client-go's
// retries of a 429 or 5xx with Retry-After are client-go's. List and
// Watch are mapped as for Source (below), with Select's namespace,
// labelSelector and fieldSelector; watch streams are read as raw JSON
// frames. Status errors become the contract's: 404 source.ErrNotFound,
// 409 AlreadyExists source.ErrAlreadyExists, 409 Conflict
// source.ErrConflict, 422 a *client.InvalidError with one FieldError per
// cause, 403 client.ErrForbidden, 400 client.ErrBadRequest, 410
// source.ErrExpired, 413 client.ErrTooLarge, 429 client.ErrTooManyRequests
// (a *client.RetryAfterError when the server said when), 504 and
// ServerTimeout client.ErrServerTimeout; the source sentinels of the
// section "What is mapped" stay in the chain for the reflector.
//
// Where the server does not say, the contract's versions are "": the
// version of a DeleteWith that removed the object (kube-apiserver
// answers with a Status, or a pod's last state) and of a Bind (a
// Status). A DeleteWith that only marks the object returns the version
// of the marking. Resource versions are opaque (no
// source.VersionComparer), as for Source, unless
// ClientOptions.OrderedVersions is set (see "Versions").
//
// # Nothing lost
//
// ctrlkit's types model a subset of Kubernetes' fields; an object read
// from a real server and written back as ctrlkit encodes it would drop
// the others (a container's resizePolicy, spec.os, managedFields, …).
// So the Client remembers the server's JSON of the last version it read
// of each object (by uid and resourceVersion, from Get, List, Watch and
// the answers to writes), and Update and UpdateStatus send a three-way
// merge: what ctrlkit's encoding of the object changed, relative to
// ctrlkit's view of that JSON, applied to the server's JSON. Unchanged
// subtrees are the server's verbatim, unknown fields included; members
// ctrlkit cleared are removed; lists of unequal length are merged per
// element by "name", "type" or "uid" (else by equality), equal-length
// ones element by element. The write is still a PUT at the
// resourceVersion read, so a concurrent write is a conflict, as ever.
//
// The memory is bounded: ClientOptions.RawCacheBytes (64 MiB by
// default) of JSON, least recently used first out; a deleted object is
// forgotten. An object not remembered (evicted, never read by this
// Client, or written without a resourceVersion) is read once with a GET
// before the write, at the cost of one request; if the server's version
// differs from the one written at, the write conflicts anyway and is
// sent as ctrlkit encodes it. Create and Patch need no merge (nothing to
// lose, or the server merges).
//
// # Versions
//
// resourceVersions are opaque, as the Kubernetes API conventions
// require: a Source does not implement source.VersionComparer, so the
// reflector and the informer do not order them. Ordered[T]{src} opts in
// to reading them as decimal integers (etcd revisions, which every
// etcd-backed server issues); ClientOptions.OrderedVersions does the
// same for every Resource of a Client and every selection of one, so
// that informers over them can wait for a version and read-your-writes
// gates (reconcile.NewConsistency) can follow them.
//
// # What is mapped
//
//   - List: ResourceVersion and ResourceVersionMatch become
//     resourceVersion and resourceVersionMatch=NotOlderThan|Exact (none
//     when the version is ""); Limit and Continue become limit and
//     continue, and a page with a continue token is asked with the token
//     alone, as the API server requires.
//   - Watch: from ResourceVersion x, resourceVersion=x. From "", the
//     watch starts at the most recent version (sendInitialEvents=false,
//     resourceVersionMatch=NotOlderThan): a bare Kubernetes watch
//     without a version would first replay the current state.
//     SendInitialEvents is watch-list: sendInitialEvents=true with
//     resourceVersionMatch=NotOlderThan and allowWatchBookmarks=true, and
//     the bookmark annotated k8s.io/initial-events-end="true" becomes the
//     Bookmark with InitialEventsEnd. AllowBookmarks is
//     allowWatchBookmarks; bookmarks are dropped when it is false. An
//     ERROR event's *metav1.Status becomes an Error event whose error is
//     mapped as below; the channel closes after it. A server with the
//     WatchList feature gate off (the default in 1.27-1.31 and 1.33)
//     refuses sendInitialEvents: a watch from "" then starts at the
//     version of a List of limit 1, and SendInitialEvents fails with
//     source.ErrUnsupported, on which the reflector uses List and Watch.
//   - Errors, in returned errors and in Error events, keep the
//     *apierrors.StatusError in the chain and wrap a sentinel:
//     410 Gone and reason Expired (apierrors.IsGone, IsResourceExpired) →
//     source.ErrExpired; "Too large resource version" (the apiserver's
//     storage.IsTooLargeResourceVersion) → source.ErrFutureVersion and
//     source.ErrExpired, so that a reflector relists from the latest as
//     client-go's does; 429 TooManyRequests, 503 ServiceUnavailable
//     ("storage is (re)initializing"), server and gateway timeouts, and a
//     refused or reset connection or a cut stream → source.ErrTransient
//     (the reflector re-watches from its last version after a backoff,
//     without relisting); 409 Conflict → source.ErrConflict; 404 →
//     source.ErrNotFound; AlreadyExists → source.ErrAlreadyExists.
//   - Writes: Create POSTs a copy without resourceVersion. Update PUTs a
//     copy with resourceVersion ifVersion, or the object's own: the API
//     server checks it (409 → ErrConflict). With neither, the update is
//     unconditional, which most resources refuse for a PUT, so Update
//     reads the current version and retries on conflict. Delete sends
//     DeleteOptions.Preconditions.ResourceVersion = ifVersion. Create
//     and Update stamp the new resourceVersion into the caller's object.
//     An Update that changes nothing is not written by the API server:
//     it returns the object's current resourceVersion and no watch
//     event follows.
//   - The resourceVersion of a delete: the API server answers most
//     deletes with a Status, without it, so Delete reads the object's
//     version, watches that one object (fieldSelector metadata.name)
//     from there, deletes it, and returns the version of its Deleted
//     event: three requests. When finalizers or a grace period hold the
//     object, the delete is an update that sets deletionTimestamp, and
//     Delete returns that update's version.
//
// # What is not mapped
//
//   - Periodic bookmarks come from the API server's watch cache; a
//     server without one (--watch-cache=false) sends only the
//     initial-events-end bookmark.
//   - A watch from a version newer than the server's: the watch cache
//     answers "Too large resource version" after a few seconds, but
//     without one the etcd-backed watch simply waits for that version,
//     so no ErrFutureVersion comes.
//   - Source: Patch, Apply, subresources (status, scale) and
//     DeleteCollection are not part of source.Writer; use client-go for
//     them, or Client, which has Patch and the status, scale and binding
//     subresources (not Apply or DeleteCollection).
//   - Typed clients (clientset.CoreV1().ConfigMaps(ns), client-go's
//     generic gentype clients) cannot back a Source: they drop the body
//     of a delete, and with it the resourceVersion Delete must return.
//     New takes their group's REST client instead, which serves the
//     same requests.
//   - Retries: List and Watch do not retry inside client-go; the
//     reflector retries with its backoff. Get and the writes keep
//     client-go's retries (of responses with Retry-After).
//   - client-go's fake clientset (k8s.io/client-go/kubernetes/fake) has
//     no REST client behind its typed clients and no real
//     resourceVersion semantics; for tests without a cluster use
//     ctrlkit's fake.Source, and for tests of this package's behaviour a
//     real server (this module's tests start k8s.io/sample-apiserver in
//     process over an embedded etcd).
//
// # Goroutines
//
// Nothing runs until called. Each open watch has one goroutine, which
// ends, closing the channel, when the watch's context ends, the stream
// ends, or after an Error event.
package kube

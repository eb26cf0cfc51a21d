// Package apiserver serves the Kubernetes REST API in front of a
// cluster.Cluster, enough for kubectl and client-go: a Server is an
// http.Handler over every kind of controllers/api, generic over
// cluster.Store[T].
//
// # Usage
//
//	c, err := cluster.New(ctx, cluster.Options{})       // or a control plane's cp.Cluster
//	srv, err := apiserver.New(c, apiserver.Options{})
//	err = srv.Serve(ctx, "127.0.0.1:6443", func(a net.Addr) { fmt.Println("serving on", a) })
//
// Serve (and Listen, which returns the listener for http.Serve or
// httptest) refuse an address that is not a loopback address unless
// Options.AllowNonLoopback is set: the server itself has no
// authentication, and whoever reaches it can read and write everything,
// secrets included. Package serving wraps it in TLS, a bearer token and
// a Host-header check, as `ctrlkit up --listen` serves it.
//
// # What is served
//
// Every kind registered in controllers/api (api.Registered) is served, at
// its current version, with the facts of its registration: resource
// name, scope, short names, categories, status and scale subresources
// and table columns. The server keeps no list of its own. The built-in
// kinds are served by handlers instantiated for their Go types; a kind
// added with api.Register (a user's Go type) by the same handler code
// over api.Object, on the cluster's dynamic store of it
// (cluster.DynamicStore), decoding bodies into the kind's Go type. Such
// a kind is looked up at each request and each discovery document, so a
// kind registered after New is served (and listed) from then on, and
// one the cluster stops serving is no longer. The kinds of
// CustomResourceDefinitions are served the same way, every served
// version of them, bodies decoded as api.Unstructured: a field the
// version's schema does not know is a 400 with fieldValidation=Strict
// (kubectl's default: `strict decoding error: unknown field
// "spec.colour"`) and pruned otherwise; tables follow the version's
// additionalPrinterColumns; a write of a definition whose schemas have
// x-kubernetes-validations rules warns (a Warning header, which kubectl
// prints) that they are not evaluated. A group with several
// versions lists them in kube-apiserver's priority order (v1, v1beta1,
// v1alpha1), the first preferred.
//
// One kind is also served in a version other than its stored one, as
// kube-apiserver serves it over one storage: HorizontalPodAutoscaler in
// autoscaling/v1 beside autoscaling/v2 (discovery lists v2, preferred,
// then v1; the OpenAPI documents describe both; converted.go). Every verb
// of /apis/autoscaling/v1/…/horizontalpodautoscalers converts: objects
// read (get, list, watch events and bookmarks, tables with
// includeObject=Object, protobuf responses and frames) are written in
// v1's form, the first CPU utilization metric as
// targetCPUUtilizationPercentage and what v1 cannot express in kube's
// autoscaling.alpha.kubernetes.io annotations; bodies (JSON, YAML,
// protobuf; strictly with fieldValidation=Strict) are decoded as v1,
// defaulted as kube's v1 (minReplicas 1, 80% CPU without a metric) and
// stored as v2, the annotations read back, so a v1 client's update
// keeps the v2-only metrics. Patches (JSON, merge, strategic merge)
// apply to the v1 form. The resourceVersion, uid and conflicts are the
// one object's; validation is of the stored form, with kube's messages
// (spec.metrics…, as kube validates the internal form). A body of
// another apiVersion is kube's 400 "the API version in the data (…)
// does not match the expected API version (…)". Server-side apply
// (with Options.FieldManager) applies in the v1 form, the managedFields
// entry naming autoscaling/v1, and the result is converted back, as
// kube-apiserver's field manager converts to the applied version and
// back.
//
//   - /version, /healthz, /livez, /readyz (and their /… checks, always
//     "ok").
//   - Discovery: /api (APIVersions), /api/v1 and /apis/<group>/<version>
//     (APIResourceList with resource names, singular names,
//     namespaced-ness, kubectl's short names — po, svc, deploy, rs, ds,
//     sts, cj, ns, no, ep, sa, cm, pv, pvc, hpa, ev, quota, rc, sc — the
//     "all" category, verbs, and the status and scale subresources),
//     /apis (APIGroupList), /apis/<group> (APIGroup). Aggregated
//     discovery (apidiscovery.k8s.io) is not served: kubectl 1.32 asks
//     for it in its Accept header and falls back to these documents when
//     the answer is plain application/json.
//   - Per resource, under /api/v1/… and /apis/<group>/<version>/…,
//     namespaced (…/namespaces/<ns>/<resource>) or not: GET of an object;
//     LIST, of a namespace or across all, with labelSelector,
//     fieldSelector (the fields cluster.SelectOptions supports), limit and
//     continue, resourceVersion and resourceVersionMatch (NotOlderThan,
//     Exact; a paginated list at a version is exact, as in Kubernetes);
//     WATCH (?watch=true, or the legacy /watch/ paths); POST; PUT; PATCH;
//     DELETE with DeleteOptions in the body or the query
//     (propagationPolicy, orphanDependents, gracePeriodSeconds,
//     preconditions uid and resourceVersion); DELETE of a collection
//     (deletecollection, with the list's selectors); the status
//     subresource (GET, PUT, PATCH: cluster.Store.UpdateStatus) of every
//     kind with a status; the scale subresource (autoscaling/v1 Scale,
//     GET, PUT, PATCH: the store's GetScale and UpdateScale of
//     client.Resource) of deployments, replica sets, stateful sets,
//     replication controllers and registered kinds with Scale; the binding subresource of pods (POST a
//     core/v1 Binding: cluster.Bind, 201 with a Success Status, 409 for a
//     pod already bound); the eviction subresource of pods (POST a
//     policy/v1 or v1beta1 Eviction: cluster.Evict, 201 with a Success
//     Status, 429 TooManyRequests with a DisruptionBudget cause when the
//     pod's PodDisruptionBudget allows no disruption, 500 for a pod under
//     several budgets, as kube-apiserver).
//   - Pods' log subresource (podlog.go): a deterministic simulated log
//     of one run of a container — a start line, the lines the pod
//     annotation LogAnnotation scripts, a ready line, an exit line —
//     with core/v1 PodLogOptions: container, previous, timestamps
//     (RFC 3339 with nanoseconds), sinceSeconds, sinceTime, tailLines,
//     limitBytes (422 Invalid for values kube refuses, 400 for malformed
//     ones) and follow, which streams the lines appended to the
//     annotation until the run ends, the pod goes, the client goes or
//     MaxWatchTimeout; kube's 400s for a missing container name with
//     several containers, an unknown container, no previous run, a
//     container waiting to start; an unscheduled pod's log is empty.
//   - Pods' exec and attach subresources (exec.go, execsim.go) over
//     WebSocket (package stream), subprotocols v5.channel.k8s.io and
//     v4.channel.k8s.io, or over SPDY/3.1 (exec_spdy.go; kubectl's and
//     client-go's fallback), X-Stream-Protocol-Version v4.channel.k8s.io,
//     v3, v2 or channel.k8s.io as the kubelet serves them (none offered:
//     400; none in common: 403 listing them): the client opens its
//     streams by streamType (error, stdin, stdout, stderr — none with a
//     tty — and, from v3 with a tty, resize), all within 30 s; a stream
//     of an unknown type, a duplicate or a later one is reset; v4's error
//     stream carries the Status, the older ones the error's text; every
//     stream ends (FIN) with the command. Both transports share the
//     command code: stdin (v5 close signal; SPDY: the stream's FIN), a
//     tty's resizes (what stty size answers), stdout, stderr and
//     the error channel's Status (Success, or NonZeroExitCode with an
//     ExitCode cause: kubectl exits with it). Over WebSocket a command
//     starts after an exec start latency (100 ms): kubectl v1.32's
//     client drops what arrives before it has made its streams. exec
//     runs a simulated
//     command set over the container's environment and the files of
//     its ConfigMap and Secret volumes: echo, cat, env, printenv,
//     hostname, ls, pwd, sleep, true, false, tar (c: kubectl cp from a
//     pod; x: refused, read-only) and sh (-c, or lines from stdin) with
//     lists joined by ;, && and || and exit N; an unknown executable is
//     126 with the OCI runtime's message (127 "not found" under sh).
//     attach streams the container's log as follow does. Mistakes are
//     Statuses before the upgrade (400: no stream asked for, no command,
//     unknown container, a container not running, a completed pod;
//     404; 405). Ephemeral containers are reached like the others. Each
//     WebSocket stream is bounded: 1 MiB messages,
//     4 buffered stdin messages, a 2 min idle timeout (client-go pings
//     every 5 s), 30 s per write. These requests, like a followed log,
//     are long-running: not bound by RequestTimeout nor counted in
//     flight. SPDY connections have package stream's SPDY limits (128
//     streams, 1 MiB buffered per stream).
//   - pods/{name}/ephemeralcontainers (ephemeral.go; kubectl debug):
//     GET returns the pod; PUT and PATCH (strategic merge: the list
//     merges by name) write spec.ephemeralContainers only
//     (cluster.Cluster.UpdateEphemeralContainers: kube's validation —
//     names unique among all containers, no ports, probes, lifecycle
//     or resources, an existing targetContainerName, existing ones
//     neither removed nor changed, none on a static pod; 422).
//     Discovery lists it (kind Pod; get, patch, update).
//   - pods/{name}/portforward (kubectl port-forward; portforward.go) is
//     served with Options.PortForward (ctrlkit up: the kubelet
//     simulation's Ports): after kube's checks (the pod exists, has a
//     node, is Running; 404 or 400) it upgrades to SPDY/3.1 tunnelled
//     in WebSocket ("SPDY/3.1+portforward.k8s.io", kubectl v1.31+) or
//     plain (Upgrade: SPDY/3.1, X-Stream-Protocol-Version
//     portforward.k8s.io; another version is 403) and serves
//     portforward.k8s.io: an error and a data stream per connection,
//     paired by requestID within 30 s; the data stream carries the
//     connection to the port, the error stream the kubelet's error
//     text (a refused port), and both end with it. Deleting the pod
//     ends the connection (GOAWAY; kubectl: "lost connection to pod").
//     Bounded by package stream's SPDY limits (128 streams, 1 MiB
//     buffered per stream) and the PortForwarder's. Without
//     Options.PortForward the request is 400.
//   - Watches stream JSON WatchEvents ({"type","object"}), one per line,
//     flushed as they happen. resourceVersion "" or "0" first sends the
//     current state as ADDED events (Kubernetes' legacy semantics);
//     sendInitialEvents=true (with resourceVersionMatch=NotOlderThan and
//     allowWatchBookmarks=true) does the same and then sends a BOOKMARK
//     annotated k8s.io/initial-events-end="true"; sendInitialEvents=false
//     starts at the version given or now. allowWatchBookmarks passes on
//     the bookmarks the store sends. A version the store no longer holds
//     ends the stream with an ERROR event carrying a 410 Expired Status,
//     as the watch cache does; a malformed resourceVersion (or any other
//     mistake) is answered with its Status before the stream starts.
//     Each event is encoded once for every watch of it (a bounded cache
//     keyed by the object's resourceVersion and form, 64 MiB and 8,192
//     entries; Tables are each watch's own), so a thousand watchers of an
//     object cost one encoding of each write, not a thousand.
//   - PATCH with application/merge-patch+json, application/json-patch+json
//     and application/strategic-merge-patch+json (package patch, which
//     knows the merge keys of the built-in kinds); a patch that sets no
//     resourceVersion is retried on a conflicting write, as kube-apiserver
//     does. A malformed patch is 400; one that cannot be applied (a
//     failed JSON patch operation or test) is 422, as upstream answers.
//     A strategic merge patch of a kind added with api.Register is 415,
//     as kube-apiserver answers for custom resources.
//   - Server-side apply and managedFields only with Options.FieldManager
//     (the nested module ssa implements it; apply.go): every create,
//     update, patch and status write then records an Update entry for
//     its field manager (the fieldManager parameter, else the
//     User-Agent up to its first "/"; at most 128 printable bytes, else
//     422), and PATCH application/apply-patch+yaml applies, creating a
//     missing object: fieldManager is required (422 `fieldManager:
//     Required value: is required for apply patch`), force=true takes
//     over other managers' fields, a conflict is the field manager's 409
//     Conflict with FieldManagerConflict causes, dryRun, admission and
//     validation apply as to any write; force on another patch is 422.
//     A field manager that is a ScaleFieldManager (ssa's is) manages
//     the scale subresource as kube-apiserver's ScaleHandler does: a
//     PUT or PATCH of the Scale, and a server-side apply of an
//     autoscaling/v1 Scale, are managed with subresource "scale" on the
//     Scale, whose managedFields are the parent's owners of its replicas
//     (spec.replicas; a custom resource's specReplicasPath), and merged
//     back into the parent's, so a scale takes the replicas from the
//     parent's appliers and applying it conflicts with them (409, force
//     takes over). Without a field
//     manager apply is 415, its message naming the build that serves it
//     (cd crdcel && go run ./cmd/ctrlkit up), and managedFields are
//     stored as sent (a Scale's are ignored).
//   - Request bodies must carry a Content-Type the endpoint accepts:
//     application/json or application/yaml for POST, PUT and a
//     DeleteOptions body (and application/vnd.kubernetes.protobuf for a
//     built-in kind with a protobuf form: package protobuf converts it to
//     JSON; malformed protobuf is 400 BadRequest), the three patch types
//     (and apply, with a field manager) for PATCH; anything else,
//     or none, is 415 UnsupportedMediaType before anything is looked up
//     or read. So a cross-site "no-cors" POST from a web page (text/plain,
//     a form, or no type) never creates anything.
//   - Errors are metav1.Status objects: 404 NotFound, 409 AlreadyExists
//     and Conflict, 422 Invalid with one cause per field error of a
//     *cluster.InvalidError (its field path and FieldValueRequired,
//     FieldValueInvalid, ...), 403 Forbidden, 400 BadRequest (selectors,
//     bodies, bad patches, a malformed resourceVersion — "invalid
//     resource version" — or continue token — "invalid continue token"),
//     405 MethodNotAllowed (also for methods other than GET, HEAD, POST,
//     PUT, PATCH and DELETE, on every path), 410 Expired, 413
//     RequestEntityTooLarge, 415 UnsupportedMediaType, 429
//     TooManyRequests, 504 Timeout (the request timeout, and with cause
//     ResourceVersionTooLarge for a version from the future), 500
//     InternalError otherwise. A 404 always carries details (name, group
//     and resource when known), as kube-apiserver's. An admission function
//     whose error is (or wraps) a *cluster.InvalidError is 422 Invalid with
//     its field causes (cronjob.Admission's spec.schedule).
//   - Tables: an Accept of application/json;as=Table;g=meta.k8s.io;v=v1
//     gets a meta.k8s.io/v1 Table with the kind's registered columns
//     (api.KindInfo.Columns), kubectl's usual columns for pods
//     (NAME READY STATUS RESTARTS AGE, and IP, NODE, NOMINATED NODE,
//     READINESS GATES for -o wide), deployments, replica sets, stateful
//     sets, daemon sets, jobs, cron jobs, services, endpoints, nodes,
//     namespaces and events, and NAME AGE for the other kinds; rows carry
//     the object as includeObject asks (Metadata by default, Object,
//     None). Watches send one-row Tables, with the column definitions in
//     the first event only. as=PartialObjectMetadata(List) gets metadata
//     only, for client-go's metadata client.
//   - OpenAPI: /openapi/v3 (the index of the documents, each URL with
//     the hash of its document), /openapi/v3/api/v1 and
//     /openapi/v3/apis/<group>/<version>, and /openapi/v2 (JSON; its
//     protobuf form is 406, which kubectl tolerates). Package
//     controllers/openapi builds them from the Go types of the kinds
//     served and their doc comments, with kube's definition names,
//     x-kubernetes-* extensions and paths; a CustomResourceDefinition's
//     kind is described by its schema. They are built at the first
//     request and again only when the kinds served change (a kind
//     registered, a CustomResourceDefinition created, changed or
//     deleted), and served from memory with an ETag (304 on
//     If-None-Match), gzip when asked, and, for a v3 document asked for
//     with its current hash, Cache-Control: public, immutable (an
//     outdated hash is redirected to the current one, 301, as
//     kube-apiserver does). kubectl explain reads the v3 documents.
//     kubectl apply, create and replace (validation on by default,
//     --validate=true or strict) find there that the server validates
//     fields itself, send fieldValidation=Strict, and the server decodes
//     strictly: a manifest with an unknown field is refused with kube's
//     "strict decoding error: unknown field" message, and
//     --validate=false is never needed. kubectl apply computes a built-in
//     kind's strategic merge patch from the v3 schemas' patch strategies.
//
// # Limits and timeouts
//
// As kube-apiserver's, with its defaults:
//
//   - Request bodies (DeleteOptions included) up to 3 MiB: 413 beyond.
//   - Options.RequestTimeout, 60 s (--request-timeout): every request but
//     a watch runs under a context that ends then (504 Timeout), and its
//     body must have arrived by then (the connection's read deadline: a
//     client that holds a half-sent body is cut off with a 504); the
//     answer must be taken within another RequestTimeout (the write
//     deadline).
//   - Watches: timeoutSeconds is honoured up to twice
//     Options.MaxWatchTimeout; without it a watch ends after a random
//     duration between MaxWatchTimeout (30 min, --min-request-timeout)
//     and twice it, so that clients do not all re-list at once.
//   - Options.MaxRequestsInFlight, 400 read-only requests (watches are
//     long-running and not counted), and
//     Options.MaxMutatingRequestsInFlight, 200 POST, PUT, PATCH and
//     DELETE requests, served at once; beyond them 429 TooManyRequests
//     with Retry-After: 1.
//   - Options.MaxListsInFlight, 16 LISTs (and deletecollections) reading
//     and encoding a list at once, the others waiting for a slot until
//     their context ends (then 429); a list is encoded one item at a time
//     as it is written, never held whole.
//   - Serve's http.Server (NewHTTPServer, for a caller with its own
//     listener): ReadHeaderTimeout 10 s, IdleTimeout 90 s; no ReadTimeout
//     or WriteTimeout, which would cut watches (ServeHTTP sets each
//     request's deadlines instead); net/http's 1 MB header limit.
//
// # Protobuf
//
// A client whose Accept prefers application/vnd.kubernetes.protobuf gets
// objects, lists, Scales and watch streams (;stream=watch) of built-in
// kinds in protobuf (package protobuf); anything without a protobuf form
// (own kinds, custom resources, tables) is JSON when the client accepts
// JSON, else 406 NotAcceptable. Error Statuses are JSON unless the client
// accepts only protobuf. PartialObjectMetadata and its list are asked
// for in protobuf (application/vnd.kubernetes.protobuf;as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1,
// client-go's metadata client's first choice) and answered so for get,
// list and watch of every kind, custom resources included, as
// kube-apiserver answers. A Table has no protobuf form
// (meta.k8s.io/v1 Table is not a protobuf message): a protobuf as=Table
// entry is passed over, and when nothing else in the Accept header is
// offered the answer is kube's 406 ("only the following media types are
// accepted: application/json, application/yaml,
// application/vnd.kubernetes.protobuf").
//
// # Dry run
//
// dryRun=All (the query parameter, or a DeleteOptions' dryRun) is
// served on every write: create, update, patch, delete,
// deletecollection, the status, scale, binding and eviction
// subresources. The request runs as it would — defaulting,
// generateName, uid and creationTimestamp, validation, mutating and
// validating admission (which see Attributes.DryRun; webhooks get
// dryRun true and one whose sideEffects are not None or NoneOnDryRun
// refuses) — and answers the object it would store, but nothing is
// stored (cluster.WithDryRun): no resourceVersion is taken (a created
// object has none), no watcher sees an event, no quota is charged and
// no disruption budget decremented. Another value is 422 Invalid
// (Unsupported value, as kube-apiserver's option validation); a GET
// ignores dryRun.
//
// # Metrics
//
// Server.Instrument wraps the server to record kube-apiserver's
// apiserver_request_total and apiserver_request_duration_seconds in a
// metrics.Registry, with labels bounded as kube's: a path naming no
// served resource is recorded with empty resource labels.
// Options.ResourceUsage serves the resource metrics API,
// metrics.k8s.io/v1beta1 PodMetrics and NodeMetrics (list, get,
// labelSelector), as metrics-server does, for kubectl top.
//
// # Authorization
//
// The requester is the identity the request's context carries
// (rbac.WithUser, set by the authentication in front of the Server —
// package serving maps its bearer token to kubernetes-admin in
// system:masters), else the admin's; Impersonate-User, -Group and -Uid
// are applied when RBAC lets the requester impersonate. With
// Options.AuthorizationMode AuthorizationRBAC a request RBAC does not
// allow is kube-apiserver's 403 Forbidden; AuthorizationAlwaysAllow (the
// default) serves it. SelfSubjectAccessReview, SubjectAccessReview,
// LocalSubjectAccessReview, SelfSubjectRulesReview and SelfSubjectReview
// answer by RBAC in both modes (kubectl auth can-i, kubectl auth whoami).
// Under RBAC, roles and bindings are also checked for escalation as
// kube-apiserver's RBAC storage checks them (escalation.go): a Role or
// ClusterRole may grant only rules its writer holds unless the writer
// may "escalate" it, and a ClusterRole's aggregationRule takes every
// permission; a RoleBinding or ClusterRoleBinding may bind only a role
// whose rules its writer holds unless the writer may "bind" it — 403
// with kube's "is attempting to grant RBAC permissions not currently
// held" message; system:masters is never checked. Every write carries
// its requester into admission (admission.WithRequest), so admission
// plugins and webhooks see the request's userInfo.
//
// # Service account tokens
//
// With Options.ServiceAccountTokens (a satoken.Issuer) the
// serviceaccounts/token subresource is served as kube-apiserver's
// TokenREST (token.go): a TokenRequest (JSON or protobuf: `kubectl
// create token`) for an existing service account gets a signed JWT for
// spec.audiences (default the API audiences) valid expirationSeconds
// (default 3600; 422 below 600 or above 2^32, with kube's messages;
// capped at Options.ServiceAccountMaxTokenExpiration with kube's
// warning), optionally bound to a Pod of that service account (its node
// named too), a Secret or a Node, with kube's 400, 404 and 409 answers
// for a mismatched name, namespace or UID. AuthenticateToken is the
// authenticator the handler in front asks about a bearer token: the
// token's signature, issuer, audience and times, then the service
// account and the bound object must still exist with the same UIDs
// (deleted more than a minute ago: invalidated). The user is
// system:serviceaccount:NS:NAME in system:serviceaccounts,
// system:serviceaccounts:NS and system:authenticated, with kube's extra
// keys (pod name and UID, node name and UID, credential id JTI=…), so
// RBAC's ServiceAccount subjects govern it. TokenReview
// (authentication.k8s.io/v1) answers whether a token authenticates, for
// which audiences. Without an issuer, the subresource is 404 and absent
// from discovery, as kube-apiserver without --service-account-issuer;
// webhook-bound tokens and attestations are not served.
//
// # Not served
//
// Authentication other than what the handler in front provides and
// service account tokens; audit; admission webhooks are the
// cluster's (package webhook), not the Server's;
// server-side apply and managedFields; CBOR; protobuf for
// kinds other than the built-in ones client-go knows (see Protobuf);
// conversion webhooks of
// CustomResourceDefinitions, CEL validation rules, aggregated APIs and aggregated discovery; API versions other than each
// kind's current one (no conversion: apps/v1beta1 is not served), but
// autoscaling/v1 HorizontalPodAutoscaler;
// port-forward without Options.PortForward (a 400 Status after kube's
// checks, which kubectl prints) and proxy (404);
// the scale and watch paths in the OpenAPI documents; periodic bookmarks
// beyond what the store sends; the resourceVersion semantics the store
// does not have (see package cluster).
//
// # Concurrency
//
// A Server is safe for concurrent use and starts no goroutine: each
// request, watches included, runs in the goroutine net/http gives it.
package apiserver

// Package webhook calls admission webhooks as kube-apiserver does: the
// webhooks of the cluster's ValidatingWebhookConfigurations and
// MutatingWebhookConfigurations (admissionregistration.k8s.io/v1), over
// HTTPS, with an AdmissionReview v1, for built-in and own kinds, so that
// an operator's webhooks are tested in the same in-process run as its
// controllers.
//
// # Wiring
//
// A Dispatcher is two admission plugins: Mutate (an
// admission.MutatingFunc) and Validate (an admission.ValidatingFunc). Put
// them in the cluster's admission chain, then give the dispatcher the
// cluster, through which it reads the configurations and namespaces:
//
//	d := webhook.New(webhook.Options{})
//	c, err := cluster.New(ctx, cluster.Options{Mutating: []cluster.MutatingFunc{d.Mutate}, Admission: []cluster.AdmissionFunc{d.Validate}})
//	d.SetClient(c)
//
// controlplane.Options.Webhooks does this for a control plane (and
// `ctrlkit up`). The configurations are listed on each request (the
// in-process store answers from memory), so a configuration applies from
// the write after its create.
//
// # Serving
//
// Validating[T] is the other side: the http.Handler of a validating
// webhook for kind T, typed (its ValidateFunc gets the object and the old
// one as T) and answering AdmissionReviews as the dispatcher and
// kube-apiserver expect; serve it over HTTPS and name it, with its CA
// bundle, in a ValidatingWebhookConfiguration.
//
// # Contract
//
//   - Matching: a webhook is called when one of its rules matches the
//     operation (CREATE, UPDATE, DELETE, CONNECT or "*"), the group,
//     version and resource with subresource ("pods", "pods/status",
//     "pods/*", "*/status", "*", "*/*") and the scope (Cluster matches
//     cluster-scoped objects and Namespaces, Namespaced the objects in a
//     namespace); its namespaceSelector matches the labels of the
//     object's namespace (a Namespace's own labels; cluster-scoped
//     objects always match); and its objectSelector matches the labels of
//     the new or the old object; then its matchConditions (CEL) must all
//     hold, evaluated by Options.MatchConditions on the request the
//     webhook would be sent: one false skips the webhook; one that cannot
//     be evaluated (none false) refuses the write with 403 Forbidden under
//     failurePolicy Fail and skips the webhook under Ignore, as
//     kube-apiserver does. The core module has no CEL: without
//     Options.MatchConditions (the crdcel module's crdcel.MatchConditions
//     provides it) a webhook with matchConditions is called as if they
//     all held, so it sees a superset of the requests kube-apiserver would
//     send it (its own checks still decide).
//   - The webhook configurations themselves are never sent to webhooks,
//     as kube-apiserver exempts them, so a broken webhook cannot lock
//     its own configuration.
//   - The call: a POST of an AdmissionReview (admission.k8s.io/v1, or
//     v1beta1 when that is the first version the webhook lists; the same
//     fields) with a fresh uid, kind, resource, subResource, requestKind,
//     requestResource, name, namespace, operation, userInfo, object,
//     oldObject, dryRun and options, to clientConfig.url or, for a
//     service, to Options.ServiceURL (default
//     https://NAME.NAMESPACE.svc:PORT/PATH, the certificate verified for
//     NAME.NAMESPACE.svc). The server's certificate is verified against
//     caBundle (the system roots, or Options.RootCAs, when it is empty).
//     The call is given up after timeoutSeconds.
//   - The answer must be an AdmissionReview of the version sent whose
//     response.uid is the request's; a patch must come with patchType
//     JSONPatch and only from a mutating webhook. Warnings go to
//     Options.Warn, by default to admission.Warn: the API server answers
//     the request with them as Warning headers (kubectl prints
//     "Warning: ..."), refused or not, as kube-apiserver does.
//   - Failures: a call that cannot be made, fails TLS, times out,
//     answers a non-2xx status or an invalid review is ignored with
//     failurePolicy Ignore; with Fail (the default) the write fails with
//     a *CallError, `failed calling webhook "NAME": ...`, which wraps no
//     sentinel of the client contract, so the API server answers 500
//     Internal Error, as kube-apiserver does.
//   - Refusals: a response with allowed false fails the write with a
//     *DeniedError, `admission webhook "NAME" denied the request: MSG`,
//     whose code is the webhook's status code, or 400 when it gave none
//     (or one below 400); it wraps client.ErrForbidden for 403 (and the
//     sentinels of 404, 409 and other 4xx codes) for in-process callers,
//     and the API server answers with the webhook's code and reason and
//     that message alone (DeniedError.APIStatus), as kube-apiserver
//     does.
//   - Mutating webhooks run first, one at a time, ordered by
//     configuration name and then by their order in it; each JSON patch
//     (RFC 6902) is applied to the object the next webhook sees and the
//     cluster stores. A webhook with reinvocationPolicy IfNeeded whose
//     call was followed by another webhook's change is called once more,
//     after the first round. An object a patch changed is validated
//     again (422 when the patch made it invalid) and, on an update whose
//     spec a patch changed, its metadata.generation is bumped, as
//     kube-apiserver does. Validating webhooks run next, in parallel;
//     the error reported is the first in their order.
//   - DELETE: the cluster runs admission on a delete once its
//     preconditions hold; the review has operation DELETE, object null,
//     the stored object as oldObject and the DeleteOptions as options. A
//     refusal fails the delete and keeps the object. A mutating webhook
//     is called too, but its patch is refused, `admission webhook "NAME"
//     attempted to modify the object, which is not supported for this
//     operation` (500), as kube-apiserver refuses it.
//   - Dry run: a request with Attributes.DryRun set is refused (400,
//     `admission webhook "NAME" does not support dry run`) by a matching
//     webhook whose sideEffects are neither None nor NoneOnDryRun; others
//     receive dryRun true.
//
// # Limits
//
// A patch may not change the object's name, namespace or uid (the write
// fails, 500). The in-process cluster has no dry run and no user, so
// dryRun is false and userInfo empty in the reviews it causes. A
// matchCondition that does not compile is found when the webhook would
// be called (an evaluation error, under the failure policy), where
// kube-apiserver refuses the configuration's write.
package webhook

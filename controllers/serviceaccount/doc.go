// Package serviceaccount is kube-controller-manager's service account
// controller and kube-apiserver's ServiceAccount admission plugin.
//
// The controller (kcm's ServiceAccountsController) keeps the accounts of
// Options.Names — "default" unless told otherwise — in every namespace:
// a namespace added or updated is synced, and so is the namespace of a
// managed account that was deleted, so the account comes back. A sync
// (Missing, a pure function of the namespace and the accounts its cache
// holds) creates the missing accounts, unless the namespace is gone or
// terminating; an AlreadyExists (a cache behind) or a refusal by the
// namespace lifecycle check is not an error.
//
// Admission.Admit is an admission.MutatingFunc, for the server's
// mutating phase (the in-process cluster's Options.Mutating): a pod created without
// spec.serviceAccountName gets "default" (or its deprecated
// spec.serviceAccount), and a pod whose account does not exist is refused
// with the plugin's message, wrapping ErrNotFound. Mirror pods are left
// alone. Admit looks the account up through the client Admission.SetClient
// gave it.
//
// The controller and the plugin depend on the client contract (package
// controllers/client) and informers only; the in-process cluster is one
// implementation of that contract.
//
// Left out, deliberately: tokens — the token controller, the projected
// service account token volume the plugin adds to pods and its
// automountServiceAccountToken handling — image pull secrets copied from
// the account to the pod, the plugin's check that a pod only mounts the
// account's secrets, and the live-lookup retries of the plugin (the
// client is read directly, so there is no cache to lag).
package serviceaccount

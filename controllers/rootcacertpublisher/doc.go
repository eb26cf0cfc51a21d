// Package rootcacertpublisher is kube-controller-manager's root CA
// certificate publisher (root-ca-certificate-publisher-controller): every
// namespace gets a ConfigMap kube-root-ca.crt whose data ca.crt is the
// API server's CA bundle (Options.RootCA) and whose kubernetes.io/description
// annotation says what it is for, so that pods can verify the API server
// (the projected service-account volumes of a real cluster read it).
//
// As kcm's publisher: a namespace added, or updated while Active, is
// synced, and so is the namespace of a kube-root-ca.crt ConfigMap that is
// updated or deleted, so an edit is put back and a deletion recreated. A
// sync (Desired, a pure function of the ConfigMap the cache holds)
// creates the ConfigMap when it is missing, and otherwise replaces its
// data and sets the annotation when either differs, keeping its other
// labels and annotations. A create refused because the namespace is gone
// or terminating is not retried. Other ConfigMaps are never read or
// written.
//
// The publisher depends on the client contract (package
// controllers/client) and informers only. `ctrlkit up --listen` publishes
// the CA it serves with; an in-process control plane publishes
// manager.Options.RootCA (empty unless set).
package rootcacertpublisher

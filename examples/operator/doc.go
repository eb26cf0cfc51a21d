// Package operator is a complete operator on a kind of its own, written
// once against ctrlkit's typed client: a Website (sites.example.com/v1,
// registered with api.Register: printer columns, the status and scale
// subresources, defaulting and validation) asks for a Deployment of
// Replicas pods running Image and for an entry of its Host in a shared
// directory ConfigMap.
//
// The operator (New, Run) keeps, for each Website,
//   - a Deployment it controls, adopting an orphan its label names and
//     releasing one whose label no longer matches (ctrlutil.Claimer); a
//     Deployment of the same name it does not control is reported (event
//     and Ready condition DeploymentExists), not fought over;
//   - the directory entry, removed behind its finalizer when the Website
//     is deleted — state in another namespace that an owner reference
//     cannot clean up; the garbage collector deletes the Deployment;
//   - a status with the Deployment's replicas, a Ready condition and
//     observedGeneration, written only when it changes;
//   - events (Created, Unlisted, DeploymentExists).
//
// Its validating webhook (Webhook, served over HTTPS, and
// WebhookConfiguration, which names it with its CA bundle) refuses what
// the kind's Validate, seeing one object, cannot: a new Website whose
// host another Website already serves, and the deletion of a Website
// labelled ProtectedLabel=true (403).
//
// Its tests run it beside the whole in-process control plane in a
// testing/synctest bubble: created and ready, scaled through the scale
// subresource, a node lost (its pods evicted after the 300 s toleration
// and replaced, in virtual time), deleted behind the finalizer; adoption
// and release; validation; the webhook, served on an in-memory network
// (webhooktest) and called by the cluster on creates and deletes — in
// milliseconds of wall time. The same code runs against a real
// kube-apiserver, its CRD generated from the Go type by crdgen
// (realkube's TestOperatorOnRealServer).
package operator

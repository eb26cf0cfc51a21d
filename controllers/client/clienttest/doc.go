// Package clienttest is the conformance suite of the client contract
// (package controllers/client): every implementation of client.Client —
// the in-process cluster on memory and on etcd, the kube module's client
// of a real API server, ctrlkit's API server over HTTP, the recording
// fake — passes all of it. There are no capabilities to declare and no
// subtests to skip: what the suite asserts is what kube-apiserver does
// (its registry strategies, its generic store, its admission chain
// without kube-controller-manager), so a controller written against the
// contract behaves the same on each.
//
// An implementation's test calls Run with a constructor of clients:
//
//	func TestClientConformance(t *testing.T) {
//		clienttest.Run(t, func(t *testing.T) client.Client {
//			return newMyClient(t) // serving default, kube-system, kube-public
//		})
//	}
//
// Each subtest (Cases lists them) creates namespaces of its own, named
// clienttest-<random>-<n>, and a "default" service account in each (the
// ServiceAccount admission plugin of a real server refuses pods without
// one), so the constructor may hand every subtest the same client of a
// shared server. Nothing is cleaned up: objects left with a finalizer
// stay, as they would without a garbage collector.
//
// Run checks:
//
//   - Create: uid, generation 1, resourceVersion, creationTimestamp, the
//     kind's defaults and an empty status in the returned object;
//     metadata.generateName; IsAlreadyExists; IsInvalid with an
//     *client.InvalidError naming each field; IsNotFound in a missing
//     namespace. Get: IsNotFound, private copies.
//   - Update: a stale resourceVersion (the object's or ifVersion) is
//     IsConflict, none writes unconditionally, the object's uid is a
//     precondition, a no-op writes nothing (same resourceVersion, no
//     watch event), a spec change bumps the generation and a label change
//     does not, the status is ignored. UpdateStatus: the spec and labels
//     are ignored, the generation kept, the resourceVersion and uid are
//     preconditions; a kind without status is IsBadRequest or IsNotFound.
//   - Patch: JSON merge, JSON patch, strategic merge (a Deployment's
//     containers merged by name); a no-op writes nothing; a stale
//     metadata.resourceVersion is IsConflict; a failing test operation or
//     a changed uid IsInvalid.
//   - DeleteWith: uid and resourceVersion preconditions (IsConflict);
//     Background removes; Orphan and Foreground mark the object with the
//     "orphan" and "foregroundDeletion" finalizers; an object with a
//     finalizer is marked, then removed when an Update clears it; a pod
//     bound to a node is marked with its grace period and removed by a
//     grace-0 delete, an unbound one removed at once.
//   - Select, List and Watch: by namespace, label selector, the
//     metadata.name and (pods) spec.nodeName field selectors; an object
//     leaving a selection is Deleted, one entering it Added; a watch from
//     a List's resourceVersion sees the later writes only; a malformed
//     selector or an unsupported field is IsBadRequest (from Select or
//     from the List of what it returns).
//   - Scale: GetScale and UpdateScale of a Deployment, the scale's
//     resourceVersion as precondition, negative replicas IsInvalid, a
//     ConfigMap's scale source.ErrUnsupported.
//   - The predicates: every error the suite provokes satisfies exactly
//     the predicate it should, and none of the others.
//
// Run uses real time only where it waits for a watch event, each wait
// bounded (15 s) and each subtest's context too (60 s); it never sleeps.
// On the in-memory cluster the whole suite takes well under a second.
package clienttest

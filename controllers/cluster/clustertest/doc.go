// Package clustertest is the suite every cluster backend passes: Run
// checks, through a Cluster built on the backend, the write semantics of
// kube-apiserver that the cluster package promises (create, update,
// status, delete with finalizers, grace periods and propagation policies,
// namespace lifecycle, admission, filtered watches). It uses real time
// (no bubble), so it runs against a real etcd too; the time-exact tests
// live beside the cluster package.
//
// Drain is a test of a controller's shutdown over a cluster: Run returns
// only once the write in flight at the cancel is done, or with
// reconcile.ErrShutdownTimeout when it outlasts the shutdown timeout.
package clustertest

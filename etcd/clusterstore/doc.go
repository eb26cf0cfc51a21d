// Package clusterstore is the etcd backend of controllers/cluster: each
// resource of a cluster.Cluster is an etcd.Source of JSON values under
// Kubernetes' key layout, /registry/<resource>/<namespace>/<name> for
// namespaced kinds (/registry/pods/default/web-0) and
// /registry/<resource>/<name> for cluster-scoped ones (/registry/nodes/n1),
// so that `etcdctl get --prefix /registry/pods/` shows a cluster's pods as
// it would a real one's (in JSON rather than protobuf).
//
// # Usage
//
//	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints})
//	c, err := cluster.New(ctx, cluster.Options{Backend: clusterstore.New(cli, clusterstore.Options{})})
//
// Several Cluster values over the same etcd and prefix are one cluster:
// every write is an etcd transaction conditional on the revision read, so
// kube-apiserver's semantics hold across processes. ResourceVersions are
// etcd revisions.
package clusterstore

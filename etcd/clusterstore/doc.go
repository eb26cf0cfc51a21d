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
//
// # Object size
//
// The cluster refuses objects over cluster.Options.MaxObjectBytes (1.5
// MiB of JSON by default, etcd's default --max-request-bytes) before they
// reach etcd; an etcd started with a smaller --max-request-bytes, or a
// cluster limit raised above etcd's, makes etcd refuse the write with
// "request is too large", which this backend wraps in cluster.ErrTooLarge
// as well. The client's own limit on a message it sends (2 MiB by
// default, clientv3.Config.MaxCallSendMsgSize) is not mapped: keep
// MaxObjectBytes under it.
package clusterstore

package managercmd

import (
	"context"
	"fmt"
	"strconv"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/kube"
	"github.com/ctrlkit/ctrlkit/source"
)

// Ordered returns c with resourceVersions read as decimal integers: every
// resource (and each of its Selects) is a source.VersionComparer, as
// kube.Ordered makes a Source one. The manager needs it: before a new
// leader's controllers start, it waits until every informer has caught
// up with the server's latest version (informer.WaitForLatest), which
// compares versions. Kubernetes calls resourceVersions opaque; every
// etcd-backed API server (kube-apiserver, ctrlkit's) issues etcd
// revisions, which are ordered. A version that is not a decimal integer
// makes the comparison fail, and the manager retries its campaign.
func Ordered(c *kube.Client) client.Client { return orderedClient{c} }

type orderedClient struct{ *kube.Client }

// ResourceFor implements client.Client: the kube.Client's resource of
// gvk, made a VersionComparer.
func (c orderedClient) ResourceFor(gvk api.GroupVersionKind) (client.Untyped, error) {
	u, err := c.Client.ResourceFor(gvk)
	if err != nil {
		return nil, err
	}
	switch r := u.(type) {
	case client.Resource[*api.Pod]:
		return ordered(r), nil
	case client.Resource[*api.Node]:
		return ordered(r), nil
	case client.Resource[*api.Service]:
		return ordered(r), nil
	case client.Resource[*api.Endpoints]:
		return ordered(r), nil
	case client.Resource[*api.ReplicaSet]:
		return ordered(r), nil
	case client.Resource[*api.ReplicationController]:
		return ordered(r), nil
	case client.Resource[*api.Deployment]:
		return ordered(r), nil
	case client.Resource[*api.StatefulSet]:
		return ordered(r), nil
	case client.Resource[*api.DaemonSet]:
		return ordered(r), nil
	case client.Resource[*api.ControllerRevision]:
		return ordered(r), nil
	case client.Resource[*api.Job]:
		return ordered(r), nil
	case client.Resource[*api.CronJob]:
		return ordered(r), nil
	case client.Resource[*api.Namespace]:
		return ordered(r), nil
	case client.Resource[*api.ResourceQuota]:
		return ordered(r), nil
	case client.Resource[*api.ServiceAccount]:
		return ordered(r), nil
	case client.Resource[*api.ConfigMap]:
		return ordered(r), nil
	case client.Resource[*api.Secret]:
		return ordered(r), nil
	case client.Resource[*api.PersistentVolume]:
		return ordered(r), nil
	case client.Resource[*api.PersistentVolumeClaim]:
		return ordered(r), nil
	case client.Resource[*api.StorageClass]:
		return ordered(r), nil
	case client.Resource[*api.HorizontalPodAutoscaler]:
		return ordered(r), nil
	case client.Resource[*api.Lease]:
		return ordered(r), nil
	case client.Resource[*api.Event]:
		return ordered(r), nil
	}
	return u, nil // a kind added later: served, unordered
}

func ordered[T api.Object](r client.Resource[T]) client.Resource[T] {
	return orderedResource[T]{r}
}

// inner names the embedded resource (its own name, Resource, is taken by
// the method).
type inner[T api.Object] = client.Resource[T]

type orderedResource[T api.Object] struct{ inner[T] }

func (orderedResource[T]) CompareResourceVersions(a, b string) (int, error) { return compare(a, b) }

func (r orderedResource[T]) Select(opts client.SelectOptions) (source.ListWatcher[T], error) {
	lw, err := r.inner.Select(opts)
	if err != nil {
		return nil, err
	}
	return orderedLW[T]{lw}, nil
}

type orderedLW[T any] struct{ source.ListWatcher[T] }

func (orderedLW[T]) CompareResourceVersions(a, b string) (int, error) { return compare(a, b) }

func compare(a, b string) (int, error) {
	x, err := strconv.ParseUint(a, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("managercmd: resourceVersion %q is not a decimal integer", a)
	}
	y, err := strconv.ParseUint(b, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("managercmd: resourceVersion %q is not a decimal integer", b)
	}
	switch {
	case x < y:
		return -1, nil
	case x > y:
		return 1, nil
	}
	return 0, nil
}

// Bind implements client.Binder with the kube.Client's.
func (c orderedClient) Bind(ctx context.Context, namespace, name, nodeName string) (string, error) {
	return c.Client.Bind(ctx, namespace, name, nodeName)
}

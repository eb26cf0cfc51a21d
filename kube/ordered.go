package kube

import (
	"fmt"
	"strconv"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/source"
)

// Ordered is a Source that also implements source.VersionComparer by
// reading resourceVersions as unsigned decimal integers. Kubernetes' API
// conventions tell clients to treat resourceVersions as opaque, so a
// plain Source does not compare them; every etcd-backed API server
// (kube-apiserver and the servers built on k8s.io/apiserver) issues etcd
// revisions, which are ordered, and a caller who relies on that opts in
// with Ordered[T]{src}. The reflector and the informer then refuse to
// travel back in time.
type Ordered[T Object] struct {
	*Source[T]
}

// CompareResourceVersions implements source.VersionComparer.
func (Ordered[T]) CompareResourceVersions(a, b string) (int, error) {
	return compareRevisions(a, b)
}

// compareRevisions orders two resourceVersions read as etcd revisions.
func compareRevisions(a, b string) (int, error) {
	x, err := parseVersion(a)
	if err != nil {
		return 0, err
	}
	y, err := parseVersion(b)
	if err != nil {
		return 0, err
	}
	switch {
	case x < y:
		return -1, nil
	case x > y:
		return 1, nil
	}
	return 0, nil
}

// parseVersion reads an etcd revision. "0" is accepted as the least of
// all: a server over an empty store lists at it (ctrlkit's does), and it
// is the version every other one follows.
func parseVersion(v string) (uint64, error) {
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("kube: resourceVersion %q is not a decimal integer", v)
	}
	return n, nil
}

// orderedResource is the Resource a Client with
// ClientOptions.OrderedVersions hands out: a source.VersionComparer,
// whose selections are too.
type orderedResource[T api.Object] struct {
	*plain[T]
}

// plain names Resource as a field of orderedResource (a field named
// Resource would hide the method Resource).
type plain[T api.Object] = Resource[T]

// CompareResourceVersions implements source.VersionComparer.
func (*orderedResource[T]) CompareResourceVersions(a, b string) (int, error) {
	return compareRevisions(a, b)
}

// Select is Resource.Select, ordered.
func (o *orderedResource[T]) Select(opts client.SelectOptions) (source.ListWatcher[T], error) {
	lw, err := o.plain.Select(opts)
	if err != nil {
		return nil, err
	}
	return &orderedSelection[T]{lw.(*selection[T])}, nil
}

// orderedSelection is a selection of an orderedResource.
type orderedSelection[T api.Object] struct {
	*selection[T]
}

// CompareResourceVersions implements source.VersionComparer.
func (*orderedSelection[T]) CompareResourceVersions(a, b string) (int, error) {
	return compareRevisions(a, b)
}

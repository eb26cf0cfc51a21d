package manifests

import (
	"embed"
	"errors"
	"io/fs"
	"slices"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// FS holds the manifests of the demo set.
//
//go:embed *.yaml *.json
var FS embed.FS

// Load decodes every manifest of the demo set and returns the objects in
// the order they are applied (see Order), with an error for each
// document that did not decode (none, in the files shipped).
func Load() ([]api.Object, error) {
	return LoadFS(FS)
}

// LoadFS decodes every .yaml, .yml and .json file at the top of fsys, in
// file-name order, strictly (unknown fields are errors naming the file,
// the document and the field), and returns the objects that decoded,
// ordered by Order, with the errors of those that did not.
func LoadFS(fsys fs.FS) ([]api.Object, error) {
	return DecodeFS(fsys, api.DecodeOptions{})
}

// DecodeFS is LoadFS with opts for every file (their Source is the file's
// name).
func DecodeFS(fsys fs.FS, opts api.DecodeOptions) ([]api.Object, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var objs []api.Object
	var errs []error
	for _, e := range entries {
		if e.IsDir() || !isManifest(e.Name()) {
			continue
		}
		data, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			errs = append(errs, err)
			continue
		}
		opts.Source = e.Name()
		o, err := api.Decode(data, opts)
		objs = append(objs, o...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	DefaultNamespace(objs, "default")
	Order(objs)
	return objs, errors.Join(errs...)
}

// DefaultNamespace puts every namespaced object without a namespace in
// ns, as kubectl apply does with its context's namespace.
func DefaultNamespace(objs []api.Object, ns string) {
	for _, o := range objs {
		if m := o.GetObjectMeta(); m.Namespace == "" && api.IsNamespaced(o.GroupVersionKind().Kind) {
			m.Namespace = ns
		}
	}
}

func isManifest(name string) bool {
	for _, ext := range []string{".yaml", ".yml", ".json"} {
		if len(name) > len(ext) && name[len(name)-len(ext):] == ext {
			return true
		}
	}
	return false
}

// kindOrder is the order kinds are applied in, as Helm installs them:
// what others refer to first (namespaces, storage, quotas, accounts,
// configuration, services), then workloads, then bare pods.
var kindOrder = []string{
	"Namespace", "ResourceQuota", "StorageClass", "PersistentVolume", "PersistentVolumeClaim",
	"ServiceAccount", "Secret", "ConfigMap", "Node", "Service", "Endpoints",
	"DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
	"HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob",
}

// Order sorts objs, stably, by kind in the order they must be applied:
// namespaces and what others refer to first, workloads after. Kinds it
// does not list go last.
func Order(objs []api.Object) {
	rank := func(o api.Object) int {
		if i := slices.Index(kindOrder, o.GroupVersionKind().Kind); i >= 0 {
			return i
		}
		return len(kindOrder)
	}
	slices.SortStableFunc(objs, func(a, b api.Object) int { return rank(a) - rank(b) })
}

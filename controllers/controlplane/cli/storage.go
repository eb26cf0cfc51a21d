package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/persistentvolume"
	"github.com/ctrlkit/ctrlkit/source"
)

// DefaultStorageClassName is the name of the StorageClass ctrlkit up
// installs, as kind's.
const DefaultStorageClassName = "standard"

// DefaultStorageClass returns the StorageClass ctrlkit up installs, kind's
// "standard": the default class (storageclass.kubernetes.io/is-default-class
// "true"), provisioner rancher.io/local-path (simulated by the
// PersistentVolume controller), volumeBindingMode WaitForFirstConsumer,
// reclaimPolicy Delete.
func DefaultStorageClass() *api.StorageClass {
	mode := persistentvolume.BindingWaitForFirstConsumer
	policy := api.PersistentVolumeReclaimPolicy("Delete")
	return &api.StorageClass{
		TypeMeta: api.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "StorageClass"},
		ObjectMeta: api.ObjectMeta{Name: DefaultStorageClassName,
			Annotations: map[string]string{persistentvolume.AnnDefaultStorageClass: "true"}},
		Provisioner:       "rancher.io/local-path",
		ReclaimPolicy:     &policy,
		VolumeBindingMode: &mode,
	}
}

// installDefaultStorageClass creates DefaultStorageClass unless a
// default StorageClass, or a class of its name, already exists in the
// cluster (a kept etcd store) or is among the objects about to be
// applied. It reports whether it created the class.
func installDefaultStorageClass(ctx context.Context, c *cluster.Cluster, objs []api.Object) (bool, error) {
	isDefault := func(sc *api.StorageClass) bool {
		return sc.Name == DefaultStorageClassName || sc.Annotations[persistentvolume.AnnDefaultStorageClass] == "true"
	}
	for _, o := range objs {
		if sc, ok := o.(*api.StorageClass); ok && isDefault(sc) {
			return false, nil
		}
	}
	l, err := c.StorageClasses().List(ctx, source.ListOptions{})
	if err != nil {
		return false, fmt.Errorf("default StorageClass: %w", err)
	}
	for _, sc := range l.Items {
		if isDefault(sc) {
			return false, nil
		}
	}
	if _, err := c.StorageClasses().Create(ctx, DefaultStorageClass()); err != nil {
		if errors.Is(err, source.ErrAlreadyExists) {
			return false, nil
		}
		return false, fmt.Errorf("default StorageClass: %w", err)
	}
	return true, nil
}

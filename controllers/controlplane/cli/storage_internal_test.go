package cli

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/source"
)

// ctrlkit up's default StorageClass: kind's "standard", installed once,
// and not when a default class (or a class of its name) exists or is
// about to be applied.
func TestInstallDefaultStorageClass(t *testing.T) {
	other := func(name string, isDefault bool) *api.StorageClass {
		sc := &api.StorageClass{ObjectMeta: api.ObjectMeta{Name: name}, Provisioner: "example.com/csi"}
		if isDefault {
			sc.Annotations = map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}
		}
		return sc
	}
	for _, tc := range []struct {
		name     string
		existing []*api.StorageClass
		applied  []api.Object
		want     bool
	}{
		{name: "fresh cluster", want: true},
		{name: "a non-default class exists", existing: []*api.StorageClass{other("fast", false)}, want: true},
		{name: "a default class exists", existing: []*api.StorageClass{other("fast", true)}},
		{name: "a class named standard exists", existing: []*api.StorageClass{other("standard", false)}},
		{name: "the manifests bring a default class", applied: []api.Object{other("fast", true)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, err := cluster.New(t.Context(), cluster.Options{})
				require.NoError(t, err)
				for _, sc := range tc.existing {
					_, err := c.StorageClasses().Create(t.Context(), sc)
					require.NoError(t, err)
				}
				created, err := installDefaultStorageClass(t.Context(), c, tc.applied)
				require.NoError(t, err)
				require.Equal(t, tc.want, created)
				l, err := c.StorageClasses().List(t.Context(), source.ListOptions{})
				require.NoError(t, err)
				require.Len(t, l.Items, len(tc.existing)+map[bool]int{true: 1}[tc.want])
				if !tc.want {
					return
				}
				sc, _, err := c.StorageClasses().Get(t.Context(), "standard")
				require.NoError(t, err)
				require.Equal(t, "true", sc.Annotations["storageclass.kubernetes.io/is-default-class"])
				require.Equal(t, "rancher.io/local-path", sc.Provisioner)
				require.Equal(t, api.VolumeBindingMode("WaitForFirstConsumer"), *sc.VolumeBindingMode)
				require.Equal(t, api.PersistentVolumeReclaimPolicy("Delete"), *sc.ReclaimPolicy)
				again, err := installDefaultStorageClass(t.Context(), c, nil)
				require.NoError(t, err)
				require.False(t, again, "a second start keeps the first")
			})
		})
	}
}

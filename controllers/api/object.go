package api

import (
	"fmt"
	"strings"
)

// Object is implemented by a pointer to every kind in this package (*Pod,
// *Deployment, …). It is deliberately small: typed code uses the concrete
// type; Object serves the decoder, the encoder and generic helpers.
type Object interface {
	// GetObjectMeta returns the object's metadata, for reading and writing.
	GetObjectMeta() *ObjectMeta
	// GetResourceVersion returns metadata.resourceVersion.
	GetResourceVersion() string
	// SetResourceVersion sets metadata.resourceVersion.
	SetResourceVersion(rv string)
	// GroupVersionKind returns the kind's current group, version and kind,
	// whatever the object's TypeMeta holds.
	GroupVersionKind() GroupVersionKind
	// DeepCopyObject returns a deep copy of the object.
	DeepCopyObject() Object
}

// MetaObject is the constraint of the generic helpers: any type with
// metadata, in practice a pointer to a kind.
type MetaObject interface {
	GetObjectMeta() *ObjectMeta
}

// Key returns obj's cache key: "namespace/name", or "name" for an object
// without a namespace (client-go's MetaNamespaceKeyFunc). It panics if obj
// is a nil pointer.
func Key[T MetaObject](obj T) string {
	m := obj.GetObjectMeta()
	if m.Namespace == "" {
		return m.Name
	}
	return m.Namespace + "/" + m.Name
}

// NamespacedKey returns the key Key gives an object with that namespace and name.
func NamespacedKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// SplitKey splits a key made by Key into namespace and name
// (client-go's SplitMetaNamespaceKey).
func SplitKey(key string) (namespace, name string, err error) {
	parts := strings.Split(key, "/")
	switch len(parts) {
	case 1:
		return "", parts[0], nil
	case 2:
		return parts[0], parts[1], nil
	}
	return "", "", fmt.Errorf("api: unexpected key format %q", key)
}

// IsControlledBy reports whether obj's controller reference points at the
// object with owner's UID.
func IsControlledBy[T, O MetaObject](obj T, owner O) bool {
	ref := obj.GetObjectMeta().ControllerRef()
	return ref != nil && ref.UID == owner.GetObjectMeta().UID
}

// NewControllerRef returns an owner reference that marks owner as the
// controller of a dependent, with blockOwnerDeletion set, as controllers do.
func NewControllerRef(owner Object) OwnerReference {
	t := true
	gvk := owner.GroupVersionKind()
	m := owner.GetObjectMeta()
	return OwnerReference{
		APIVersion:         gvk.APIVersion(),
		Kind:               gvk.Kind,
		Name:               m.Name,
		UID:                m.UID,
		Controller:         &t,
		BlockOwnerDeletion: &t,
	}
}

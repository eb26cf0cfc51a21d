package admission

import (
	"context"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
)

// Operation is the kind of write an admission plugin sees.
type Operation string

// The operations.
const (
	// Create: a create.
	Create Operation = "CREATE"
	// Update: an update, a status update, a binding, a patch, a scale.
	Update Operation = "UPDATE"
	// Delete: a deletion (Object is nil, OldObject the stored object,
	// DeleteOptions the delete's options).
	Delete Operation = "DELETE"
	// Connect: a connect to a subresource (exec, attach,
	// port-forward), which the in-process cluster does not serve.
	Connect Operation = "CONNECT"
)

// UserInfo is who made a request (authentication/v1 UserInfo).
type UserInfo struct {
	// Username is the user's name ("system:serviceaccount:ns:name").
	Username string
	// UID is the user's unique id.
	UID string
	// Groups are the user's groups ("system:authenticated").
	Groups []string
}

// Attributes describe a write to an admission plugin.
type Attributes struct {
	// Operation is CREATE, UPDATE or DELETE (the in-process cluster's
	// writes).
	Operation Operation
	// Resource is the kind's resource name ("pods").
	Resource string
	// Subresource is "status" for a status update, "binding" for a
	// binding, "" otherwise.
	Subresource string
	// Object is the object about to be stored: defaulted and valid.
	// A MutatingFunc may change it; a ValidatingFunc must not. It is nil
	// on DELETE, as in kube-apiserver.
	Object api.Object
	// OldObject is the stored object an update replaces or a delete
	// removes (or marks for deletion); nil on create.
	OldObject api.Object
	// Kind is the group, version and kind of Object (and OldObject).
	Kind api.GroupVersionKind
	// Namespace and Name are the object's ("" Namespace for a
	// cluster-scoped kind); on a create with generateName, Name is the
	// generated name.
	Namespace, Name string
	// DeleteOptions are the options of a DELETE (propagation policy,
	// grace period, preconditions); nil for other operations.
	DeleteOptions *client.DeleteOptions
	// DryRun is true for a request that stores nothing (?dryRun=All);
	// a plugin with side effects must not perform them.
	DryRun bool
	// UserInfo is who made the request; zero when the writer is not
	// known (the in-process cluster's own clients).
	UserInfo UserInfo
}

// ValidatingFunc is a validating admission plugin: it sees each create
// and update after defaulting, validation and the namespace lifecycle
// check, and each delete (once its preconditions hold, before the object
// is removed or marked for deletion; a.Object is nil then), and a
// non-nil error aborts the write (the server returns it
// wrapped, so errors.Is finds the plugin's own sentinels). It runs on the
// writer's goroutine and may read the cluster.
type ValidatingFunc func(ctx context.Context, a Attributes) error

// MutatingFunc is a mutating admission plugin, such as kube-apiserver's
// ServiceAccount plugin that sets a pod's spec.serviceAccountName: it sees
// each create and update after defaulting, validation and the namespace
// lifecycle check, and each delete (with nothing to change: a.Object is
// nil), and before every ValidatingFunc (kube-apiserver, too,
// runs the mutating phase before the validating one), and it may change
// a.Object in place — that object is what the validating functions see and
// what is stored. A non-nil error aborts the write, wrapped as a
// ValidatingFunc's is. The in-process cluster validates an object the
// mutating phase changed again, as kube-apiserver does (an invalid
// result fails the write with the kind's 422), and bumps the generation
// of an update whose spec it changed. It must not change a.OldObject. It runs on the writer's goroutine, holding no
// lock of the store, and may read and write the cluster.
type MutatingFunc func(ctx context.Context, a Attributes) error

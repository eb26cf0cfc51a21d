package admission

import "context"

type requestKey struct{}

type request struct {
	user   UserInfo
	checks []ValidatingFunc
}

// WithRequest returns ctx carrying who made the request a write serves
// and the server's own checks of it: the validating steps kube-apiserver
// runs in a resource's storage with the requester in hand (RBAC's
// escalation check of roles and bindings). The in-process cluster puts u
// in Attributes.UserInfo and runs checks after its admission plugins,
// on every create and update made under ctx.
func WithRequest(ctx context.Context, u UserInfo, checks ...ValidatingFunc) context.Context {
	return context.WithValue(ctx, requestKey{}, request{user: u, checks: checks})
}

// RequestFrom returns what WithRequest put in ctx.
func RequestFrom(ctx context.Context) (u UserInfo, checks []ValidatingFunc, ok bool) {
	r, ok := ctx.Value(requestKey{}).(request)
	return r.user, r.checks, ok
}

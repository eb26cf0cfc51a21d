package rbac

import (
	"context"
	"slices"
	"strings"
)

// The groups and users kube-apiserver gives identities.
const (
	// SystemPrivilegedGroup is system:masters: every request of its
	// members is allowed, whatever the roles say.
	SystemPrivilegedGroup = "system:masters"
	// AllAuthenticated is the group of every authenticated user.
	AllAuthenticated = "system:authenticated"
	// AllUnauthenticated is the group of the anonymous user.
	AllUnauthenticated = "system:unauthenticated"
	// Anonymous is the name of an unauthenticated requester.
	Anonymous = "system:anonymous"
	// AllServiceAccountsGroup is the group of every service account.
	AllServiceAccountsGroup = "system:serviceaccounts"
	// ServiceAccountUsernamePrefix starts a service account's user name.
	ServiceAccountUsernamePrefix = "system:serviceaccount:"
	// AdminUser is the user the kubeconfig's token of `ctrlkit up`
	// authenticates as, as kind's kubeconfig does.
	AdminUser = "kubernetes-admin"
)

// User is an authenticated identity: a name, groups, a uid and extra
// attributes (kube's user.Info).
type User struct {
	// Name of the user ("kubernetes-admin",
	// "system:serviceaccount:default:builder").
	Name string
	// UID of the user, if any.
	UID string
	// Groups the user is a member of.
	Groups []string
	// Extra attributes.
	Extra map[string][]string
}

// Admin is the identity of `ctrlkit up`'s kubeconfig: kubernetes-admin
// in system:masters (and system:authenticated), as kind's.
func Admin() User {
	return User{Name: AdminUser, Groups: []string{SystemPrivilegedGroup, AllAuthenticated}}
}

// ServiceAccountUser is the identity of a service account's token:
// system:serviceaccount:<ns>:<name> in the groups
// system:serviceaccounts, system:serviceaccounts:<ns> and
// system:authenticated.
func ServiceAccountUser(namespace, name, uid string) User {
	return User{Name: ServiceAccountUsername(namespace, name), UID: uid,
		Groups: []string{AllServiceAccountsGroup, AllServiceAccountsGroup + ":" + namespace, AllAuthenticated}}
}

// ServiceAccountUsername is system:serviceaccount:<ns>:<name>.
func ServiceAccountUsername(namespace, name string) string {
	return ServiceAccountUsernamePrefix + namespace + ":" + name
}

// SplitServiceAccountUsername returns the namespace and name of a service
// account's user name, ok false for another user.
func SplitServiceAccountUsername(user string) (namespace, name string, ok bool) {
	rest, found := strings.CutPrefix(user, ServiceAccountUsernamePrefix)
	if !found {
		return "", "", false
	}
	namespace, name, ok = strings.Cut(rest, ":")
	if !ok || namespace == "" || name == "" || strings.Contains(name, ":") {
		return "", "", false
	}
	return namespace, name, true
}

// InGroup reports whether u is a member of group.
func (u User) InGroup(group string) bool { return slices.Contains(u.Groups, group) }

type userKey struct{}

// WithUser returns ctx carrying u, the requester's identity (what the
// authentication in front of the API server found).
func WithUser(ctx context.Context, u User) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFrom returns the identity ctx carries, ok false if none.
func UserFrom(ctx context.Context) (User, bool) {
	u, ok := ctx.Value(userKey{}).(User)
	return u, ok
}

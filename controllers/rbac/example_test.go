package rbac_test

import (
	"context"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/rbac"
)

func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, _ := cluster.New(ctx, cluster.Options{})
	_ = rbac.Bootstrap(ctx, c)
	ns, _ := cluster.StoreFor[*api.Namespace](c)
	_, _ = ns.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team"}})
	rbs, _ := cluster.StoreFor[*api.RoleBinding](c)
	_, _ = rbs.Create(ctx, &api.RoleBinding{ObjectMeta: api.ObjectMeta{Name: "jane-view", Namespace: "team"},
		RoleRef:  api.RoleRef{APIGroup: api.RBACGroup, Kind: "ClusterRole", Name: "view"},
		Subjects: []api.Subject{{Kind: "User", APIGroup: api.RBACGroup, Name: "jane"}}})

	z := rbac.New(c)
	jane := rbac.User{Name: "jane", Groups: []string{rbac.AllAuthenticated}}
	for _, verb := range []string{"list", "delete"} {
		d, reason, _ := z.Authorize(ctx, rbac.Attributes{User: jane, Verb: verb, ResourceRequest: true,
			Namespace: "team", Resource: "pods"})
		fmt.Println(verb, d == rbac.Allow, reason)
	}
	// Output:
	// list true RBAC: allowed by RoleBinding "jane-view/team" of ClusterRole "view" to User "jane"
	// delete false
}

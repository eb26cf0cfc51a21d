package cli_test

import (
	"context"
	"github.com/ctrlkit/ctrlkit/internal/kubectltest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// rbacKubectl starts `ctrlkit up --listen --authorization-mode=RBAC` and
// returns a runner of the real kubectl against it, as the admin of its
// kubeconfig, that requires the command to fail exactly when wantErr.
func rbacKubectl(t *testing.T) func(wantErr bool, args ...string) string {
	t.Helper()
	kubectl := kubectltest.Path(t)
	kubeconfig := t.TempDir() + "/kubeconfig"
	upServing(t, "--kubeconfig", kubeconfig, "--authorization-mode=RBAC")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	cache := t.TempDir()
	return func(wantErr bool, args ...string) string {
		t.Helper()
		out, err := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", kubeconfig, "--cache-dir", cache}, args...)...).CombinedOutput()
		require.Equal(t, wantErr, err != nil, "kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		return string(out)
	}
}

// RBAC through a real kubectl against `ctrlkit up --listen
// --authorization-mode=RBAC`: the kubeconfig's token is kubernetes-admin
// in system:masters; auth whoami and auth can-i [--as] [--list] answer as
// the bootstrap roles and the Roles and RoleBindings kubectl creates say;
// a user they do not allow gets kube-apiserver's 403.
func TestKubectlRBAC(t *testing.T) {
	run := rbacKubectl(t)
	out := run(false, "auth", "whoami")
	require.Contains(t, out, "kubernetes-admin")
	require.Contains(t, out, "[system:masters system:authenticated]")
	require.Equal(t, "yes\n", run(false, "auth", "can-i", "create", "pods"))
	require.Equal(t, "no\n", run(true, "auth", "can-i", "list", "pods", "--as=jane", "-n", "default"))

	run(false, "create", "namespace", "team")
	require.Contains(t, run(false, "create", "role", "pod-reader", "--verb=get,list", "--resource=pods,pods/log", "-n", "team"),
		"role.rbac.authorization.k8s.io/pod-reader created")
	require.Contains(t, run(false, "create", "rolebinding", "jane-reads", "--role=pod-reader", "--user=jane", "-n", "team"),
		"rolebinding.rbac.authorization.k8s.io/jane-reads created")
	require.Equal(t, "yes\n", run(false, "auth", "can-i", "list", "pods", "--as=jane", "-n", "team"))
	require.Equal(t, "yes\n", run(false, "auth", "can-i", "get", "pods", "--subresource=log", "--as=jane", "-n", "team"))
	require.Equal(t, "no\n", run(true, "auth", "can-i", "delete", "pods", "--as=jane", "-n", "team"))
	require.Contains(t, run(false, "auth", "whoami", "--as=jane"), "jane")
	list := run(false, "auth", "can-i", "--list", "--as=jane", "-n", "team")
	require.Contains(t, list, "pods/log")
	require.Contains(t, list, "selfsubjectaccessreviews.authorization.k8s.io")

	require.Contains(t, run(true, "get", "secrets", "--as=jane", "-n", "team"),
		`secrets is forbidden: User "jane" cannot list resource "secrets" in API group "" in the namespace "team"`)
	require.Contains(t, run(false, "get", "pods", "--as=jane", "-n", "team"), "No resources found in team namespace.")
	require.Contains(t, run(false, "get", "rolebindings", "-n", "team", "-o", "wide"), "Role/pod-reader")
}

// Service account tokens through a real kubectl: `kubectl create token`
// (a protobuf TokenRequest) issues a token that authenticates as the
// service account, which RBAC then governs; a too-short duration is
// kube's 422; deleting the account invalidates the token (401).
func TestKubectlCreateToken(t *testing.T) {
	run := rbacKubectl(t)
	run(false, "create", "namespace", "team")
	run(false, "create", "serviceaccount", "builder", "-n", "team")
	require.Contains(t, run(true, "create", "token", "builder", "-n", "team", "--duration=1m"),
		"may not specify a duration less than 10 minutes")
	tok := strings.TrimSpace(run(false, "create", "token", "builder", "-n", "team", "--duration=20m"))
	require.Equal(t, 3, len(strings.Split(tok, ".")), "a JWT: %q", tok)
	as := func(wantErr bool, args ...string) string {
		t.Helper()
		return run(wantErr, append([]string{"--token", tok}, args...)...)
	}
	who := as(false, "auth", "whoami")
	require.Contains(t, who, "system:serviceaccount:team:builder")
	require.Contains(t, who, "[system:serviceaccounts system:serviceaccounts:team system:authenticated]")
	require.Contains(t, who, "authentication.kubernetes.io/credential-id")
	require.Contains(t, as(true, "get", "pods", "-n", "team"),
		`pods is forbidden: User "system:serviceaccount:team:builder" cannot list resource "pods" in API group "" in the namespace "team"`)
	run(false, "create", "rolebinding", "builder-view", "--clusterrole=view", "--serviceaccount=team:builder", "-n", "team")
	require.Contains(t, as(false, "get", "pods", "-n", "team"), "No resources found in team namespace.")
	require.Equal(t, "no\n", as(true, "auth", "can-i", "create", "pods", "-n", "team"))

	run(false, "delete", "serviceaccount", "builder", "-n", "team")
	require.Contains(t, as(true, "get", "pods", "-n", "team"), "Unauthorized")
}

package cli_test

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// kubectl create sends built-in kinds as Kubernetes protobuf (a 415
// before the API server spoke it): each generator's object is created and
// reads back as kube would store it.
func TestKubectlCreate(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	kubectlRun := kubectlOn(t, ctx)
	run := func(args ...string) string {
		t.Helper()
		out, err := kubectlRun(args...)
		require.NoError(t, err, "kubectl %s:\n%s", strings.Join(args, " "), out)
		return out
	}
	creates := []struct {
		args []string
		want string
	}{
		{[]string{"create", "namespace", "team"}, "namespace/team created"},
		{[]string{"-n", "team", "create", "deployment", "web", "--image=nginx:1.27", "--replicas=2", "--port=80"}, "deployment.apps/web created"},
		{[]string{"-n", "team", "create", "configmap", "cfg", "--from-literal=color=blue"}, "configmap/cfg created"},
		{[]string{"-n", "team", "create", "secret", "generic", "pw", "--from-literal=password=s3cr3t"}, "secret/pw created"},
		{[]string{"-n", "team", "create", "job", "once", "--image=busybox", "--", "echo", "hi"}, "job.batch/once created"},
		{[]string{"-n", "team", "create", "cronjob", "tick", "--image=busybox", "--schedule=*/5 * * * *"}, "cronjob.batch/tick created"},
		{[]string{"-n", "team", "create", "service", "clusterip", "web", "--tcp=80:8080"}, "service/web created"},
		{[]string{"-n", "team", "create", "serviceaccount", "bot"}, "serviceaccount/bot created"},
		{[]string{"-n", "team", "create", "quota", "q", "--hard=pods=10,cpu=4"}, "resourcequota/q created"},
		{[]string{"create", "priorityclass", "high", "--value=1000", "--description=urgent"}, "priorityclass.scheduling.k8s.io/high created"},
		{[]string{"-n", "team", "create", "poddisruptionbudget", "web", "--selector=app=web", "--min-available=1"}, "poddisruptionbudget.policy/web created"},
	}
	for _, c := range creates {
		require.Equal(t, c.want+"\n", run(c.args...), strings.Join(c.args, " "))
	}

	require.Equal(t, "2 nginx:1.27 80", run("-n", "team", "get", "deployment", "web", "-o",
		"jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].ports[0].containerPort}"))
	require.Equal(t, "blue", run("-n", "team", "get", "configmap", "cfg", "-o", "jsonpath={.data.color}"))
	require.Equal(t, base64.StdEncoding.EncodeToString([]byte("s3cr3t")), run("-n", "team", "get", "secret", "pw", "-o", "jsonpath={.data.password}"))
	require.Equal(t, "echo hi Never", run("-n", "team", "get", "job", "once", "-o",
		"jsonpath={.spec.template.spec.containers[0].command[0]} {.spec.template.spec.containers[0].command[1]} {.spec.template.spec.restartPolicy}"))
	require.Equal(t, "*/5 * * * *", run("-n", "team", "get", "cronjob", "tick", "-o", "jsonpath={.spec.schedule}"))
	require.Equal(t, "80 8080 ClusterIP", run("-n", "team", "get", "service", "web", "-o",
		"jsonpath={.spec.ports[0].port} {.spec.ports[0].targetPort} {.spec.type}"))
	require.Equal(t, "10 4", run("-n", "team", "get", "quota", "q", "-o", "jsonpath={.spec.hard.pods} {.spec.hard.cpu}"))
	require.Equal(t, "1000 urgent", run("get", "priorityclass", "high", "-o", "jsonpath={.value} {.description}"))
	require.Equal(t, "1", run("-n", "team", "get", "pdb", "web", "-o", "jsonpath={.spec.minAvailable}"))
	yaml := run("-n", "team", "get", "deployment", "web", "-o", "yaml")
	require.Contains(t, yaml, "kind: Deployment")
	require.Contains(t, yaml, "replicas: 2")

	// A second create of the same name: kube's AlreadyExists, through
	// the protobuf path too.
	out, err := kubectlRun("create", "namespace", "team")
	require.Error(t, err)
	require.Contains(t, out, `namespaces "team" already exists`)
	// An invalid object: 422 with the field, as kube words it.
	out, err = kubectlRun("-n", "team", "create", "deployment", "Bad_Name", "--image=nginx")
	require.Error(t, err)
	require.Contains(t, out, `Deployment.apps "Bad_Name" is invalid`)
}

package cli_test

import (
	"bufio"
	"context"
	"fmt"
	"github.com/ctrlkit/ctrlkit/internal/kubectltest"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// A real kubectl against the API server of a cluster, with a kind the
// program added with api.Register (Gadget, below, like apitest's Widget):
// apply, get with the kind's printer columns and by short name, get all
// (category all), a label selector, merge patch, scale, apply again,
// edit, get -w, describe and delete, the 422 of an invalid gadget and the 415 of a
// strategic merge patch.
func TestKubectlOwnKind(t *testing.T) {
	kubectl := kubectltest.Path(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	kc := serveCluster(t, ctx)
	cache := t.TempDir()
	kubectlRun := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", kc, "--cache-dir", cache}, args...)...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	run := func(args ...string) string {
		t.Helper()
		out, err := kubectlRun(args...)
		require.NoError(t, err, "kubectl %s:\n%s", strings.Join(args, " "), out)
		return out
	}
	dir := t.TempDir()
	manifest := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	gadget := manifest("gadget.yaml", `apiVersion: kubectl.ctrlkit.dev/v1
kind: Gadget
metadata:
  name: x
  labels: {app: demo}
spec:
  color: red
`)

	require.Equal(t, "gadget.kubectl.ctrlkit.dev/x created\n", run("apply", "-f", gadget))
	cols := regexp.MustCompile(`^NAME\s+COLOR\s+REPLICAS\s+AGE\n`)
	row := regexp.MustCompile(`(?m)^x\s+red\s+1\s+\d+s$`)
	out := run("get", "gadgets")
	require.Regexp(t, cols, out)
	require.Regexp(t, row, out)
	out = run("get", "gd", "-o", "wide")
	require.Regexp(t, cols, out)
	require.Regexp(t, row, out)
	require.Contains(t, run("get", "all"), "gadget.kubectl.ctrlkit.dev/x")
	require.Equal(t, "gadget.kubectl.ctrlkit.dev/x\n", run("get", "gadgets", "-l", "app=demo", "-o", "name"))

	require.Equal(t, "gadget.kubectl.ctrlkit.dev/x patched\n", run("patch", "gadget", "x", "--type=merge", "-p", `{"spec":{"replicas":2}}`))
	require.Equal(t, "2", run("get", "gadget", "x", "-o", "jsonpath={.spec.replicas}"))
	require.Equal(t, "gadget.kubectl.ctrlkit.dev/x scaled\n", run("scale", "gadget/x", "--replicas=3"))
	require.Equal(t, "3", run("get", "gadget", "x", "-o", "jsonpath={.spec.replicas}"))
	// apply again: a JSON merge patch, as kubectl sends for kinds it has
	// no Go type of.
	require.Equal(t, "gadget.kubectl.ctrlkit.dev/x configured\n",
		run("apply", "-f", manifest("gadget2.yaml", strings.Replace(mustRead(t, gadget), "app: demo", "app: demo2", 1))))

	// edit: kubectl runs KUBE_EDITOR on the object and sends the change.
	editor := manifest("editor.sh", "#!/bin/sh\nsed -i 's/color: red/color: green/' \"$1\"\n")
	require.NoError(t, os.Chmod(editor, 0o700))
	edit := exec.CommandContext(ctx, kubectl, "--kubeconfig", kc, "--cache-dir", cache, "edit", "gadget", "x")
	edit.Env = append(os.Environ(), "KUBE_EDITOR="+editor)
	out2, err := edit.CombinedOutput()
	require.NoError(t, err, "kubectl edit:\n%s", out2)
	require.Equal(t, "gadget.kubectl.ctrlkit.dev/x edited\n", string(out2))
	require.Equal(t, "green", run("get", "gadget", "x", "-o", "jsonpath={.spec.color}"))

	// get -w: the current row, then a row for each change.
	watch := exec.CommandContext(ctx, kubectl, "--kubeconfig", kc, "--cache-dir", cache, "get", "gadgets", "-w")
	wout, err := watch.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, watch.Start())
	t.Cleanup(func() { _ = watch.Process.Kill(); _ = watch.Wait() })
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(wout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	next := func() string {
		t.Helper()
		select {
		case l, ok := <-lines:
			require.True(t, ok, "kubectl get -w ended")
			return l
		case <-ctx.Done():
			t.Fatal("no line from kubectl get -w")
			return ""
		}
	}
	require.Regexp(t, `^NAME\s+COLOR\s+REPLICAS\s+AGE$`, next())
	require.Regexp(t, `^x\s+green\s+3\s+\d+s$`, next())
	run("patch", "gadget", "x", "--type=merge", "-p", `{"spec":{"color":"red"}}`)
	require.Regexp(t, `^x\s+red\s+3\s+\d+s$`, next())

	desc := run("describe", "gadget", "x")
	require.Regexp(t, `(?m)^Name:\s+x$`, desc)
	require.Regexp(t, `(?m)^Namespace:\s+default$`, desc)
	require.Regexp(t, `(?m)^API Version:\s+kubectl.ctrlkit.dev/v1$`, desc)
	require.Regexp(t, `(?m)^Kind:\s+Gadget$`, desc)
	require.Regexp(t, `(?m)^\s+Color:\s+red$`, desc)
	require.Regexp(t, `(?m)^\s+Replicas:\s+3$`, desc)

	bad, err := kubectlRun("apply", "-f", manifest("bad.yaml", strings.Replace(strings.Replace(mustRead(t, gadget), "red", "purple", 1), "name: x", "name: bad", 1)))
	require.Error(t, err)
	require.Contains(t, bad, `The Gadget "bad" is invalid: spec.color: Unsupported value: "purple"`)
	strategic, err := kubectlRun("patch", "gadget", "x", "-p", `{"spec":{"replicas":1}}`)
	require.Error(t, err, "a strategic merge patch of an own kind")
	require.Contains(t, strategic, "application/strategic-merge-patch+json is not supported by kubectl.ctrlkit.dev/v1, Kind=Gadget")

	require.Equal(t, "gadget.kubectl.ctrlkit.dev \"x\" deleted\n", run("delete", "gadget", "x"))
	out, err = kubectlRun("get", "gadget", "x")
	require.Error(t, err)
	require.Contains(t, out, `gadgets.kubectl.ctrlkit.dev "x" not found`)
}

// ownKindServerEnv, set in the environment of this test binary, makes
// TestKubectlOwnKindServer the server of TestKubectlOwnKind.
const ownKindServerEnv = "CTRLKIT_TEST_OWNKIND_SERVER"

// serveCluster runs TestKubectlOwnKindServer in a child process of this
// test binary (so that the kind it registers, program-wide, is not seen
// by the other tests of the package, whose control planes do not know it)
// and returns a kubeconfig for the API it serves.
func serveCluster(t *testing.T, ctx context.Context) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestKubectlOwnKindServer$", "-test.count=1")
	cmd.Env = append(os.Environ(), ownKindServerEnv+"=1")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "serving ")
	require.True(t, ok, "the child's first line: %q", line)
	go io.Copy(io.Discard, stdout)
	return writeKubeconfig(t, url)
}

// writeKubeconfig writes a kubeconfig for the plain-HTTP API server at
// url (no credentials) and returns its path.
func writeKubeconfig(t *testing.T, url string) string {
	t.Helper()
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kc, []byte(`apiVersion: v1
kind: Config
clusters:
- name: ctrlkit
  cluster: {server: "`+url+`"}
contexts:
- name: ctrlkit
  context: {cluster: ctrlkit, user: nobody}
current-context: ctrlkit
users:
- name: nobody
  user: {}
`), 0o600))
	return kc
}

// TestKubectlOwnKindServer is TestKubectlOwnKind's server when run as its
// child (ownKindServerEnv set): it registers Gadget, serves the API of a
// new cluster (no controllers) on a loopback port, prints "serving URL"
// and serves until its stdin closes. Run otherwise, it does nothing.
func TestKubectlOwnKindServer(t *testing.T) {
	if os.Getenv(ownKindServerEnv) == "" {
		return
	}
	_, err := api.Register[*Gadget](gadgetKind)
	require.NoError(t, err)
	c, err := cluster.New(t.Context(), cluster.Options{})
	require.NoError(t, err)
	srv, err := apiserver.New(c, apiserver.Options{})
	require.NoError(t, err)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	fmt.Println("serving " + ts.URL)
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// Gadget is the kind of TestKubectlOwnKind, registered as apitest's
// Widget is: namespaced, status and scale subresources, short name gd,
// category all, printer columns and a validation.
type Gadget struct {
	api.TypeMeta   `json:",inline"`
	api.ObjectMeta `json:"metadata"`
	Spec           GadgetSpec   `json:"spec"`
	Status         GadgetStatus `json:"status,omitempty"`
}

// GadgetSpec is a Gadget's desired state.
type GadgetSpec struct {
	Replicas *int32 `json:"replicas,omitempty"`
	Color    string `json:"color"`
}

// GadgetStatus is a Gadget's observed state.
type GadgetStatus struct {
	Replicas int32 `json:"replicas"`
}

var gadgetGVK = api.GroupVersionKind{Group: "kubectl.ctrlkit.dev", Version: "v1", Kind: "Gadget"}

func (*Gadget) GroupVersionKind() api.GroupVersionKind { return gadgetGVK }
func (g *Gadget) DeepCopyObject() api.Object           { return api.DeepCopyOf(g) }

var gadgetKind = api.KindInfo{
	GroupVersionKind: gadgetGVK, Resource: "gadgets", Namespaced: true, Status: true, Scale: true,
	ScaleFields: api.ScaleFieldsOf(func(g *Gadget) (**int32, int32, string) { return &g.Spec.Replicas, g.Status.Replicas, "" }),
	ShortNames:  []string{"gd"}, Categories: []string{"all"},
	Columns: []api.Column{{Name: "Name", Type: "string"}, {Name: "Color", Type: "string"},
		{Name: "Replicas", Type: "integer"}, {Name: "Age", Type: "string"}},
	Cells: func(obj api.Object, now time.Time) []any {
		g := obj.(*Gadget)
		return []any{g.Name, g.Spec.Color, strconv.Itoa(int(*g.Spec.Replicas)), api.HumanDuration(now.Sub(g.CreationTimestamp.Time))}
	},
	Default: func(obj api.Object) {
		if g := obj.(*Gadget); g.Spec.Replicas == nil {
			one := int32(1)
			g.Spec.Replicas = &one
		}
	},
	Validate: func(obj api.Object) []api.FieldError {
		switch c := obj.(*Gadget).Spec.Color; c {
		case "red", "green", "blue":
			return nil
		default:
			return []api.FieldError{{Type: api.FieldUnsupported, Field: "spec.color", Value: c, Detail: `supported values: "blue", "green", "red"`}}
		}
	},
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

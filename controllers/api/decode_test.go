package api

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/internal/sharedtest"
)

// manifestFiles are the real manifests of the shared folder beside the
// checkout, read in place.
func manifestFiles(t *testing.T) []string {
	t.Helper()
	files := sharedtest.Manifests(t)
	if len(files) < 8 {
		t.Fatalf("found %d manifests, want at least 8", len(files))
	}
	return files
}

func extraFiles(t *testing.T) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join("testdata", "extra", "*.yaml"))
	if err != nil || len(m) == 0 {
		t.Fatalf("no extra manifests: %v", err)
	}
	return m
}

func TestDecodeManifestsRoundTrip(t *testing.T) {
	for _, path := range append(manifestFiles(t), extraFiles(t)...) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			objs, err := DecodeFile(path, DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(objs) == 0 {
				t.Fatal("no objects")
			}
			for i, obj := range objs {
				gvk := obj.GroupVersionKind()
				if tm := obj.(typeMetaHolder).typeMeta(); *tm != gvk.TypeMeta() {
					t.Errorf("object %d: TypeMeta %+v, want %+v", i, *tm, gvk.TypeMeta())
				}
				out, err := Encode(obj)
				if err != nil {
					t.Fatal(err)
				}
				again, err := Decode(out, DecodeOptions{})
				if err != nil {
					t.Fatalf("decoding the encoded object: %v\n%s", err, out)
				}
				if len(again) != 1 || !reflect.DeepEqual(again[0], obj) {
					t.Errorf("round trip changed object %d:\nbefore %#v\nafter  %#v\nyaml:\n%s", i, obj, again[0], out)
				}
			}
		})
	}
}

// TestDecodeManifestContents checks the fields each manifest's README line promises.
func TestDecodeManifestContents(t *testing.T) {
	one := func(t *testing.T, name string) Object {
		t.Helper()
		objs, err := DecodeFile(sharedtest.Manifest(t, name), DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(objs) != 1 {
			t.Fatalf("%s: %d objects, want 1", name, len(objs))
		}
		return objs[0]
	}
	svc := one(t, "nginx-headless-service.yaml").(*Service)
	if svc.Spec.ClusterIP != ClusterIPNone || svc.Spec.Ports[0].Port != 80 || svc.Spec.Ports[0].Name != "web" || svc.Spec.Selector["app"] != "nginx" {
		t.Errorf("service: %+v", svc.Spec)
	}
	sts := one(t, "web-statefulset.yaml").(*StatefulSet)
	if *sts.Spec.Replicas != 2 || sts.Spec.ServiceName != "nginx" || sts.Spec.Template.Spec.Containers[0].Ports[0].ContainerPort != 80 {
		t.Errorf("statefulset: %+v", sts.Spec)
	}
	ds := one(t, "fluentd-daemonset.yaml").(*DaemonSet)
	c := ds.Spec.Template.Spec.Containers[0]
	if ds.Namespace != "kube-system" || c.Resources.Requests.Cpu().MilliValue() != 100 ||
		c.Resources.Requests.Memory().Value() != 200<<20 || c.Resources.Limits.Memory().String() != "200Mi" {
		t.Errorf("daemonset: %+v", c.Resources)
	}
	taint := Taint{Key: "node-role.kubernetes.io/master", Effect: TaintEffectNoSchedule}
	if !TolerationsTolerateTaint(ds.Spec.Template.Spec.Tolerations, &taint) {
		t.Error("daemonset does not tolerate the master taint")
	}
	if g := *ds.Spec.Template.Spec.TerminationGracePeriodSeconds; g != 30 {
		t.Errorf("terminationGracePeriodSeconds %d", g)
	}
	job := one(t, "pi-job.yaml").(*Job)
	if *job.Spec.BackoffLimit != 4 || job.Spec.Template.Spec.RestartPolicy != RestartPolicyNever {
		t.Errorf("job: %+v", job.Spec)
	}
	cj := one(t, "hello-cronjob.yaml").(*CronJob)
	if cj.APIVersion != "batch/v1" || cj.Spec.Schedule != "*/1 * * * *" || cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy != RestartPolicyOnFailure {
		t.Errorf("cronjob: %s %+v", cj.APIVersion, cj.Spec)
	}
	pod := one(t, "demo-pod.yaml").(*Pod)
	if Key(pod) != "demo/demo-pod" || pod.Labels["app"] != "demo" {
		t.Errorf("pod key %q labels %v", Key(pod), pod.Labels)
	}
	node := one(t, "node.json").(*Node)
	if Key(node) != "10.240.79.157" || node.Labels["name"] != "my-first-k8s-node" {
		t.Errorf("node key %q labels %v", Key(node), node.Labels)
	}
	rq := one(t, "pods-medium-quota.yaml").(*ResourceQuota)
	hard := rq.Spec.Hard
	if hard.Cpu().Value() != 10 || hard.Memory().String() != "20Gi" || hard.Pods().Value() != 10 {
		t.Errorf("quota hard %v", hard)
	}
	if e := rq.Spec.ScopeSelector.MatchExpressions[0]; e.ScopeName != ResourceQuotaScopePriorityClass || e.Operator != "In" || e.Values[0] != "medium" {
		t.Errorf("quota scope selector %+v", e)
	}
}

func TestDecodeExtraManifests(t *testing.T) {
	objs, err := DecodeFile(filepath.Join("testdata", "extra", "cluster-objects.yaml"), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, o := range objs {
		seen[o.GroupVersionKind().Kind] = true
	}
	for _, gvk := range Kinds() {
		if !seen[gvk.Kind] && gvk.Kind != "Pod" && gvk.Kind != "Service" {
			t.Errorf("cluster-objects.yaml has no %s", gvk.Kind)
		}
	}
	objs, err = DecodeFile(filepath.Join("testdata", "extra", "running-pod.yaml"), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := objs[0].(*Pod)
	if !IsPodReady(pod) || pod.Status.ContainerStatuses[0].LastTerminationState.Terminated.ExitCode != 137 ||
		pod.Spec.Containers[0].LivenessProbe.HTTPGet.Port != FromString("http") ||
		pod.Spec.Containers[0].Env[3].ValueFrom.ResourceFieldRef.Divisor.String() != "1m" ||
		*pod.Spec.Tolerations[0].TolerationSeconds != 300 || pod.ControllerRef().Name != "web-7d4b9c" {
		t.Errorf("pod fields not decoded: %+v", pod.Status)
	}
	node := &Node{ObjectMeta: ObjectMeta{Name: "node-1", Labels: map[string]string{"kubernetes.io/arch": "arm64", "node.example.com/cores": "8", "kubernetes.io/os": "linux"}}}
	if !PodMatchesNode(pod, node) {
		t.Error("pod does not match a node that satisfies its affinity")
	}
	node.Labels["node.example.com/cores"] = "2"
	if PodMatchesNode(pod, node) {
		t.Error("pod matches a node with too few cores")
	}
}

func TestDecodeUnknownField(t *testing.T) {
	path := sharedtest.Manifest(t, "web-statefulset.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Put the StatefulSet second in the stream so the index is not trivially 1.
	bad := "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n---\n" + strings.Replace(string(data), "replicas:", "replicass:", 1)
	_, err = Decode([]byte(bad), DecodeOptions{Source: "web.yaml"})
	var de *DecodeError
	if !errors.As(err, &de) || !errors.Is(err, ErrUnknownField) {
		t.Fatalf("err = %v, want a *DecodeError wrapping ErrUnknownField", err)
	}
	if de.Doc != 2 || de.Kind != "StatefulSet" || de.Name != "web" || de.Source != "web.yaml" {
		t.Errorf("DecodeError %+v", de)
	}
	for _, want := range []string{`"spec.replicass"`, "StatefulSet", "document 2", "web.yaml"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}

	objs, err := Decode([]byte(bad), DecodeOptions{Lenient: true})
	if err != nil || len(objs) != 2 {
		t.Fatalf("lenient: %v, %d objects", err, len(objs))
	}
	if r := objs[1].(*StatefulSet).Spec.Replicas; r != nil {
		t.Errorf("lenient decode set replicas %d from a misspelled field", *r)
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		name, in string
		is       error
		want     []string
	}{
		{"nested unknown field", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    imagee: x\n",
			ErrUnknownField, []string{`"spec.containers[0].imagee"`, `Pod "p"`, "document 1"}},
		{"unknown metadata field", "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labelz: {}}\n",
			ErrUnknownField, []string{`"metadata.labelz"`}},
		{"unknown kind", "---\n---\napiVersion: v1\nkind: Frobnicator\nmetadata: {name: f}\n",
			ErrUnknownKind, []string{"document 3", `"Frobnicator"`}},
		{"unsupported version", "apiVersion: apps/v9\nkind: Deployment\nmetadata: {name: d}\n",
			ErrUnsupportedVersion, []string{`"apps/v9"`, "apps/v1"}},
		{"missing kind", "apiVersion: v1\nmetadata: {name: d}\n", ErrMissingTypeMeta, []string{"document 1"}},
		{"list item", "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}, dta: {}}\n",
			ErrUnknownField, []string{"item 2", `ConfigMap "b"`, `"dta"`}},
		{"sequence item", "- {apiVersion: v1, kind: Secret, metadata: {name: a}, typ: x}\n",
			ErrUnknownField, []string{"item 1", `"typ"`}},
		{"json", `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "spec": {"taint": []}}`,
			ErrUnknownField, []string{`"spec.taint"`}},
		{"malformed json", "{\"apiVersion\": \"v1\", \"kind\": \"Namespace\"}\n{\"kind\":\t}", nil, []string{"malformed JSON", "document 2"}},
		{"unknown list field", "apiVersion: v1\nkind: List\nitemz: []\n", ErrUnknownField, []string{`"itemz"`, "List"}},
		{"not an object", "- 5\n", nil, []string{"item 1", "malformed object"}},
		{"scalar document", "hello\n", nil, []string{"document 1", "not an object"}},
		{"duplicate key", "apiVersion: v1\nkind: Pod\nkind: Pod\n", nil, []string{"malformed YAML", "document 1"}},
		{"bad quantity", "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q}\nspec: {hard: {cpu: 1x}}\n",
			ErrInvalidQuantity, []string{`"1x"`}},
		{"type mismatch", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: two}\n",
			nil, []string{"spec.replicas", `Deployment "d"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode([]byte(c.in), DecodeOptions{})
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("err = %v, want *DecodeError", err)
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("err = %v, want it to wrap %v", err, c.is)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %s", err, w)
				}
			}
		})
	}
}

func TestDecodeStreams(t *testing.T) {
	in := `# leading comment
apiVersion: extensions/v1beta1
kind: Deployment
metadata: {name: old, namespace: ns}
spec:
  replicas: 3
  selector: {matchLabels: {app: a}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 25%, maxUnavailable: 1}}
  template:
    metadata: {labels: {app: a}}
    spec: {containers: [{name: c, image: i}]}
--- # second
apiVersion: v1
kind: PodList
items:
- metadata: {name: p1}
  spec: {containers: [{name: c}]}
...
`
	objs, err := Decode([]byte(in), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 {
		t.Fatalf("%d objects", len(objs))
	}
	d := objs[0].(*Deployment)
	if d.APIVersion != "apps/v1" || *d.Spec.Replicas != 3 {
		t.Errorf("deployment %s replicas %v", d.APIVersion, d.Spec.Replicas)
	}
	ru := d.Spec.Strategy.RollingUpdate
	if ru.MaxSurge.String() != "25%" || ru.MaxUnavailable.Type != TypeInt || ru.MaxUnavailable.IntVal != 1 {
		t.Errorf("rolling update %+v %+v", *ru.MaxSurge, *ru.MaxUnavailable)
	}
	if p := objs[1].(*Pod); p.Name != "p1" || p.Kind != "Pod" {
		t.Errorf("pod list item %+v", p.TypeMeta)
	}

	// Concatenated JSON values.
	objs, err = Decode([]byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}}
{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"b"}}]}`), DecodeOptions{})
	if err != nil || len(objs) != 2 || objs[1].GetObjectMeta().Name != "b" {
		t.Fatalf("json stream: %v %v", objs, err)
	}
}

func TestDecodeFlowYAMLStream(t *testing.T) {
	// Starts like JSON but is a YAML stream.
	in := "{apiVersion: v1, kind: Namespace, metadata: {name: a}}\n---\n{apiVersion: v1, kind: Namespace, metadata: {name: b}}\n"
	objs, err := Decode([]byte(in), DecodeOptions{})
	if err != nil || len(objs) != 2 || objs[1].GetObjectMeta().Name != "b" {
		t.Fatalf("%v %v", objs, err)
	}
	// JSON with tabs, which YAML would reject, still decodes as JSON.
	objs, err = Decode([]byte("{\n\t\"apiVersion\": \"v1\",\n\t\"kind\": \"Namespace\"\n}"), DecodeOptions{})
	if err != nil || len(objs) != 1 {
		t.Fatalf("%v %v", objs, err)
	}
}

func TestEncodeAllRoundTrip(t *testing.T) {
	var all []Object
	for _, path := range manifestFiles(t) {
		objs, err := DecodeFile(path, DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, objs...)
	}
	out, err := EncodeAll(all)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Decode(out, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(all, again) {
		t.Errorf("EncodeAll round trip differs:\n%s", out)
	}
}

func TestDecodeFileMissing(t *testing.T) {
	_, err := DecodeFile(filepath.Join("testdata", "nope.yaml"), DecodeOptions{})
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "nope.yaml") {
		t.Errorf("err = %v", err)
	}
}

// With RefuseRemoved, a built-in kind at an apiVersion Kubernetes v1.37 no
// longer serves is refused with kubectl's words; the current version and
// the default options still decode.
func TestDecodeRefuseRemoved(t *testing.T) {
	path := sharedtest.Manifest(t, "hello-cronjob.yaml")
	_, err := DecodeFile(path, DecodeOptions{RefuseRemoved: true})
	if !errors.Is(err, ErrRemovedVersion) {
		t.Fatalf("err = %v, want ErrRemovedVersion", err)
	}
	if want := `CronJob "hello": no matches for kind "CronJob" in version "batch/v1beta1" (removed from Kubernetes; the current version is batch/v1)`; !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want it to contain %s", err, want)
	}
	for _, doc := range []string{
		"apiVersion: apps/v1beta2\nkind: Deployment\nmetadata: {name: d}\n",
		"apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata: {name: i}\n",
		"apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: p}\n",
	} {
		if _, err := Decode([]byte(doc), DecodeOptions{RefuseRemoved: true}); !errors.Is(err, ErrRemovedVersion) {
			t.Errorf("%q: err = %v, want ErrRemovedVersion", doc, err)
		}
		objs, err := Decode([]byte(doc), DecodeOptions{})
		if err != nil || len(objs) != 1 || objs[0].GroupVersionKind().APIVersion() == "" {
			t.Errorf("%q without RefuseRemoved: %v", doc, err)
		}
	}
	objs, err := Decode([]byte("apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c}\nspec: {schedule: '* * * * *'}\n"), DecodeOptions{RefuseRemoved: true})
	if err != nil || len(objs) != 1 {
		t.Fatalf("current version refused: %v", err)
	}
}

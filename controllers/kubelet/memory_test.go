package kubelet

import (
	"testing"
	"unsafe"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Containers alike share one ctrSpec, whatever pod they are in; one
// that differs in name, kind, image or behaviour has its own. The
// strings its statuses and events carry are the shared ones.
func TestCtrSpecShared(t *testing.T) {
	web := api.Container{Name: "web", Image: "nginx"}
	a, b := testPod(api.RestartPolicyAlways, nil, web), testPod(api.RestartPolicyAlways, nil, web)
	b.Name, b.UID = "q", "uid-other"
	b.Spec.Containers = []api.Container{{Name: "web", Image: "nginx"}} // equal, not the same strings
	sa, sb := admit(t, a), admit(t, b)
	ca, cb := sa.app[0], sb.app[0]
	if ca.spec != cb.spec {
		t.Fatal("two alike containers do not share their spec")
	}
	spec := ca.spec.Value()
	if spec.name != "web" || spec.fieldPath != "spec.containers{web}" || spec.image.ref != "nginx" ||
		spec.image.id != imageDigestName("nginx") || spec.image.size != ImageSize("nginx") ||
		spec.image.pulled != `Container image "nginx" already present on machine and can be accessed by the pod` {
		t.Fatalf("spec %+v", spec)
	}
	sta, stb := sa.status(a, at(0)), sb.status(b, at(0))
	ida, idb := sta.ContainerStatuses[0].ImageID, stb.ContainerStatuses[0].ImageID
	if ida != spec.image.id || unsafe.StringData(ida) != unsafe.StringData(idb) {
		t.Errorf("imageIDs %q %q: not one shared string", ida, idb)
	}
	sa.advance(at(1))
	sb.advance(at(1))
	if len(sa.notes) != 3 || len(sb.notes) != 3 {
		t.Fatalf("notes %v %v", sa.notes, sb.notes)
	}
	for i := range sa.notes {
		na, nb := sa.notes[i], sb.notes[i]
		if na != nb || unsafe.StringData(na.fieldPath) != unsafe.StringData(nb.fieldPath) ||
			unsafe.StringData(na.message) != unsafe.StringData(nb.message) {
			t.Errorf("note %d: %+v, %+v: not shared", i, na, nb)
		}
	}

	// Each difference makes another spec.
	others := map[string]*api.Pod{
		"name":      testPod(api.RestartPolicyAlways, nil, api.Container{Name: "api", Image: "nginx"}),
		"image":     testPod(api.RestartPolicyAlways, nil, api.Container{Name: "web", Image: "nginx:1.27"}),
		"behaviour": testPod(api.RestartPolicyAlways, map[string]string{AnnotationRunFor: "10s"}, web),
	}
	for what, p := range others {
		if s := admit(t, p); s.app[0].spec == ca.spec {
			t.Errorf("another %s: the same spec", what)
		}
	}
	init := testPod(api.RestartPolicyAlways, nil, web)
	init.Spec.InitContainers = []api.Container{web}
	s := admit(t, init)
	if s.init[0].spec == s.app[0].spec || s.init[0].spec.Value().fieldPath != "spec.initContainers{web}" {
		t.Errorf("init container's spec %+v", s.init[0].spec.Value())
	}
}

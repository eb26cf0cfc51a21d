package kubelet

import (
	"testing"
	"time"
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
	ca, cb := sa.appCtrs()[0], sb.appCtrs()[0]
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
	ma, mb := sta.Conditions[len(sta.Conditions)-1].Message, stb.Conditions[len(stb.Conditions)-1].Message
	if ma != "containers with unready status: [web]" || unsafe.StringData(ma) != unsafe.StringData(mb) {
		t.Errorf("Ready messages %q %q: not one shared string", ma, mb)
	}
	sa.advance(at(1))
	sb.advance(at(1))
	if len(sa.out.notes) != 3 || len(sb.out.notes) != 3 {
		t.Fatalf("notes %v %v", sa.out.notes, sb.out.notes)
	}
	for i := range sa.out.notes {
		na, nb := sa.out.notes[i], sb.out.notes[i]
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
		if s := admit(t, p); s.appCtrs()[0].spec == ca.spec {
			t.Errorf("another %s: the same spec", what)
		}
	}
	init := testPod(api.RestartPolicyAlways, nil, web)
	init.Spec.InitContainers = []api.Container{web}
	s := admit(t, init)
	if s.initCtrs()[0].spec == s.appCtrs()[0].spec || s.initCtrs()[0].spec.Value().fieldPath != "spec.initContainers{web}" {
		t.Errorf("init container's spec %+v", s.initCtrs()[0].spec.Value())
	}
}

// A pod in its steady state holds no events or pulls (the shell drained
// them, and took its lent buffer back) and no extras; a pod's extras
// are made when it needs them, here for its termination.
func TestSteadyStateHoldsNoScratch(t *testing.T) {
	p := testPod(api.RestartPolicyAlways, nil)
	s := admit(t, p)
	if s.out != nil || s.extra != nil {
		t.Fatalf("admitted: out %+v, extra %+v", s.out, s.extra)
	}
	s.advance(at(1))
	if s.out == nil || len(s.out.notes) != 3 || len(s.out.pulls) != 1 {
		t.Fatalf("started: out %+v", s.out)
	}
	k := &Kubelet{}
	k.record(p, s)
	if s.out != nil || len(k.images) != 1 || k.images[0].key != "nginx:latest" {
		t.Fatalf("recorded: out %+v, images %+v", s.out, k.images)
	}
	if st := s.status(p, at(1)); st.Phase != api.PodRunning || !st.ContainerStatuses[0].Ready || s.extra != nil {
		t.Fatalf("running: phase %s, ready %v, extra %+v", st.Phase, st.ContainerStatuses[0].Ready, s.extra)
	}

	// The shell lends its buffer for a sync and takes it back empty.
	s.out = &k.out
	s.terminate(at(2), 30*time.Second)
	if len(k.out.notes) != 1 || k.out.notes[0].reason != "Killing" || s.extra == nil || !s.extra.graceUntil.Equal(at(32)) {
		t.Fatalf("terminating: notes %+v, extra %+v", k.out.notes, s.extra)
	}
	k.record(p, s)
	if s.out != nil || k.out.notes != nil || k.out.pulls != nil {
		t.Fatalf("recorded: out %+v, lent %+v", s.out, k.out)
	}
}

package realkube_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/crdgen"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/examples/operator"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/kube"
)

// The Website operator of examples/operator, unchanged, on a real
// kube-apiserver through kube.Client: its CRD generated from the Go type
// by crdgen and installed, its validating webhook served over HTTPS on
// 127.0.0.1 and called by kube-apiserver through a
// ValidatingWebhookConfiguration with its caBundle. There is no
// kube-controller-manager, so the Deployment's status does not move and
// no garbage collector deletes it; what the operator itself does is
// checked: the finalizer, the Deployment it controls, the directory
// entry, the status with its Ready condition and observedGeneration, the
// webhook's refusals, and the cleanup behind the finalizer.
func TestOperatorOnRealServer(t *testing.T) {
	s := start(t)
	ctx := t.Context()
	kc, err := kube.NewClient(s.Config(), kube.ClientOptions{QPS: -1})
	if err != nil {
		t.Fatal(err)
	}

	// The CRD, from the Go type and its doc comments.
	crd, err := crdgen.Generate(operator.Kind, nil, crdgen.Options{Dir: "../examples/operator"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := resource[*api.CustomResourceDefinition](t, kc).Create(ctx, crd); err != nil {
		t.Fatal(err)
	}
	crdChanged := make(chan struct{}, 1)
	watchKind[*api.CustomResourceDefinition](t, kc, notifier(crdChanged))
	eventually(t, crdChanged, "CRD established", func() (string, bool) {
		got, _, err := resource[*api.CustomResourceDefinition](t, kc).Get(ctx, crd.Name)
		if err != nil {
			return err.Error(), false
		}
		for _, c := range got.Status.Conditions {
			if c.Type == "Established" && c.Status == "True" {
				if _, err := client.For[*operator.Website](kc); err != nil { // and discovery lists it
					return "established, not in discovery: " + err.Error(), false
				}
				return "established", true
			}
		}
		return "not established", false
	})
	exerciseOperator(t, kc, func(ready *api.Condition) bool {
		// No kube-controller-manager: no replica is ever ready.
		return ready.Status == api.ConditionFalse && ready.Reason == "Progressing"
	})
}

// exerciseOperator runs the Website operator through kc, a client of a
// server that serves the Website CRD, and checks what it does: the
// webhook's refusals (the webhook served here over HTTPS, registered
// with its caBundle), the finalizer, the Deployment it controls, the
// directory entry, the status — whose Ready condition readyOK judges —
// with observedGeneration, and the cleanup behind the finalizer.
func exerciseOperator(t *testing.T, kc *kube.Client, readyOK func(*api.Condition) bool) {
	ctx := t.Context()
	sites := resource[*operator.Website](t, kc)

	// The webhook, called by the API server over HTTPS.
	h, err := operator.Webhook(kc)
	if err != nil {
		t.Fatal(err)
	}
	hook := httptest.NewTLSServer(h)
	t.Cleanup(hook.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw})
	if _, err := resource[*api.ValidatingWebhookConfiguration](t, kc).Create(ctx, operator.WebhookConfiguration(hook.URL, ca)); err != nil {
		t.Fatal(err)
	}
	// kube-apiserver calls a configuration once its informer has it:
	// until a protected probe's delete is refused, try again.
	probe := website("probe", "probe.example.com", 1)
	probe.Labels = map[string]string{operator.ProtectedLabel: "true"}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := sites.Create(ctx, probe.DeepCopyObject().(*operator.Website)); err != nil {
			t.Fatal(err)
		}
		_, err := sites.Delete(ctx, "default/probe", "")
		if client.IsForbidden(err) {
			break
		}
		if err != nil || time.Now().After(deadline) {
			t.Fatalf("the webhook is not called: %v", err)
		}
		select { // the probe is deleted (no finalizer yet): try again
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	update(t, sites, "default/probe", unprotect)
	if _, err := sites.Delete(ctx, "default/probe", ""); err != nil {
		t.Fatal(err)
	}

	// The operator, as in the in-process tests.
	f := informer.NewFactory(informer.FactoryOptions{})
	rec := events.NewMemory()
	op, err := operator.New(kc, f, operator.Options{Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	f.Start(runCtx)
	go func() { done <- op.Run(runCtx) }()
	t.Cleanup(func() {
		cancel()
		f.Shutdown()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Error(err)
		}
	})
	changed := make(chan struct{}, 1)
	for _, watch := range []func(testing.TB, client.Client, func()){
		watchKind[*operator.Website], watchKind[*api.Deployment], watchKind[*api.ConfigMap],
	} {
		watch(t, kc, notifier(changed))
	}

	start := time.Now()
	if _, err := sites.Create(ctx, website("blog", "blog.example.com", 2)); err != nil {
		t.Fatal(err)
	}
	eventually(t, changed, "blog reconciled", func() (string, bool) {
		w, _, err := sites.Get(ctx, "default/blog")
		if err != nil {
			return err.Error(), false
		}
		ready := api.FindCondition(w.Status.Conditions, "Ready")
		if !slices.Contains(w.Finalizers, operator.Finalizer) || ready == nil || w.Status.ObservedGeneration != w.Generation {
			return "status " + toJSON(w.Status) + " finalizers " + toJSON(w.Finalizers), false
		}
		if !readyOK(ready) || ready.ObservedGeneration != w.Generation {
			return "ready " + toJSON(ready), false
		}
		d, _, err := resource[*api.Deployment](t, kc).Get(ctx, "default/blog")
		if err != nil {
			return err.Error(), false
		}
		if !api.IsControlledBy(d, w) || *d.Spec.Replicas != 2 || d.Spec.Template.Spec.Containers[0].Image != "nginx:1.27" {
			return "deployment " + toJSON(d.OwnerReferences), false
		}
		if dir := directory(ctx, t, kc); dir["blog.example.com"] != "default/blog" {
			return "directory " + toJSON(dir), false
		}
		return "reconciled", true
	})
	t.Logf("reconciled by the operator in %v", time.Since(start))
	if !slices.Contains(reasons(rec), "Created") {
		t.Errorf("events %v, want Created", reasons(rec))
	}

	// The webhook refuses a host already served, as the operator wrote it.
	_, err = sites.Create(ctx, website("blog2", "blog.example.com", 1))
	if !client.IsBadRequest(err) || !contains(err, `admission webhook "`+operator.WebhookName+`" denied the request: spec.host "blog.example.com" is already served by website default/blog`) {
		t.Fatalf("a duplicate host: %v, want the webhook's 400", err)
	}
	// A protected site may not be deleted.
	update(t, sites, "default/blog", func(w *operator.Website) { w.Labels = map[string]string{operator.ProtectedLabel: "true"} })
	if _, err := sites.Delete(ctx, "default/blog", ""); !client.IsForbidden(err) || !contains(err, "website default/blog is protected") {
		t.Fatalf("deleting a protected site: %v, want the webhook's 403", err)
	}

	// Deleted: the operator removes the directory entry, then its
	// finalizer, and the site goes.
	update(t, sites, "default/blog", unprotect)
	if _, err := sites.Delete(ctx, "default/blog", ""); err != nil {
		t.Fatal(err)
	}
	eventually(t, changed, "blog finalized", func() (string, bool) {
		if _, _, err := sites.Get(ctx, "default/blog"); !client.IsNotFound(err) {
			return "still there: " + errString(err), false
		}
		if dir := directory(ctx, t, kc); len(dir) != 0 {
			return "directory " + toJSON(dir), false
		}
		return "gone", true
	})
	if !slices.Contains(reasons(rec), "Unlisted") {
		t.Errorf("events %v, want Unlisted", reasons(rec))
	}
}

func website(name, host string, replicas int32) *operator.Website {
	return &operator.Website{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name},
		Spec: operator.WebsiteSpec{Host: host, Image: "nginx:1.27", Replicas: &replicas}}
}

func unprotect(w *operator.Website) { delete(w.Labels, operator.ProtectedLabel) }

// directory returns the operator's directory ConfigMap's data (nil when
// it does not exist).
func directory(ctx context.Context, t *testing.T, c client.Client) map[string]string {
	cm, _, err := resource[*api.ConfigMap](t, c).Get(ctx, "default/"+operator.Directory)
	if err != nil {
		return nil
	}
	return cm.Data
}

func reasons(rec *events.Memory) []string {
	var out []string
	for _, ev := range rec.Events() {
		out = append(out, ev.Reason)
	}
	return out
}

// notifier returns a function that signals ch without blocking
// (signals coalesce).
func notifier(ch chan struct{}) func() {
	return func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// eventually waits, for changes signalled on changed, until done
// reports true, failing the test after 30 s with done's last state.
func eventually(t *testing.T, changed <-chan struct{}, what string, done func() (string, bool)) {
	t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	// Some states show in no watched object (discovery serving a CRD's
	// kind after it is Established): look again now and then as well.
	poll := time.NewTicker(200 * time.Millisecond)
	defer poll.Stop()
	for {
		state, ok := done()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-poll.C:
		case <-deadline.C:
			t.Fatalf("%s: not reached in 30 s; last state: %s", what, state)
		}
	}
}

func contains(err error, s string) bool { return err != nil && strings.Contains(err.Error(), s) }

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

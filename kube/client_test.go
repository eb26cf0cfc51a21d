package kube_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/kube"
	"github.com/ctrlkit/ctrlkit/source"
)

// Every kind of controllers/api is served, under the plural the API
// server's discovery gives it; other kinds are ErrUnknownKind.
func TestClientKinds(t *testing.T) {
	cl, err := kube.NewClient(pipeConfig(http.NotFoundHandler()), kube.ClientOptions{})
	require.NoError(t, err)
	want := map[string]string{"Endpoints": "endpoints", "StorageClass": "storageclasses", "HorizontalPodAutoscaler": "horizontalpodautoscalers",
		"Pod": "pods", "Lease": "leases", "ReplicaSet": "replicasets", "Event": "events"}
	for _, gvk := range api.Kinds() {
		r, err := cl.ResourceFor(gvk)
		require.NoError(t, err, gvk)
		res := r.(interface{ Resource() string })
		if w, ok := want[gvk.Kind]; ok {
			require.Equal(t, w, res.Resource())
		}
	}
	_, err = cl.ResourceFor(api.GroupVersionKind{Group: "apps", Version: "v1beta1", Kind: "Deployment"})
	require.ErrorIs(t, err, client.ErrUnknownKind)
	pods, err := client.For[*api.Pod](cl)
	require.NoError(t, err)
	require.Equal(t, "pods", pods.Resource())
	_, err = client.BinderFor(cl)
	require.NoError(t, err)
}

// Every Resource method against ctrlkit's own API server: writes
// overwrite the caller's object, conflicts, the status and scale
// subresources, the three patch types, selections, pagination, delete
// options, and the pods' binding subresource.
func TestClientResourceMethods(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		cl, s := newServedClient(t, cluster.Options{}, kube.ClientOptions{})
		nss, err := client.For[*api.Namespace](cl)
		require.NoError(t, err)
		for _, n := range []string{"a", "b"} {
			require.NoError(t, ignoreRV(nss.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: n}})))
		}
		pods, err := client.For[*api.Pod](cl)
		require.NoError(t, err)

		p := newTestPod("a", "p1")
		rv, err := pods.Create(ctx, p)
		require.NoError(t, err)
		require.Equal(t, rv, p.ResourceVersion)
		require.NotEmpty(t, p.UID, "Create overwrites the object with the server's")
		require.Equal(t, "Pod", p.Kind)
		require.NotEmpty(t, p.Spec.Containers[0].ImagePullPolicy, "defaults come back")
		_, err = pods.Create(ctx, newTestPod("a", "p1"))
		require.True(t, client.IsAlreadyExists(err), "%v", err)
		gen := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "b", GenerateName: "g-"}, Spec: newTestPod("", "").Spec}
		require.NoError(t, ignoreRV(pods.Create(ctx, gen)))
		require.True(t, strings.HasPrefix(gen.Name, "g-"), gen.Name)

		got, grv, err := pods.Get(ctx, "a/p1")
		require.NoError(t, err)
		require.Equal(t, rv, grv)
		require.Equal(t, p.UID, got.UID)
		_, _, err = pods.Get(ctx, "a/missing")
		require.True(t, client.IsNotFound(err), "%v", err)

		// Update; a stale one conflicts; a no-op writes nothing.
		stale := got.DeepCopy()
		got.Labels["tier"] = "front"
		rv2, err := pods.Update(ctx, got, "")
		require.NoError(t, err)
		require.NotEqual(t, rv, rv2)
		require.Equal(t, rv2, got.ResourceVersion)
		stale.Labels["tier"] = "back"
		_, err = pods.Update(ctx, stale, "")
		require.True(t, client.IsConflict(err), "%v", err)
		_, err = pods.Update(ctx, stale, rv)
		require.True(t, client.IsConflict(err), "%v", err)
		rv3, err := pods.Update(ctx, got, "")
		require.NoError(t, err)
		require.Equal(t, rv2, rv3, "a no-op update writes nothing")
		// Unconditional: no version at all.
		unc := got.DeepCopy()
		unc.ResourceVersion = ""
		unc.Labels["u"] = "1"
		_, err = pods.Update(ctx, unc, "")
		require.NoError(t, err)
		require.Equal(t, "1", unc.Labels["u"])

		// UpdateStatus writes the status only.
		cur, _, err := pods.Get(ctx, "a/p1")
		require.NoError(t, err)
		cur.Status.Phase = api.PodRunning
		cur.Labels["ignored"] = "yes"
		_, err = pods.UpdateStatus(ctx, cur)
		require.NoError(t, err)
		require.Equal(t, api.PodRunning, cur.Status.Phase)
		require.NotContains(t, cur.Labels, "ignored", "the status subresource ignores metadata")

		// Patches.
		pp, err := pods.Patch(ctx, "a/p1", client.MergePatch, []byte(`{"metadata":{"labels":{"m":"1"}}}`))
		require.NoError(t, err)
		require.Equal(t, "1", pp.Labels["m"])
		pp, err = pods.Patch(ctx, "a/p1", client.JSONPatch, []byte(`[{"op":"add","path":"/metadata/labels/j","value":"2"}]`))
		require.NoError(t, err)
		require.Equal(t, "2", pp.Labels["j"])
		pp, err = pods.Patch(ctx, "a/p1", client.StrategicMergePatch, []byte(`{"spec":{"containers":[{"name":"c","image":"nginx:2"}]}}`))
		require.NoError(t, err)
		require.Equal(t, "nginx:2", pp.Spec.Containers[0].Image)
		_, err = pods.Patch(ctx, "a/p1", client.MergePatch, []byte(`{"metadata":{"resourceVersion":"1","labels":{"x":"y"}}}`))
		require.True(t, client.IsConflict(err), "%v", err)
		_, err = pods.Patch(ctx, "a/p1", "application/apply-patch+yaml", []byte(`{}`))
		require.True(t, client.IsBadRequest(err), "%v", err)

		// Lists and selections.
		for i := range 4 {
			q := newTestPod("b", fmt.Sprintf("q%d", i))
			q.Labels["i"] = fmt.Sprint(i % 2)
			require.NoError(t, ignoreRV(pods.Create(ctx, q)))
		}
		all, err := pods.List(ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Len(t, all.Items, 6)
		require.Equal(t, "Pod", all.Items[0].Kind)
		page, err := pods.List(ctx, source.ListOptions{Limit: 4})
		require.NoError(t, err)
		require.Len(t, page.Items, 4)
		require.NotEmpty(t, page.Continue)
		page, err = pods.List(ctx, source.ListOptions{Limit: 4, Continue: page.Continue})
		require.NoError(t, err)
		require.Len(t, page.Items, 2)
		sel, err := pods.Select(client.SelectOptions{Namespace: "b", LabelSelector: "i=1"})
		require.NoError(t, err)
		l, err := sel.List(ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Equal(t, []string{"q1", "q3"}, names(l.Items))
		sel, err = pods.Select(client.SelectOptions{FieldSelector: "metadata.name=q2"})
		require.NoError(t, err)
		l, err = sel.List(ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Equal(t, []string{"q2"}, names(l.Items))
		_, err = pods.Select(client.SelectOptions{LabelSelector: "a in (b"})
		require.True(t, client.IsBadRequest(err), "%v", err)
		_, err = nss.Select(client.SelectOptions{Namespace: "a"})
		require.True(t, client.IsBadRequest(err), "%v", err)
		cms, err := client.For[*api.ConfigMap](cl)
		require.NoError(t, err)
		cmSel, err := cms.Select(client.SelectOptions{FieldSelector: "spec.nodeName=x"})
		require.NoError(t, err)
		_, err = cmSel.List(ctx, source.ListOptions{})
		require.True(t, client.IsBadRequest(err), "%v", err)

		// Watch of a selection, from now.
		wctx, cancel := context.WithCancel(ctx)
		sel, err = pods.Select(client.SelectOptions{Namespace: "b"})
		require.NoError(t, err)
		w, err := sel.Watch(wctx, source.WatchOptions{})
		require.NoError(t, err)
		require.NoError(t, ignoreRV(pods.Create(ctx, newTestPod("a", "elsewhere"))))
		require.NoError(t, ignoreRV(pods.Create(ctx, newTestPod("b", "w1"))))
		ev := <-w
		require.Equal(t, source.Added, ev.Type)
		require.Equal(t, "w1", ev.Object.Name)
		require.Equal(t, ev.Object.ResourceVersion, ev.ResourceVersion)
		cancel()
		for range w {
		}

		// Binding.
		binder, err := client.BinderFor(cl)
		require.NoError(t, err)
		s.setIntercept(func(w http.ResponseWriter, r *http.Request) bool {
			if !strings.HasSuffix(r.URL.Path, "/binding") {
				return false
			}
			var b struct {
				Metadata api.ObjectMeta `json:"metadata"`
				Target   struct{ Name string }
			}
			if json.NewDecoder(r.Body).Decode(&b) != nil || r.Method != http.MethodPost {
				w.WriteHeader(http.StatusBadRequest)
				return true
			}
			if _, err := s.c.Bind(r.Context(), b.Metadata.Namespace, b.Metadata.Name, b.Target.Name); err != nil {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusConflict)
				fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict","code":409,"message":%q}`, err.Error())
				return true
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Success","code":201}`)
			return true
		})
		_, err = binder.Bind(ctx, "b", "q0", "node-1")
		require.NoError(t, err)
		bound, _, err := pods.Get(ctx, "b/q0")
		require.NoError(t, err)
		require.Equal(t, "node-1", bound.Spec.NodeName)
		_, err = binder.Bind(ctx, "b", "q0", "node-2")
		require.True(t, client.IsConflict(err), "%v", err)
		s.setIntercept(nil)

		// Deletes: preconditions, graceful deletion of a bound pod, the
		// foreground policy's finalizer.
		_, err = pods.DeleteWith(ctx, "b/q1", client.DeleteOptions{Preconditions: client.Preconditions{UID: "other"}})
		require.True(t, client.IsConflict(err), "%v", err)
		_, err = pods.Delete(ctx, "b/q1", "1")
		require.True(t, client.IsConflict(err), "%v", err)
		_, err = pods.DeleteWith(ctx, "b/q1", client.DeleteOptions{})
		require.NoError(t, err)
		_, _, err = pods.Get(ctx, "b/q1")
		require.True(t, client.IsNotFound(err), "%v", err)
		mrv, err := pods.DeleteWith(ctx, "b/q0", client.DeleteOptions{GracePeriodSeconds: ptrTo(int64(30))})
		require.NoError(t, err)
		marked, grv2, err := pods.Get(ctx, "b/q0")
		require.NoError(t, err)
		require.NotNil(t, marked.DeletionTimestamp, "a bound pod is deleted gracefully")
		require.Equal(t, grv2, mrv, "the version of the marking")
		zero := int64(0)
		_, err = pods.DeleteWith(ctx, "b/q0", client.DeleteOptions{GracePeriodSeconds: &zero})
		require.NoError(t, err)
		_, _, err = pods.Get(ctx, "b/q0")
		require.True(t, client.IsNotFound(err), "%v", err)

		// Scale.
		deps, err := client.For[*api.Deployment](cl)
		require.NoError(t, err)
		d := &api.Deployment{ObjectMeta: api.ObjectMeta{Namespace: "a", Name: "web"}, Spec: api.DeploymentSpec{
			Replicas: ptrTo(int32(2)), Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}}, Spec: newTestPod("", "").Spec}}}
		require.NoError(t, ignoreRV(deps.Create(ctx, d)))
		sc, err := deps.GetScale(ctx, "a/web")
		require.NoError(t, err)
		require.EqualValues(t, 2, sc.Spec.Replicas)
		require.Equal(t, "app=web", sc.Status.Selector)
		sc.Spec.Replicas = 5
		sc, err = deps.UpdateScale(ctx, "a/web", sc)
		require.NoError(t, err)
		require.EqualValues(t, 5, sc.Spec.Replicas)
		sc.ResourceVersion = d.ResourceVersion
		_, err = deps.UpdateScale(ctx, "a/web", sc)
		require.True(t, client.IsConflict(err), "%v", err)
		_, err = cms.GetScale(ctx, "a/x")
		require.ErrorIs(t, err, source.ErrUnsupported)
		fg := client.DeletePropagationForeground
		frv, err := deps.DeleteWith(ctx, "a/web", client.DeleteOptions{PropagationPolicy: fg})
		require.NoError(t, err)
		d, grv, err = deps.Get(ctx, "a/web")
		require.NoError(t, err)
		require.Equal(t, grv, frv)
		require.Contains(t, d.Finalizers, client.FinalizerDeleteDependents)
	})
}

// The Status errors of the API server become the client's predicates.
func TestClientErrorMapping(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		cl, _ := newServedClient(t, cluster.Options{HistorySize: 4, MaxObjectBytes: 4096}, kube.ClientOptions{})
		nss, _ := client.For[*api.Namespace](cl)
		cms, _ := client.For[*api.ConfigMap](cl)
		pods, _ := client.For[*api.Pod](cl)
		require.NoError(t, ignoreRV(nss.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "e"}})))

		_, err := cms.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "e", Name: "Bad_Name"}})
		require.True(t, client.IsInvalid(err), "%v", err)
		var inv *client.InvalidError
		require.ErrorAs(t, err, &inv)
		require.Equal(t, "configmaps", inv.Resource)
		fe, ok := inv.Field("metadata.name")
		require.True(t, ok, "%v", inv)
		require.Equal(t, client.FieldInvalid, fe.Type)
		require.Equal(t, "Bad_Name", fe.Value)
		require.NotEmpty(t, fe.Detail)
		_, err = pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "e", Name: "p"}})
		require.ErrorAs(t, err, &inv)
		fe, ok = inv.Field("spec.containers")
		require.True(t, ok, "%v", inv)
		require.Equal(t, client.FieldRequired, fe.Type)

		_, err = nss.Delete(ctx, "default", "")
		require.True(t, client.IsForbidden(err), "%v", err)
		_, err = cms.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "e", Name: "big"}, Data: map[string]string{"x": strings.Repeat("x", 8192)}})
		require.True(t, client.IsTooLarge(err), "%v", err)

		first := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "e", Name: "c0"}}
		rv, err := cms.Create(ctx, first)
		require.NoError(t, err)
		for i := range 8 {
			require.NoError(t, ignoreRV(cms.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "e", Name: fmt.Sprintf("c%d", i+1)}})))
		}
		_, err = cms.List(ctx, source.ListOptions{ResourceVersion: rv, ResourceVersionMatch: source.Exact})
		require.True(t, client.IsGone(err), "%v", err)
	})

	// The codes ctrlkit's server does not answer here, from a stub.
	for _, tc := range []struct {
		code   int
		reason string
		retry  string
		is     func(error) bool
		after  time.Duration
	}{
		{http.StatusNotFound, "NotFound", "", client.IsNotFound, 0},
		{http.StatusConflict, "AlreadyExists", "", client.IsAlreadyExists, 0},
		{http.StatusConflict, "Conflict", "", client.IsConflict, 0},
		{http.StatusForbidden, "Forbidden", "", client.IsForbidden, 0},
		{http.StatusBadRequest, "BadRequest", "", client.IsBadRequest, 0},
		{http.StatusGone, "Expired", "", client.IsGone, 0},
		{http.StatusRequestEntityTooLarge, "RequestEntityTooLarge", "", client.IsTooLarge, 0},
		{http.StatusTooManyRequests, "TooManyRequests", "", client.IsTooManyRequests, 0},
		{http.StatusGatewayTimeout, "Timeout", "", client.IsServerTimeout, 0},
		{http.StatusInternalServerError, "ServerTimeout", "", client.IsServerTimeout, 0},
		{http.StatusGatewayTimeout, "Timeout", "7", client.IsServerTimeout, 7 * time.Second},
	} {
		t.Run(fmt.Sprint(tc.code, tc.reason, tc.retry), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					if tc.retry != "" {
						w.Header().Set("Retry-After", tc.retry)
					}
					w.WriteHeader(tc.code)
					details := ""
					if tc.retry != "" {
						details = `,"details":{"retryAfterSeconds":` + tc.retry + `}`
					}
					fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":%q,"code":%d,"message":"m"%s}`, tc.reason, tc.code, details)
				})
				cl, err := kube.NewClient(pipeConfig(h), kube.ClientOptions{})
				require.NoError(t, err)
				cms, _ := client.For[*api.ConfigMap](cl)
				_, _, err = cms.Get(t.Context(), "ns/x")
				require.True(t, tc.is(err), "%v", err)
				after, ok := client.RetryAfter(err)
				require.Equal(t, tc.after, after)
				require.Equal(t, tc.after > 0, ok)
			})
		})
	}
}

// The client's rate limit is kube-controller-manager's by default and
// holds: a burst goes through at once, the rest at QPS.
func TestClientQPS(t *testing.T) {
	cl, err := kube.NewClient(pipeConfig(http.NotFoundHandler()), kube.ClientOptions{})
	require.NoError(t, err)
	qps, burst := cl.RateLimit()
	require.EqualValues(t, 20, qps)
	require.Equal(t, 30, burst)

	synctest.Test(t, func(t *testing.T) {
		cl, s := newServedClient(t, cluster.Options{}, kube.ClientOptions{QPS: 5, Burst: 10})
		cms, _ := client.For[*api.ConfigMap](cl)
		start := time.Now()
		for range 30 {
			_, _, err := cms.Get(t.Context(), "default/none")
			require.True(t, client.IsNotFound(err), "%v", err)
		}
		// 10 at once, then 20 more at 5 per second: 4 s.
		require.Equal(t, 4*time.Second, time.Since(start).Round(100*time.Millisecond))
		require.EqualValues(t, 30, s.requests.Load())
	})
}

// A 429 with Retry-After is waited out and retried by client-go; one
// that lasts is IsTooManyRequests with the delay.
func TestClientTooManyRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cl, s := newServedClient(t, cluster.Options{}, kube.ClientOptions{})
		cms, _ := client.For[*api.ConfigMap](cl)
		var throttle atomic.Int64
		throttle.Store(1)
		s.setIntercept(func(w http.ResponseWriter, r *http.Request) bool {
			if throttle.Add(-1) < 0 {
				return false
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429,"message":"slow down","details":{"retryAfterSeconds":3}}`)
			return true
		})
		start := time.Now()
		_, _, err := cms.Get(t.Context(), "default/none")
		require.True(t, client.IsNotFound(err), "retried after the 429: %v", err)
		require.GreaterOrEqual(t, time.Since(start), 3*time.Second, "Retry-After honoured")
		require.EqualValues(t, 2, s.requests.Load())

		throttle.Store(1000)
		_, _, err = cms.Get(t.Context(), "default/none")
		require.True(t, client.IsTooManyRequests(err), "%v", err)
		after, ok := client.RetryAfter(err)
		require.True(t, ok)
		require.Equal(t, 3*time.Second, after)
	})
}

// Watches: the watch-list's initial-events-end bookmark, and through an
// informer a 410 on the watch, after which the reflector relists and
// the cache follows the server.
func TestClientWatchRelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		cl, s := newServedClient(t, cluster.Options{}, kube.ClientOptions{})
		nss, _ := client.For[*api.Namespace](cl)
		cms, _ := client.For[*api.ConfigMap](cl)
		require.NoError(t, ignoreRV(nss.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "w"}})))
		require.NoError(t, ignoreRV(cms.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "w", Name: "a"}})))

		wl, err := cms.Watch(ctx, source.WatchOptions{SendInitialEvents: true, AllowBookmarks: true})
		require.NoError(t, err)
		ev := <-wl
		require.Equal(t, source.Added, ev.Type)
		ev = <-wl
		require.Equal(t, source.Bookmark, ev.Type)
		require.True(t, ev.InitialEventsEnd)
		require.NotEmpty(t, ev.ResourceVersion)

		// The first watch of the informer is answered with ERROR 410.
		var lists, watches atomic.Int64
		s.setIntercept(func(w http.ResponseWriter, r *http.Request) bool {
			if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/configmaps") {
				return false
			}
			if r.URL.Query().Get("watch") != "true" {
				lists.Add(1)
				return false
			}
			if watches.Add(1) > 1 {
				return false
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			fmt.Fprint(w, `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410,"message":"too old resource version"}}`+"\n")
			return true
		})
		var mu sync.Mutex
		var errs []error
		inf, err := informer.New(source.ListWatcher[*api.ConfigMap](cms), api.Key[*api.ConfigMap], informer.Options[*api.ConfigMap]{
			WatchErrorHandler: func(err error) { mu.Lock(); errs = append(errs, err); mu.Unlock() }})
		require.NoError(t, err)
		done := make(chan error)
		go func() { done <- inf.Run(ctx) }()
		require.NoError(t, ignoreRV(cms.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "w", Name: "b"}})))
		synctest.Wait()
		time.Sleep(5 * time.Second) // the reflector's backoff, in virtual time
		synctest.Wait()
		require.True(t, inf.HasSynced())
		require.EqualValues(t, 2, lists.Load(), "relisted after the 410")
		require.GreaterOrEqual(t, watches.Load(), int64(2))
		mu.Lock()
		defer mu.Unlock()
		require.NotEmpty(t, errs)
		require.True(t, client.IsGone(errs[0]), "%v", errs[0])
		require.NoError(t, ignoreRV(cms.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "w", Name: "c"}})))
		synctest.Wait()
		_, ok := inf.Lister().Get("w/c")
		require.True(t, ok, "the new watch follows the server")
		require.Len(t, inf.Lister().List(nil), 3)
		cancel()
		for range wl {
		}
		<-done
	})
}

func names[T api.Object](objs []T) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.GetObjectMeta().Name
	}
	return out
}

func ignoreRV(_ string, err error) error { return err }

// A watch's BOOKMARK frames are Bookmark events when asked for (dropped
// otherwise), and an ERROR 410 frame an Error event that IsGone, after
// which the channel closes.
func TestClientWatchFrames(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			fmt.Fprint(w, `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"namespace":"n","name":"a","uid":"u","resourceVersion":"5"}}}`+"\n")
			fmt.Fprint(w, `{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"7"}}}`+"\n")
			fmt.Fprint(w, `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410,"message":"too old"}}`+"\n")
		})
		cl, err := kube.NewClient(pipeConfig(h), kube.ClientOptions{})
		require.NoError(t, err)
		cms, _ := client.For[*api.ConfigMap](cl)
		for _, bookmarks := range []bool{true, false} {
			w, err := cms.Watch(t.Context(), source.WatchOptions{ResourceVersion: "4", AllowBookmarks: bookmarks})
			require.NoError(t, err)
			var got []source.Event[*api.ConfigMap]
			for ev := range w {
				got = append(got, ev)
			}
			want := []source.EventType{source.Added, source.Bookmark, source.Error}
			if !bookmarks {
				want = []source.EventType{source.Added, source.Error}
			}
			require.Len(t, got, len(want))
			for i := range want {
				require.Equal(t, want[i], got[i].Type)
			}
			require.Equal(t, "a", got[0].Object.Name)
			require.Equal(t, "ConfigMap", got[0].Object.Kind)
			if bookmarks {
				require.Equal(t, "7", got[1].ResourceVersion)
			}
			require.True(t, client.IsGone(got[len(got)-1].Err), "%v", got[len(got)-1].Err)
		}
	})
}

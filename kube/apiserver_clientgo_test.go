package kube_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/kube"
	"github.com/ctrlkit/ctrlkit/source"
)

// served is a cluster behind the API server, behind a handler that counts
// lists and can hold new watches back.
type served struct {
	c  *cluster.Cluster
	ts *httptest.Server
	cs *kubernetes.Clientset

	// lists counts LISTs and watch-list requests (sendInitialEvents=true):
	// the requests of a relist.
	lists atomic.Int64
	mu    sync.Mutex
	hold  chan struct{} // non-nil: new watches wait for it to close
}

func startServedCluster(t *testing.T, historySize int) *served {
	t.Helper()
	c, err := cluster.New(t.Context(), cluster.Options{HistorySize: historySize})
	require.NoError(t, err)
	srv, err := apiserver.New(c, apiserver.Options{})
	require.NoError(t, err)
	s := &served{c: c}
	s.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		isWatch := q.Get("watch") == "true" || strings.Contains(r.URL.Path, "/watch/")
		if r.Method == http.MethodGet && (q.Get("sendInitialEvents") == "true" || !isWatch && strings.HasSuffix(r.URL.Path, "/configmaps")) {
			s.lists.Add(1)
		}
		if isWatch {
			s.mu.Lock()
			hold := s.hold
			s.mu.Unlock()
			if hold != nil {
				select {
				case <-hold:
				case <-r.Context().Done():
					return
				}
			}
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(s.ts.Close)
	// JSON: the server speaks no protobuf, which client-go's clientset
	// sends by default.
	s.cs, err = kubernetes.NewForConfig(&rest.Config{Host: s.ts.URL,
		ContentConfig: rest.ContentConfig{ContentType: "application/json", AcceptContentTypes: "application/json"}})
	require.NoError(t, err)
	return s
}

func (s *served) holdWatches() func() {
	ch := make(chan struct{})
	s.mu.Lock()
	s.hold = ch
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.hold = nil
		s.mu.Unlock()
		close(ch)
	}
}

// clusterConfigMaps returns name → resourceVersion of ns's config maps in the cluster.
func (s *served) clusterConfigMaps(t *testing.T, ns string) map[string]string {
	l, err := s.c.ConfigMaps().List(t.Context(), source.ListOptions{})
	require.NoError(t, err)
	out := map[string]string{}
	for _, cm := range l.Items {
		if cm.Namespace == ns {
			out[cm.Name] = cm.ResourceVersion
		}
	}
	return out
}

// eventually polls cond for up to 10 s: client-go's informer runs against
// a real HTTP server in real time (no synctest bubble holds its sockets),
// so the wait is a bounded poll.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out: %s", what)
		}
		time.Sleep(10 * time.Millisecond) // client-go over real sockets: a bounded poll (10 s)
	}
}

func createNamespace(t *testing.T, cs *kubernetes.Clientset, name string) {
	t.Helper()
	_, err := cs.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	require.NoError(t, err)
}

// client-go's own SharedIndexInformer over the served API: it lists,
// watches, follows creates, updates and deletes, re-watches after its
// connection is cut, and relists after a 410 when it comes back from a
// version the store no longer holds; its cache equals the cluster.
func TestClientGoInformerAgainstServedAPI(t *testing.T) {
	s := startServedCluster(t, 8)
	ctx := t.Context()
	const ns = "informer"
	createNamespace(t, s.cs, ns)
	cms := s.cs.CoreV1().ConfigMaps(ns)
	create := func(name, v string) {
		_, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": v}}, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	// Once the test cuts the client's connections, it writes through the
	// cluster: a POST on a cut keep-alive connection would fail with EOF.
	createInCluster := func(name string) {
		_, err := s.c.ConfigMaps().Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name}})
		require.NoError(t, err)
	}
	for i := range 3 {
		create(fmt.Sprintf("before-%d", i), "0")
	}

	inf := cache.NewSharedIndexInformer(cache.NewListWatchFromClient(s.cs.CoreV1().RESTClient(), "configmaps", ns, fields.Everything()),
		&corev1.ConfigMap{}, 0, cache.Indexers{})
	ictx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); inf.Run(ictx.Done()) }()
	defer func() { cancel(); <-done }()
	require.True(t, cache.WaitForCacheSync(ctx.Done(), inf.HasSynced))

	cached := func() map[string]string {
		out := map[string]string{}
		for _, o := range inf.GetStore().List() {
			cm := o.(*corev1.ConfigMap)
			out[cm.Name] = cm.ResourceVersion
		}
		return out
	}
	same := func(what string) {
		t.Helper()
		eventually(t, what, func() bool { return maps.Equal(cached(), s.clusterConfigMaps(t, ns)) })
	}
	same("the initial list")

	// Creates, updates, deletes.
	create("a", "1")
	cm, err := cms.Get(ctx, "a", metav1.GetOptions{})
	require.NoError(t, err)
	cm.Data["v"] = "2"
	_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	require.NoError(t, err)
	require.NoError(t, cms.Delete(ctx, "before-0", metav1.DeleteOptions{}))
	same("creates, updates and deletes")

	// The watch's connection is cut: client-go re-watches from its
	// version, without a relist.
	lists := s.lists.Load()
	s.ts.CloseClientConnections()
	createInCluster("after-cut")
	same("a write after the watch restarted")
	require.Equal(t, lists, s.lists.Load(), "a cut watch is resumed, not relisted")

	// Cut again and hold the new watch back while more writes than the
	// store remembers happen: the watch from the old version gets a 410
	// and the informer relists.
	release := s.holdWatches()
	s.ts.CloseClientConnections()
	for i := range 12 {
		createInCluster(fmt.Sprintf("gone-%d", i))
	}
	_, err = s.c.ConfigMaps().Delete(ctx, ns+"/a", "")
	require.NoError(t, err)
	release()
	same("the relist after 410 Gone")
	require.Greater(t, s.lists.Load(), lists, "the informer relisted")
}

// A kubernetes.Clientset's writes and the Status errors it maps:
// NotFound, AlreadyExists, Conflict, Invalid with causes, Forbidden,
// BadRequest; patches of the three kinds; the status and scale
// subresources.
func TestClientsetAgainstServedAPI(t *testing.T) {
	s := startServedCluster(t, 0)
	ctx := t.Context()
	const ns = "clientset"
	createNamespace(t, s.cs, ns)
	cms := s.cs.CoreV1().ConfigMaps(ns)

	_, err := cms.Get(ctx, "missing", metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "%v", err)
	require.Equal(t, `configmaps "missing" not found`, err.Error())

	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}, Data: map[string]string{"a": "1"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, cm.UID)
	_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}}, metav1.CreateOptions{})
	require.True(t, apierrors.IsAlreadyExists(err), "%v", err)

	stale := cm.DeepCopy()
	cm.Data["a"] = "2"
	cm, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	require.NoError(t, err)
	stale.Data["a"] = "3"
	_, err = cms.Update(ctx, stale, metav1.UpdateOptions{})
	require.True(t, apierrors.IsConflict(err), "%v", err)

	_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "Bad_Name"}}, metav1.CreateOptions{})
	require.True(t, apierrors.IsInvalid(err), "%v", err)
	var se *apierrors.StatusError
	require.ErrorAs(t, err, &se)
	require.Equal(t, "metadata.name", se.ErrStatus.Details.Causes[0].Field)
	require.Equal(t, metav1.CauseTypeFieldValueInvalid, se.ErrStatus.Details.Causes[0].Type)

	_, err = s.cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}, metav1.CreateOptions{})
	require.True(t, apierrors.IsInvalid(err), "%v", err)
	require.ErrorAs(t, err, &se)
	require.Equal(t, "spec.containers", se.ErrStatus.Details.Causes[0].Field)

	err = s.cs.CoreV1().Namespaces().Delete(ctx, "default", metav1.DeleteOptions{})
	require.True(t, apierrors.IsForbidden(err), "%v", err)
	_, err = cms.List(ctx, metav1.ListOptions{LabelSelector: "a in (b"})
	require.True(t, apierrors.IsBadRequest(err), "%v", err)
	_, err = cms.List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=x"})
	require.True(t, apierrors.IsBadRequest(err), "%v", err)

	// Patches.
	cm, err = cms.Patch(ctx, "cm", types.MergePatchType, []byte(`{"data":{"b":"2","a":null}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"b": "2"}, cm.Data)
	cm, err = cms.Patch(ctx, "cm", types.JSONPatchType, []byte(`[{"op":"add","path":"/data/c","value":"3"}]`), metav1.PatchOptions{})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"b": "2", "c": "3"}, cm.Data)
	_, err = cms.Patch(ctx, "cm", types.ApplyPatchType, []byte(`{}`), metav1.PatchOptions{FieldManager: "x"})
	require.True(t, apierrors.IsUnsupportedMediaType(err), "%v", err)
	_, err = cms.Patch(ctx, "cm", types.MergePatchType, []byte(`{"data":`), metav1.PatchOptions{})
	require.True(t, apierrors.IsBadRequest(err), "%v", err)

	// A deployment: a strategic merge patch merges containers by name;
	// the scale and status subresources.
	deps := s.cs.AppsV1().Deployments(ns)
	replicas := int32(2)
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.DeploymentSpec{
		Replicas: &replicas,
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "a", Image: "a:1"}, {Name: "b", Image: "b:1"}}}}}}
	_, err = deps.Create(ctx, d, metav1.CreateOptions{})
	require.NoError(t, err)
	d, err = deps.Patch(ctx, "web", types.StrategicMergePatchType,
		[]byte(`{"spec":{"template":{"spec":{"containers":[{"name":"b","image":"b:2"}]}}}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	require.Len(t, d.Spec.Template.Spec.Containers, 2)
	require.Equal(t, "b:2", d.Spec.Template.Spec.Containers[1].Image)
	require.EqualValues(t, 2, d.Generation)

	sc, err := deps.GetScale(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	require.EqualValues(t, 2, sc.Spec.Replicas)
	require.Equal(t, "app=web", sc.Status.Selector)
	sc.Spec.Replicas = 4
	sc, err = deps.UpdateScale(ctx, "web", sc, metav1.UpdateOptions{})
	require.NoError(t, err)
	require.EqualValues(t, 4, sc.Spec.Replicas)
	staleScale := sc.DeepCopy()
	staleScale.ResourceVersion = "1"
	_, err = deps.UpdateScale(ctx, "web", staleScale, metav1.UpdateOptions{})
	require.True(t, apierrors.IsConflict(err), "%v", err)
	d, err = deps.Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	require.EqualValues(t, 4, *d.Spec.Replicas)

	d.Status.ObservedGeneration = d.Generation
	d.Status.Replicas = 4
	d.Spec.Paused = true // ignored by the status subresource
	d, err = deps.UpdateStatus(ctx, d, metav1.UpdateOptions{})
	require.NoError(t, err)
	require.EqualValues(t, 4, d.Status.Replicas)
	require.False(t, d.Spec.Paused)
	stored, _, err := s.c.Deployments().Get(ctx, ns+"/web")
	require.NoError(t, err)
	require.EqualValues(t, 4, stored.Status.Replicas)

	// Deletes: preconditions, and a foreground delete that leaves the
	// object with its finalizer for the garbage collector.
	err = cms.Delete(ctx, "cm", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptrTo(types.UID("other"))}})
	require.True(t, apierrors.IsConflict(err), "%v", err)
	require.NoError(t, cms.Delete(ctx, "cm", metav1.DeleteOptions{}))
	fg := metav1.DeletePropagationForeground
	require.NoError(t, deps.Delete(ctx, "web", metav1.DeleteOptions{PropagationPolicy: &fg}))
	d, err = deps.Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	require.NotNil(t, d.DeletionTimestamp)
	require.Contains(t, d.Finalizers, metav1.FinalizerDeleteDependents)

	// deletecollection by label.
	for i := range 3 {
		_, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("l%d", i),
			Labels: map[string]string{"drop": fmt.Sprint(i < 2)}}}, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	require.NoError(t, cms.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "drop=true"}))
	l, err := cms.List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, l.Items, 1)
	require.Equal(t, "l2", l.Items[0].Name)
}

// kube.Source, ctrlkit's client-go adapter, against ctrlkit's own API
// server: the two halves meet. Versions, conflicts, watches from a
// version, watch-list, and 410 after the store forgot a version.
func TestKubeSourceAgainstServedAPI(t *testing.T) {
	s := startServedCluster(t, 8)
	ctx := t.Context()
	const ns = "kubesource"
	createNamespace(t, s.cs, ns)
	src, err := kube.New[*corev1.ConfigMap, *corev1.ConfigMapList](s.cs.CoreV1().RESTClient(), "configmaps", kube.Options{Namespace: ns})
	require.NoError(t, err)
	ord := kube.Ordered[*corev1.ConfigMap]{Source: src}
	newCM := func(name, v string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{"v": v}}
	}

	rv1, err := src.Create(ctx, newCM("a", "1"))
	require.NoError(t, err)
	got, rv, err := src.Get(ctx, ns+"/a")
	require.NoError(t, err)
	require.Equal(t, rv1, rv)
	require.Equal(t, "1", got.Data["v"])
	_, err = src.Create(ctx, newCM("a", "1"))
	require.ErrorIs(t, err, source.ErrAlreadyExists)

	w, err := src.Watch(ctx, source.WatchOptions{ResourceVersion: rv1})
	require.NoError(t, err)
	rv2, err := src.Update(ctx, newCM("a", "2"), rv1)
	require.NoError(t, err)
	_, err = src.Update(ctx, newCM("a", "3"), rv1)
	require.ErrorIs(t, err, source.ErrConflict)
	c, err := ord.CompareResourceVersions(rv1, rv2)
	require.NoError(t, err)
	require.Equal(t, -1, c)
	rv3, err := src.Delete(ctx, ns+"/a", rv2)
	require.NoError(t, err)
	next := func(w <-chan source.Event[*corev1.ConfigMap]) source.Event[*corev1.ConfigMap] {
		t.Helper()
		select {
		case ev, ok := <-w:
			require.True(t, ok, "the watch closed")
			return ev
		case <-time.After(10 * time.Second):
			t.Fatal("no event")
		}
		return source.Event[*corev1.ConfigMap]{}
	}
	ev := next(w)
	require.Equal(t, source.Modified, ev.Type)
	require.Equal(t, rv2, ev.ResourceVersion)
	ev = next(w)
	require.Equal(t, source.Deleted, ev.Type)
	require.Equal(t, rv3, ev.ResourceVersion)
	_, _, err = src.Get(ctx, ns+"/a")
	require.ErrorIs(t, err, source.ErrNotFound)

	// Watch-list: the current state, then the initial-events-end bookmark.
	_, err = src.Create(ctx, newCM("b", "1"))
	require.NoError(t, err)
	wl, err := src.Watch(ctx, source.WatchOptions{SendInitialEvents: true, AllowBookmarks: true})
	require.NoError(t, err)
	ev = next(wl)
	require.Equal(t, source.Added, ev.Type)
	require.Equal(t, "b", ev.Object.Name)
	ev = next(wl)
	require.Equal(t, source.Bookmark, ev.Type)
	require.True(t, ev.InitialEventsEnd)

	// More writes than the store remembers: the old version is gone.
	for i := range 10 {
		_, err := src.Create(ctx, newCM(fmt.Sprintf("x%d", i), "1"))
		require.NoError(t, err)
	}
	_, err = src.List(ctx, source.ListOptions{ResourceVersion: rv1, ResourceVersionMatch: source.Exact})
	require.ErrorIs(t, err, source.ErrExpired)
	old, err := src.Watch(ctx, source.WatchOptions{ResourceVersion: rv1})
	if err == nil {
		ev = next(old)
		require.Equal(t, source.Error, ev.Type)
		err = ev.Err
	}
	require.ErrorIs(t, err, source.ErrExpired)
	l, err := src.List(ctx, source.ListOptions{Limit: 4})
	require.NoError(t, err)
	require.Len(t, l.Items, 4)
	require.NotEmpty(t, l.Continue)
	var names []string
	for {
		for _, cm := range l.Items {
			names = append(names, cm.Name)
		}
		if l.Continue == "" {
			break
		}
		l, err = src.List(ctx, source.ListOptions{Limit: 4, Continue: l.Continue})
		require.NoError(t, err)
	}
	require.Len(t, names, 11)
}

func ptrTo[V any](v V) *V { return &v }

package manager_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/manager"
	"github.com/ctrlkit/ctrlkit/leader"
	"github.com/ctrlkit/ctrlkit/source"
)

type nopRunner struct{}

func (nopRunner) Run(ctx context.Context) error { <-ctx.Done(); return nil }

func nop(manager.Context) (manager.Runner, error) { return nopRunner{}, nil }

// The --controllers semantics of kube-controller-manager
// (cmd/kube-controller-manager/app/options: IsControllerEnabled).
func TestSelect(t *testing.T) {
	ds := []manager.Descriptor{
		{Name: "a-controller", Aliases: []string{"a"}, New: nop},
		{Name: "b-controller", Aliases: []string{"b"}, New: nop},
		{Name: "signer", DisabledByDefault: true, New: nop},
	}
	for _, tc := range []struct {
		flags []string
		want  []string
		err   string
	}{
		{flags: []string{"*"}, want: []string{"a-controller", "b-controller"}},
		{flags: []string{"*", "-b"}, want: []string{"a-controller"}},
		{flags: []string{"*", "signer"}, want: []string{"a-controller", "b-controller", "signer"}},
		{flags: []string{"b"}, want: []string{"b-controller"}},
		{flags: []string{" a-controller ", "-a"}, want: nil},
		{flags: nil, want: nil},
		{flags: []string{"*", "-nope"}, err: `unknown controller "nope"`},
		{flags: []string{"*", ""}, err: "empty controller name"},
	} {
		got, err := manager.Select(ds, tc.flags)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, "%q", tc.flags)
			continue
		}
		require.NoError(t, err, "%q", tc.flags)
		require.Equal(t, tc.want, nilIfEmpty(manager.Names(got)), "%q", tc.flags)
	}
	_, err := manager.Select(append(ds, manager.Descriptor{Name: "x", Aliases: []string{"a"}, New: nop}), []string{"*"})
	require.ErrorContains(t, err, `two descriptors are named "a"`)
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func TestNewBadInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, err := cluster.New(t.Context(), cluster.Options{})
		require.NoError(t, err)
		_, err = manager.New(nil, manager.Options{})
		require.Error(t, err)
		_, err = manager.New(c, manager.Options{Controllers: []string{"*", "-nosuch"}})
		require.ErrorContains(t, err, "nosuch")
		_, err = manager.New(c, manager.Options{Workers: map[string]int{"replicaset": -1}})
		require.ErrorContains(t, err, "negative")
		_, err = manager.New(c, manager.Options{Workers: map[string]int{"nosuch": 1}})
		require.ErrorContains(t, err, "unknown controller")
		_, err = manager.New(c, manager.Options{Descriptors: []manager.Descriptor{{Name: "x", New: func(manager.Context) (manager.Runner, error) {
			return nil, errors.New("boom")
		}}}})
		require.ErrorContains(t, err, "x: boom")
		m, err := manager.New(c, manager.Options{Controllers: []string{"podgc"}})
		require.NoError(t, err)
		require.Equal(t, []string{manager.PodGarbageCollectorController}, m.Controllers())
		require.Error(t, m.Run(nil)) //nolint:staticcheck // a nil context is the bad input under test
	})
}

func replicaSet(replicas int32) *api.ReplicaSet {
	rs := &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"}}
	rs.Spec.Replicas = &replicas
	rs.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	rs.Spec.Template.Labels = map[string]string{"app": "web"}
	rs.Spec.Template.Spec.Containers = []api.Container{{Name: "nginx", Image: "nginx"}}
	return rs
}

// Two replicas of the manager share one election. The leader's term is
// ended in the middle of a scale-up; the standby, its caches warm, takes
// over and finishes it; no pod is created twice, and the old leader's
// controllers had stopped before the new leader's started.
func TestLeaderHandover(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		var mu sync.Mutex
		creates := 0
		count := func(_ context.Context, a cluster.Attributes) error {
			if a.Resource == "pods" && a.Operation == cluster.OperationCreate {
				mu.Lock()
				creates++
				mu.Unlock()
			}
			return nil
		}
		c, err := cluster.New(ctx, cluster.Options{Admission: []cluster.AdmissionFunc{count}})
		require.NoError(t, err)
		elector := leader.NewMemory()
		opts := manager.Options{Controllers: []string{"replicaset"}, Elector: elector}
		m1, err := manager.New(c, opts)
		require.NoError(t, err)
		m2, err := manager.New(c, opts)
		require.NoError(t, err)

		errs := make(chan error, 2)
		go func() { errs <- m1.Run(ctx) }()
		time.Sleep(time.Second) // WaitForCacheSync polls
		synctest.Wait()
		require.True(t, m1.Leading())
		go func() { errs <- m2.Run(ctx) }()
		time.Sleep(time.Second)
		synctest.Wait()
		require.True(t, m2.Synced(), "the standby's caches are warm")
		require.False(t, m2.Leading())

		_, err = c.ReplicaSets().Create(ctx, replicaSet(3))
		require.NoError(t, err)
		time.Sleep(time.Second)
		synctest.Wait()
		require.Equal(t, 3, creates)

		// Scale up and depose the leader before it acts.
		rs, _, err := c.ReplicaSets().Get(ctx, "default/web")
		require.NoError(t, err)
		rs.Spec.Replicas = new(int32(10))
		_, err = c.ReplicaSets().Update(ctx, rs, "")
		require.NoError(t, err)
		require.True(t, elector.Depose())
		synctest.Wait()
		require.ErrorIs(t, <-errs, manager.ErrLeadershipLost)
		require.False(t, m1.Leading())
		require.True(t, m2.Leading())

		time.Sleep(10 * time.Second)
		synctest.Wait()
		pods, err := c.Pods().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Len(t, pods.Items, 10)
		require.Equal(t, 10, creates, "no pod created twice")
	})
}

func TestHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		c, err := cluster.New(ctx, cluster.Options{})
		require.NoError(t, err)
		m, err := manager.New(c, manager.Options{Controllers: []string{"deployment"}})
		require.NoError(t, err)
		metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "workqueue_depth 0\n") })
		h := m.Handler(metrics)
		get := func(h http.Handler, path string) (int, string) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
			return rec.Code, rec.Body.String()
		}
		code, body := get(h, "/healthz")
		require.Equal(t, http.StatusOK, code)
		require.Equal(t, "ok\n", body)
		code, _ = get(h, "/readyz")
		require.Equal(t, http.StatusServiceUnavailable, code, "not ready before the caches sync")

		done := make(chan error, 1)
		go func() { done <- m.Run(ctx) }()
		time.Sleep(time.Second) // WaitForCacheSync polls
		synctest.Wait()
		code, body = get(h, "/readyz")
		require.Equal(t, http.StatusOK, code)
		require.Equal(t, "ok\nleader: true\n", body)
		code, body = get(h, "/metrics")
		require.Equal(t, http.StatusOK, code)
		require.Equal(t, "workqueue_depth 0\n", body)
		code, _ = get(m.Handler(nil), "/metrics")
		require.Equal(t, http.StatusNotFound, code)
		code, body = get(h, "/debug/pprof/")
		require.Equal(t, http.StatusOK, code)
		require.Contains(t, body, "goroutine")
		cancel()
		require.NoError(t, <-done)
	})
}

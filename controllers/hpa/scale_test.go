package hpa_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// recordingClient is the cluster with its ReplicaSets' and StatefulSets'
// writes recorded: "update KEY" for a write of the object, "scale KEY"
// for one of its scale subresource.
type recordingClient struct {
	*cluster.Cluster
	mu     sync.Mutex
	writes []string
}

func (r *recordingClient) record(w string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes = append(r.writes, w)
}

func (r *recordingClient) recorded() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.writes)
}

func (r *recordingClient) ResourceFor(gvk api.GroupVersionKind) (client.Untyped, error) {
	res, err := r.Cluster.ResourceFor(gvk)
	if err != nil {
		return nil, err
	}
	switch x := res.(type) {
	case client.Resource[*api.ReplicaSet]:
		return &recordingResource[*api.ReplicaSet]{inner: x, rc: r}, nil
	case client.Resource[*api.StatefulSet]:
		return &recordingResource[*api.StatefulSet]{inner: x, rc: r}, nil
	}
	return res, nil
}

// inner names the embedded resource (a field named Resource would hide
// the method).
type inner[T api.Object] interface{ client.Resource[T] }

type recordingResource[T api.Object] struct {
	inner[T]
	rc *recordingClient
}

func (r *recordingResource[T]) Update(ctx context.Context, obj T, ifVersion string) (string, error) {
	r.rc.record("update " + api.Key(obj))
	return r.inner.Update(ctx, obj, ifVersion)
}

func (r *recordingResource[T]) UpdateScale(ctx context.Context, key string, s *api.Scale) (*api.Scale, error) {
	r.rc.record("scale " + key)
	return r.inner.UpdateScale(ctx, key, s)
}

// The autoscaler scales its target through the scale subresource, as
// kcm's does (scaleNamespacer.Update), never by writing the target
// itself.
func TestScalesThroughScaleSubresource(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		cl, err := cluster.New(ctx, cluster.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := &recordingClient{Cluster: cl}
		stop := startWithTargets(t, ctx, cancel, c, cl)
		defer stop()
		n := func(v int32) *int32 { return &v }
		for _, a := range []struct {
			kind, name string
			min, max   int32
		}{{"ReplicaSet", "rs", 3, 10}, {"StatefulSet", "sts", 1, 5}} {
			if _, err := cl.HorizontalPodAutoscalers().Create(ctx, &api.HorizontalPodAutoscaler{
				ObjectMeta: api.ObjectMeta{Name: a.name, Namespace: "default"},
				Spec: api.HorizontalPodAutoscalerSpec{ScaleTargetRef: api.CrossVersionObjectReference{Kind: a.kind, Name: a.name, APIVersion: "apps/v1"},
					MinReplicas: n(a.min), MaxReplicas: a.max}}); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(time.Second)
		synctest.Wait()
		rs, _, _ := cl.ReplicaSets().Get(ctx, "default/rs")
		sts, _, _ := cl.StatefulSets().Get(ctx, "default/sts")
		if *rs.Spec.Replicas != 3 || *sts.Spec.Replicas != 5 {
			t.Errorf("replicas: ReplicaSet %d (want 3), StatefulSet %d (want 5)", *rs.Spec.Replicas, *sts.Spec.Replicas)
		}
		got := c.recorded()
		slices.Sort(got)
		if want := []string{"scale default/rs", "scale default/sts"}; !slices.Equal(got, want) {
			t.Errorf("writes to the targets: %q, want %q", got, want)
		}
	})
}

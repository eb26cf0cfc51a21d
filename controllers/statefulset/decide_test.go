package statefulset

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// The cases follow kcm's stateful_set_control_test.go scenarios
// (TestStatefulSetControl's scale up/down, TestStatefulSetControlRollingUpdate
// with partitions, OnDelete, MaxUnavailable, TestStatefulSetControlLimitsHistory),
// over explicit instants.

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

func tmpl(image string) api.PodTemplateSpec {
	return api.PodTemplateSpec{
		ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "nginx"}},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: image}}},
	}
}

func webSet(replicas int32, image string) *api.StatefulSet {
	return &api.StatefulSet{
		TypeMeta:   api.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", UID: "set-uid", Generation: 1},
		Spec: api.StatefulSetSpec{
			Replicas:            &replicas,
			Selector:            &api.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}},
			Template:            tmpl(image),
			ServiceName:         "nginx",
			PodManagementPolicy: api.OrderedReadyPodManagement,
			UpdateStrategy:      api.StatefulSetUpdateStrategy{Type: "RollingUpdate"},
		},
	}
}

func rev(t *testing.T, set *api.StatefulSet, image string, n int64) *api.ControllerRevision {
	t.Helper()
	s := set.DeepCopy()
	s.Spec.Template = tmpl(image)
	r, err := newRevision(s, n, 0)
	require.NoError(t, err)
	return r
}

// state of a test pod
type state int

const (
	pending   state = iota
	ready           // Running and Ready since t0-1h
	justReady       // Running and Ready since t0-5s
	failed
	terminating // Ready, with a deletion timestamp
)

func pod(set *api.StatefulSet, r *api.ControllerRevision, ordinal int, s state) *api.Pod {
	tp, _ := templateOf(r)
	p := newPod(set, tp, r.Name, ordinal)
	p.UID = api.UID(fmt.Sprintf("pod-%d", ordinal))
	p.Status.Phase = api.PodPending
	switch s {
	case ready, justReady, terminating:
		since := t0.Add(-time.Hour)
		if s == justReady {
			since = t0.Add(-5 * time.Second)
		}
		p.Status.Phase = api.PodRunning
		p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(since)}}
		if s == terminating {
			p.DeletionTimestamp = ptr(api.NewTime(t0))
		}
	case failed:
		p.Status.Phase = api.PodFailed
	}
	return p
}

// summary renders a plan's actions as "op name" strings.
func summary(p plan) []string {
	out := []string{}
	for _, a := range p.actions {
		name := ""
		if a.claim != nil && (a.op == createClaim || a.op == updateClaim) {
			name = a.claim.Name
		} else {
			name = a.pod.Name
		}
		s := a.op.String() + " " + name
		if a.op == createPod {
			s += "@" + strings.TrimPrefix(a.pod.Labels[api.LabelControllerRevisionHash], "web-")[:3]
		}
		out = append(out, s)
	}
	return out
}

func TestDecide(t *testing.T) {
	base := webSet(3, "mysql:5.7.2")
	oldRev := rev(t, base, "mysql:5.7.2", 1)
	newRev := rev(t, base, "mysql:5.7.23", 2)
	o, n := oldRev.Name[4:7], newRev.Name[4:7]
	updated := func(mut func(*api.StatefulSet)) *api.StatefulSet {
		s := webSet(3, "mysql:5.7.23")
		s.Status.CurrentRevision = oldRev.Name
		if mut != nil {
			mut(s)
		}
		return s
	}
	partition := func(p int32) func(*api.StatefulSet) {
		return func(s *api.StatefulSet) {
			s.Spec.UpdateStrategy.RollingUpdate = &api.RollingUpdateStatefulSetStrategy{Partition: &p}
		}
	}
	cases := []struct {
		name   string
		set    *api.StatefulSet
		revs   []*api.ControllerRevision
		pods   func(s *api.StatefulSet) []*api.Pod
		want   []string
		status func(*testing.T, api.StatefulSetStatus)
	}{
		{name: "new set: one pod, the lowest ordinal", set: base,
			want: []string{"createPod web-0@" + o}},
		{name: "OrderedReady waits for a pending pod", set: base, revs: []*api.ControllerRevision{oldRev},
			pods: func(s *api.StatefulSet) []*api.Pod { return []*api.Pod{pod(s, oldRev, 0, pending)} },
			want: []string{}},
		{name: "web-0 ready: web-1 next", set: base, revs: []*api.ControllerRevision{oldRev},
			pods: func(s *api.StatefulSet) []*api.Pod { return []*api.Pod{pod(s, oldRev, 0, ready)} },
			want: []string{"createPod web-1@" + o}},
		{name: "a gap is filled before higher ordinals", set: base, revs: []*api.ControllerRevision{oldRev},
			pods: func(s *api.StatefulSet) []*api.Pod {
				return []*api.Pod{pod(s, oldRev, 1, ready), pod(s, oldRev, 2, ready)}
			},
			want: []string{"createPod web-0@" + o}},
		{name: "Parallel creates every pod", revs: []*api.ControllerRevision{oldRev},
			set: func() *api.StatefulSet {
				s := webSet(3, "mysql:5.7.2")
				s.Spec.PodManagementPolicy = api.ParallelPodManagement
				return s
			}(),
			want: []string{"createPod web-0@" + o, "createPod web-1@" + o, "createPod web-2@" + o}},
		{name: "a failed pod is deleted, then recreated on a later sync", set: base, revs: []*api.ControllerRevision{oldRev},
			pods: func(s *api.StatefulSet) []*api.Pod {
				return []*api.Pod{pod(s, oldRev, 0, failed), pod(s, oldRev, 1, ready)}
			},
			want: []string{"deletePod web-0"}},
		{name: "scale down from the top, one at a time", set: webSet(1, "mysql:5.7.2"), revs: []*api.ControllerRevision{oldRev},
			pods: func(s *api.StatefulSet) []*api.Pod {
				return []*api.Pod{pod(s, oldRev, 0, ready), pod(s, oldRev, 1, ready), pod(s, oldRev, 2, ready)}
			},
			want: []string{"deletePod web-2"}},
		{name: "scale down waits for a terminating pod", set: webSet(1, "mysql:5.7.2"), revs: []*api.ControllerRevision{oldRev},
			pods: func(s *api.StatefulSet) []*api.Pod {
				return []*api.Pod{pod(s, oldRev, 0, ready), pod(s, oldRev, 1, ready), pod(s, oldRev, 2, terminating)}
			},
			want: []string{}},
		{name: "scale down waits for an unhealthy member", set: webSet(1, "mysql:5.7.2"), revs: []*api.ControllerRevision{oldRev},
			pods: func(s *api.StatefulSet) []*api.Pod {
				return []*api.Pod{pod(s, oldRev, 0, pending), pod(s, oldRev, 1, ready)}
			},
			want: []string{}},
		{name: "the first unhealthy condemned pod goes at once", set: webSet(1, "mysql:5.7.2"), revs: []*api.ControllerRevision{oldRev},
			pods: func(s *api.StatefulSet) []*api.Pod {
				return []*api.Pod{pod(s, oldRev, 0, ready), pod(s, oldRev, 1, ready), pod(s, oldRev, 2, pending)}
			},
			want: []string{"deletePod web-2"}},
		{name: "rolling update: the highest ordinal first", set: updated(nil), revs: []*api.ControllerRevision{oldRev},
			pods: func(s *api.StatefulSet) []*api.Pod {
				return []*api.Pod{pod(s, oldRev, 0, ready), pod(s, oldRev, 1, ready), pod(s, oldRev, 2, ready)}
			},
			want: []string{"deletePod web-2"},
			status: func(t *testing.T, st api.StatefulSetStatus) {
				require.Equal(t, oldRev.Name, st.CurrentRevision)
				require.Equal(t, newRev.Name, st.UpdateRevision)
				require.EqualValues(t, 2, st.CurrentReplicas, "the deleted pod is no longer current")
			}},
		{name: "rolling update: a deleted pod comes back at the update revision", set: updated(nil), revs: []*api.ControllerRevision{oldRev, newRev},
			pods: func(s *api.StatefulSet) []*api.Pod {
				return []*api.Pod{pod(s, oldRev, 0, ready), pod(s, oldRev, 1, ready)}
			},
			want: []string{"createPod web-2@" + n}},
		{name: "rolling update waits for the updated pod to be ready", set: updated(nil), revs: []*api.ControllerRevision{oldRev, newRev},
			pods: func(s *api.StatefulSet) []*api.Pod {
				return []*api.Pod{pod(s, oldRev, 0, ready), pod(s, oldRev, 1, ready), pod(s, newRev, 2, pending)}
			},
			want: []string{}},
		{name: "rolling update: then the next one down", set: updated(nil), revs: []*api.ControllerRevision{oldRev, newRev},
			pods: func(s *api.StatefulSet) []*api.Pod {
				return []*api.Pod{pod(s, oldRev, 0, ready), pod(s, oldRev, 1, ready), pod(s, newRev, 2, ready)}
			},
			want: []string{"deletePod web-1"}},
		{name: "partition 2: only web-2 is updated", set: updated(partition(2)), revs: []*api.ControllerRevision{oldRev, newRev},
			pods: func(s *api.StatefulSet) []*api.Pod {
				return []*api.Pod{pod(s, oldRev, 0, ready), pod(s, oldRev, 1, ready), pod(s, newRev, 2, ready)}
			},
			want: []string{},
			status: func(t *testing.T, st api.StatefulSetStatus) {
				require.Equal(t, oldRev.Name, st.CurrentRevision, "a partitioned rollout never completes")
				require.EqualValues(t, 2, st.CurrentReplicas)
				require.EqualValues(t, 1, st.UpdatedReplicas)
			}},
		{name: "partition 2: a deleted pod below it comes back at the old revision", set: updated(partition(2)), revs: []*api.ControllerRevision{oldRev, newRev},
			pods: func(s *api.StatefulSet) []*api.Pod {
				return []*api.Pod{pod(s, oldRev, 0, ready), pod(s, newRev, 2, ready)}
			},
			want: []string{"createPod web-1@" + o}},
		{name: "maxUnavailable 2 deletes two at once", revs: []*api.ControllerRevision{oldRev, newRev},
			set: updated(func(s *api.StatefulSet) {
				s.Spec.UpdateStrategy.RollingUpdate = &api.RollingUpdateStatefulSetStrategy{MaxUnavailable: ptr(api.FromInt32(2))}
			}),
			pods: func(s *api.StatefulSet) []*api.Pod {
				return []*api.Pod{pod(s, oldRev, 0, ready), pod(s, oldRev, 1, ready), pod(s, oldRev, 2, ready)}
			},
			want: []string{"deletePod web-2", "deletePod web-1"}},
		{name: "maxUnavailable 50% of 3 rounds up to 2, one already unavailable", revs: []*api.ControllerRevision{oldRev, newRev},
			set: updated(func(s *api.StatefulSet) {
				s.Spec.PodManagementPolicy = api.ParallelPodManagement
				s.Spec.UpdateStrategy.RollingUpdate = &api.RollingUpdateStatefulSetStrategy{MaxUnavailable: ptr(api.FromString("50%"))}
			}),
			pods: func(s *api.StatefulSet) []*api.Pod {
				return []*api.Pod{pod(s, oldRev, 0, ready), pod(s, oldRev, 1, ready), pod(s, newRev, 2, pending)}
			},
			want: []string{"deletePod web-1"}},
		{name: "OnDelete replaces nothing", revs: []*api.ControllerRevision{oldRev, newRev},
			set: updated(func(s *api.StatefulSet) { s.Spec.UpdateStrategy.Type = "OnDelete" }),
			pods: func(s *api.StatefulSet) []*api.Pod {
				return []*api.Pod{pod(s, oldRev, 0, ready), pod(s, oldRev, 1, ready), pod(s, oldRev, 2, ready)}
			},
			want: []string{}},
		{name: "OnDelete: a deleted pod comes back at the update revision", revs: []*api.ControllerRevision{oldRev, newRev},
			set: updated(func(s *api.StatefulSet) { s.Spec.UpdateStrategy.Type = "OnDelete" }),
			pods: func(s *api.StatefulSet) []*api.Pod {
				return []*api.Pod{pod(s, oldRev, 0, ready), pod(s, oldRev, 2, ready)}
			},
			want: []string{"createPod web-1@" + n}},
		{name: "minReadySeconds: a just-ready pod is not yet available", revs: []*api.ControllerRevision{oldRev},
			set:  func() *api.StatefulSet { s := webSet(3, "mysql:5.7.2"); s.Spec.MinReadySeconds = 10; return s }(),
			pods: func(s *api.StatefulSet) []*api.Pod { return []*api.Pod{pod(s, oldRev, 0, justReady)} },
			want: []string{},
			status: func(t *testing.T, st api.StatefulSetStatus) {
				require.EqualValues(t, 1, st.ReadyReplicas)
				require.EqualValues(t, 0, st.AvailableReplicas)
			}},
		{name: "a set being deleted only gets its status",
			set: func() *api.StatefulSet {
				s := webSet(3, "mysql:5.7.2")
				s.DeletionTimestamp = ptr(api.NewTime(t0))
				return s
			}(),
			revs: []*api.ControllerRevision{oldRev}, want: []string{}},
		{name: "start ordinal 5", revs: []*api.ControllerRevision{oldRev},
			set: func() *api.StatefulSet {
				s := webSet(3, "mysql:5.7.2")
				s.Spec.Ordinals = &api.StatefulSetOrdinals{Start: 5}
				return s
			}(),
			pods: func(s *api.StatefulSet) []*api.Pod {
				return []*api.Pod{pod(s, oldRev, 0, ready), pod(s, oldRev, 5, ready)}
			},
			want: []string{"createPod web-6@" + o},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var pods []*api.Pod
			if tc.pods != nil {
				pods = tc.pods(tc.set)
			}
			p, err := decide(input{set: tc.set, revisions: tc.revs, pods: pods, now: t0})
			require.NoError(t, err)
			require.Equal(t, tc.want, summary(p))
			if tc.status != nil {
				tc.status(t, p.status)
			}
		})
	}
}

func TestDecideStatus(t *testing.T) {
	set := webSet(2, "nginx:1.12")
	r := rev(t, set, "nginx:1.12", 1)
	p, err := decide(input{set: set, revisions: []*api.ControllerRevision{r},
		pods: []*api.Pod{pod(set, r, 0, ready), pod(set, r, 1, ready)}, now: t0})
	require.NoError(t, err)
	require.Equal(t, api.StatefulSetStatus{ObservedGeneration: 1, Replicas: 2, ReadyReplicas: 2, AvailableReplicas: 2,
		CurrentReplicas: 2, UpdatedReplicas: 2, CurrentRevision: r.Name, UpdateRevision: r.Name, CollisionCount: ptr(int32(0))}, p.status)

	// minReadySeconds: the sync asks to run again when the pod becomes available.
	set.Spec.MinReadySeconds = 10
	p, err = decide(input{set: set, revisions: []*api.ControllerRevision{r}, pods: []*api.Pod{pod(set, r, 0, justReady)}, now: t0})
	require.NoError(t, err)
	require.Equal(t, 6*time.Second, p.requeueAfter)

	// A finished rolling update makes the update revision current.
	set = webSet(2, "nginx:1.13")
	set.Status.CurrentRevision = r.Name
	r2 := rev(t, set, "nginx:1.13", 2)
	p, err = decide(input{set: set, revisions: []*api.ControllerRevision{r, r2},
		pods: []*api.Pod{pod(set, r2, 0, ready), pod(set, r2, 1, ready)}, now: t0})
	require.NoError(t, err)
	require.Equal(t, r2.Name, p.status.CurrentRevision)
	require.EqualValues(t, 2, p.status.CurrentReplicas)
}

func TestDecideClaims(t *testing.T) {
	withClaims := func(whenDeleted, whenScaled string, replicas int32) *api.StatefulSet {
		s := webSet(replicas, "nginx:1.12")
		s.Spec.VolumeClaimTemplates = []api.PersistentVolumeClaim{{ObjectMeta: api.ObjectMeta{Name: "www"},
			Spec: api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{"ReadWriteOnce"},
				Resources: api.VolumeResourceRequirements{Requests: api.ResourceList{"storage": api.MustParse("1Gi")}}}}}
		s.Spec.PersistentVolumeClaimRetentionPolicy = &api.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: whenDeleted, WhenScaled: whenScaled}
		return s
	}
	claim := func(s *api.StatefulSet, ordinal int, refs ...api.OwnerReference) *api.PersistentVolumeClaim {
		c := newClaim(s, &s.Spec.VolumeClaimTemplates[0], ordinal)
		c.OwnerReferences = refs
		return c
	}
	setRef := api.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web", UID: "set-uid"}

	t.Run("the claim is created before the pod, and the pod mounts it", func(t *testing.T) {
		s := withClaims(retain, retain, 1)
		p, err := decide(input{set: s, now: t0})
		require.NoError(t, err)
		require.Len(t, p.actions, 2)
		require.Equal(t, createClaim, p.actions[0].op)
		c := p.actions[0].claim
		require.Equal(t, "www-web-0", c.Name)
		require.Equal(t, "nginx", c.Labels["app"])
		require.Empty(t, c.OwnerReferences, "Retain: nobody owns the claim")
		pd := p.actions[1].pod
		require.Equal(t, createPod, p.actions[1].op)
		require.Equal(t, "web-0", pd.Spec.Hostname)
		require.Equal(t, "nginx", pd.Spec.Subdomain)
		require.Equal(t, "web-0", pd.Labels[api.LabelStatefulSetPodName])
		require.Equal(t, "0", pd.Labels[api.LabelPodIndex])
		require.Equal(t, []api.Volume{{Name: "www", VolumeSource: api.VolumeSource{
			PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: "www-web-0"}}}}, pd.Spec.Volumes)
	})
	t.Run("an existing claim is reused", func(t *testing.T) {
		s := withClaims(retain, retain, 1)
		p, err := decide(input{set: s, claims: map[string]*api.PersistentVolumeClaim{"www-web-0": claim(s, 0)}, now: t0})
		require.NoError(t, err)
		require.Equal(t, []string{"createPod web-0@" + p.revisions.update.Name[4:7]}, summary(p))
	})
	t.Run("whenDeleted Delete: the set owns the claim", func(t *testing.T) {
		s := withClaims(remove, retain, 1)
		p, err := decide(input{set: s, now: t0})
		require.NoError(t, err)
		require.Equal(t, []api.OwnerReference{setRef}, p.actions[0].claim.OwnerReferences)
	})
	t.Run("whenScaled Delete: a condemned pod owns its claim before it goes", func(t *testing.T) {
		s := withClaims(remove, remove, 1)
		r := rev(t, s, "nginx:1.12", 1)
		pods := []*api.Pod{pod(s, r, 0, ready), pod(s, r, 1, ready)}
		claims := map[string]*api.PersistentVolumeClaim{"www-web-0": claim(s, 0, setRef), "www-web-1": claim(s, 1, setRef)}
		p, err := decide(input{set: s, revisions: []*api.ControllerRevision{r}, pods: pods, claims: claims, now: t0})
		require.NoError(t, err)
		require.Equal(t, []string{"updateClaim www-web-1", "deletePod web-1"}, summary(p))
		require.Equal(t, []api.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "web-1", UID: "pod-1"}}, p.actions[0].claim.OwnerReferences,
			"the set's reference goes, or the claim would outlive the pod")
	})
	t.Run("whenScaled Delete: a claim still owned by the old pod blocks the new one", func(t *testing.T) {
		s := withClaims(retain, remove, 2)
		r := rev(t, s, "nginx:1.12", 1)
		claims := map[string]*api.PersistentVolumeClaim{
			"www-web-1": claim(s, 1, api.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: "web-1", UID: "old"})}
		p, err := decide(input{set: s, revisions: []*api.ControllerRevision{r}, pods: []*api.Pod{pod(s, r, 0, ready)}, claims: claims, now: t0})
		require.NoError(t, err)
		require.Equal(t, []string{}, summary(p))
	})
	t.Run("scaled back up: the member's claim loses the pod reference", func(t *testing.T) {
		s := withClaims(retain, remove, 2)
		r := rev(t, s, "nginx:1.12", 1)
		pods := []*api.Pod{pod(s, r, 0, ready), pod(s, r, 1, ready)}
		claims := map[string]*api.PersistentVolumeClaim{"www-web-0": claim(s, 0),
			"www-web-1": claim(s, 1, api.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: "web-1", UID: "pod-1"})}
		p, err := decide(input{set: s, revisions: []*api.ControllerRevision{r}, pods: pods, claims: claims, now: t0})
		require.NoError(t, err)
		require.Equal(t, []string{"updateClaim www-web-1"}, summary(p))
		require.Nil(t, p.actions[0].claim.OwnerReferences)
	})
	t.Run("a pending pod gets its missing claim back", func(t *testing.T) {
		s := withClaims(retain, retain, 1)
		r := rev(t, s, "nginx:1.12", 1)
		p, err := decide(input{set: s, revisions: []*api.ControllerRevision{r}, pods: []*api.Pod{pod(s, r, 0, pending)}, now: t0})
		require.NoError(t, err)
		require.Equal(t, []string{"createClaim www-web-0"}, summary(p))
	})
}

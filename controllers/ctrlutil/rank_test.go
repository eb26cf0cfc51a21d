package ctrlutil_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/ctrlutil"
)

var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

type podOpt func(*api.Pod)

func newPod(name string, opts ...podOpt) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: api.UID("uid-" + name)}}
	p.Status.Phase = api.PodRunning
	p.Spec.NodeName = "n1"
	p.CreationTimestamp = api.NewTime(now.Add(-time.Hour))
	for _, o := range opts {
		o(p)
	}
	return p
}

func onNode(n string) podOpt       { return func(p *api.Pod) { p.Spec.NodeName = n } }
func phase(ph api.PodPhase) podOpt { return func(p *api.Pod) { p.Status.Phase = ph } }
func created(ago time.Duration) podOpt {
	return func(p *api.Pod) { p.CreationTimestamp = api.NewTime(now.Add(-ago)) }
}
func cost(c string) podOpt {
	return func(p *api.Pod) { p.Annotations = map[string]string{ctrlutil.PodDeletionCostAnnotation: c} }
}
func restarts(n int32) podOpt {
	return func(p *api.Pod) { p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "c", RestartCount: n}} }
}
func readyFor(d time.Duration) podOpt {
	return func(p *api.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, api.PodCondition{
			Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(now.Add(-d))})
	}
}

func names(pods []*api.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}

// One case per rule of ActivePodsWithRanks (kube-controller-manager,
// pkg/controller/controller_utils.go); each lists the pods in the order
// they must be deleted, and the test feeds them reversed.
func TestRankForDeletion(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pods    []*api.Pod
		related []*api.Pod
	}{
		{"unscheduled first", []*api.Pod{newPod("a", onNode("")), newPod("b")}, nil},
		{"pending, unknown, running", []*api.Pod{
			newPod("a", phase(api.PodPending)), newPod("b", phase(api.PodUnknown)), newPod("c")}, nil},
		{"not ready first", []*api.Pod{newPod("a"), newPod("b", readyFor(time.Hour))}, nil},
		{"lower deletion cost first", []*api.Pod{newPod("a", cost("-5")), newPod("b"), newPod("c", cost("10"))}, nil},
		{"malformed cost is zero", []*api.Pod{newPod("a", cost("-1")), newPod("b", cost("x"))}, nil},
		{"doubled up first", []*api.Pod{newPod("a", onNode("n2")), newPod("b", onNode("n1"))},
			[]*api.Pod{newPod("a", onNode("n2")), newPod("x", onNode("n2")), newPod("b", onNode("n1"))}},
		{"ready for less time first", []*api.Pod{
			newPod("a", readyFor(time.Minute)), newPod("b", readyFor(time.Hour)), newPod("c", readyFor(24*time.Hour))}, nil},
		{"more restarts first", []*api.Pod{newPod("a", restarts(5)), newPod("b", restarts(1)), newPod("c")}, nil},
		{"newer first", []*api.Pod{newPod("a", created(time.Minute)), newPod("b", created(time.Hour))}, nil},
		{"zero creation time first", []*api.Pod{newPod("a", func(p *api.Pod) { p.CreationTimestamp = api.Time{} }), newPod("b")}, nil},
		{"similar ages tie on the log scale, then UID", []*api.Pod{
			newPod("a", created(100*time.Minute)), newPod("b", created(101*time.Minute))}, nil},
		{"phase beats readiness beats cost", []*api.Pod{
			newPod("a", phase(api.PodPending), readyFor(time.Hour), cost("100")),
			newPod("b", cost("100")),
			newPod("c", readyFor(time.Hour), cost("-100"))}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := names(tc.pods)
			in := make([]*api.Pod, len(tc.pods))
			for i, p := range tc.pods {
				in[len(in)-1-i] = p
			}
			require.Equal(t, want, names(ctrlutil.RankForDeletion(in, tc.related, now)))
			require.Equal(t, tc.pods[0].Name, in[len(in)-1].Name, "the input is not reordered")
		})
	}
}

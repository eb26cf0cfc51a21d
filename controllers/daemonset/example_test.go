package daemonset_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/daemonset"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// The DaemonSet controller over an in-memory cluster with two nodes, used
// through the client contract as any client.Client would be. One node is
// a control-plane node tainted node-role.kubernetes.io/control-plane:NoSchedule:
// the log-agent DaemonSet tolerates the taint and gets a pod for each node, pinned to it by node affinity
// (no scheduler runs here to bind them), and a first ControllerRevision.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := slog.New(slog.DiscardHandler)
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		panic(err)
	}
	nodes, err := client.For[*api.Node](c) // c is a client.Client
	if err != nil {
		panic(err)
	}
	sets, err := client.For[*api.DaemonSet](c)
	if err != nil {
		panic(err)
	}
	for _, n := range []*api.Node{
		{ObjectMeta: api.ObjectMeta{Name: "control-plane"}, Spec: api.NodeSpec{Taints: []api.Taint{
			{Key: "node-role.kubernetes.io/control-plane", Effect: api.TaintEffectNoSchedule}}}},
		{ObjectMeta: api.ObjectMeta{Name: "node-1"}},
	} {
		if _, err := nodes.Create(ctx, n); err != nil {
			panic(err)
		}
	}
	f := informer.NewFactory(informer.FactoryOptions{Logger: logger})
	ctl, err := daemonset.New(c, f, daemonset.Options{Logger: logger})
	if err != nil {
		panic(err)
	}
	f.Start(ctx)
	done := make(chan error, 1)
	go func() { done <- ctl.Run(ctx) }()

	watch, err := sets.Watch(ctx, source.WatchOptions{})
	if err != nil {
		panic(err)
	}
	ds := &api.DaemonSet{ObjectMeta: api.ObjectMeta{Namespace: "kube-system", Name: "log-agent"}}
	ds.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"name": "log-agent"}}
	ds.Spec.Template.Labels = map[string]string{"name": "log-agent"}
	ds.Spec.Template.Spec.Tolerations = []api.Toleration{{Key: "node-role.kubernetes.io/control-plane", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}}
	ds.Spec.Template.Spec.Containers = []api.Container{{Name: "agent", Image: "busybox:1.37"}}
	if _, err := sets.Create(ctx, ds); err != nil {
		panic(err)
	}
	for ev := range watch {
		if st := ev.Object.Status; st.CurrentNumberScheduled == 2 {
			fmt.Println("desired:", st.DesiredNumberScheduled, "current:", st.CurrentNumberScheduled, "ready:", st.NumberReady)
			break
		}
	}
	pods, err := c.Pods().List(ctx, source.ListOptions{})
	if err != nil {
		panic(err)
	}
	var lines []string
	for _, p := range pods.Items {
		req := p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields[0]
		lines = append(lines, fmt.Sprintf("%s %s %v, by %s", p.Namespace, req.Key, req.Values, p.ControllerRef().Name))
	}
	slices.Sort(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
	revs, err := c.ControllerRevisions().List(ctx, source.ListOptions{})
	if err != nil {
		panic(err)
	}
	r := revs.Items[0]
	fmt.Println("revision", r.Revision, "labelled name="+r.Labels["name"], r.Labels[api.LabelControllerRevisionHash] == pods.Items[0].Labels[api.LabelControllerRevisionHash])
	cancel()
	fmt.Println(<-done)
	f.Shutdown()
	// Output:
	// desired: 2 current: 2 ready: 0
	// kube-system metadata.name [control-plane], by log-agent
	// kube-system metadata.name [node-1], by log-agent
	// revision 1 labelled name=log-agent true
	// context canceled
}

package scheduler

import (
	"math/rand/v2"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Test builders: mkPod("name", cpu, mem) and mkNode("name", cpu, mem, pods),
// with options applied in order.

type podOpt func(*api.Pod)

func mkPod(name, cpu, mem string, opts ...podOpt) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: api.UID("uid-" + name)}}
	req := api.ResourceList{}
	if cpu != "" {
		req[api.ResourceCPU] = api.MustParse(cpu)
	}
	if mem != "" {
		req[api.ResourceMemory] = api.MustParse(mem)
	}
	c := api.Container{Name: "c", Image: "img"}
	if len(req) > 0 {
		c.Resources.Requests = req
	}
	p.Spec.Containers = []api.Container{c}
	for _, o := range opts {
		o(p)
	}
	return p
}

func withHostPort(port int32, proto api.Protocol, ip string) podOpt {
	return func(p *api.Pod) {
		p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports,
			api.ContainerPort{ContainerPort: 80, HostPort: port, Protocol: proto, HostIP: ip})
	}
}

func withSelector(kv ...string) podOpt {
	return func(p *api.Pod) {
		p.Spec.NodeSelector = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Spec.NodeSelector[kv[i]] = kv[i+1]
		}
	}
}

func withToleration(t api.Toleration) podOpt {
	return func(p *api.Pod) { p.Spec.Tolerations = append(p.Spec.Tolerations, t) }
}

func withOwner(kind, uid string) podOpt {
	return func(p *api.Pod) {
		yes := true
		p.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: uid, UID: api.UID(uid), Controller: &yes}}
	}
}

func withPriority(v int32) podOpt {
	return func(p *api.Pod) { p.Spec.Priority = &v }
}

func withNodeName(n string) podOpt {
	return func(p *api.Pod) { p.Spec.NodeName = n }
}

func withRequired(terms ...api.NodeSelectorTerm) podOpt {
	return func(p *api.Pod) {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &api.Affinity{}
		}
		if p.Spec.Affinity.NodeAffinity == nil {
			p.Spec.Affinity.NodeAffinity = &api.NodeAffinity{}
		}
		p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &api.NodeSelector{NodeSelectorTerms: terms}
	}
}

func withPreferred(terms ...api.PreferredSchedulingTerm) podOpt {
	return func(p *api.Pod) {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &api.Affinity{}
		}
		if p.Spec.Affinity.NodeAffinity == nil {
			p.Spec.Affinity.NodeAffinity = &api.NodeAffinity{}
		}
		p.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = terms
	}
}

func term(key string, op api.NodeSelectorOperator, vals ...string) api.NodeSelectorTerm {
	return api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{{Key: key, Operator: op, Values: vals}}}
}

type nodeOpt func(*api.Node)

func mkNode(name, cpu, mem string, pods int64, opts ...nodeOpt) *api.Node {
	n := &api.Node{ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}}}
	l := api.ResourceList{api.ResourcePods: api.NewQuantity(pods, api.DecimalSI)}
	if cpu != "" {
		l[api.ResourceCPU] = api.MustParse(cpu)
	}
	if mem != "" {
		l[api.ResourceMemory] = api.MustParse(mem)
	}
	n.Status.Capacity, n.Status.Allocatable = l, l
	for _, o := range opts {
		o(n)
	}
	return n
}

func withLabels(kv ...string) nodeOpt {
	return func(n *api.Node) {
		for i := 0; i+1 < len(kv); i += 2 {
			n.Labels[kv[i]] = kv[i+1]
		}
	}
}

func withTaint(key, value string, effect api.TaintEffect) nodeOpt {
	return func(n *api.Node) {
		n.Spec.Taints = append(n.Spec.Taints, api.Taint{Key: key, Value: value, Effect: effect})
	}
}

func cordoned(n *api.Node) { n.Spec.Unschedulable = true }

func bound(p *api.Pod, node string) *api.Pod {
	p.Spec.NodeName = node
	return p
}

func rngSeed(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed)) }

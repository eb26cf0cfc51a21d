package bench

import (
	"fmt"
	"strconv"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Sizes of the workloads.
const (
	// NumKeys is the number of distinct queue keys the queue workloads
	// cycle through.
	NumKeys = 1 << 20
	// NumPods is the number of pods of the fifo, indexer and informer
	// workloads.
	NumPods = 100_000
	// NumNamespaces is the number of namespaces the pods spread over.
	NumNamespaces = 5
	// NumApps is the number of values of the app label (NumPods/NumApps
	// pods each).
	NumApps = 1000
)

// Namespace returns the namespace of object i: "ns-<i%5>".
func Namespace(i int) string { return "ns-" + strconv.Itoa(i%NumNamespaces) }

// Name returns the name of object i: "pod-" and i in 7 digits.
func Name(i int) string { return fmt.Sprintf("pod-%07d", i) }

// Key returns the namespace/name key of object i.
func Key(i int) string { return Namespace(i) + "/" + Name(i) }

// App returns the value of the app label of pod i before any update
// (shift 0) and after shift updates: "app-<(i+shift)%1000>".
func App(i, shift int) string { return "app-" + strconv.Itoa((i+shift)%NumApps) }

// Keys returns the keys of objects 0..n-1, each individually allocated.
func Keys(n int) []string {
	ks := make([]string, n)
	for i := range ks {
		ks[i] = Key(i)
	}
	return ks
}

// PodKey is the key function both libraries use on the ctrlkit side
// and client-go's cache.MetaNamespaceKeyFunc computes: namespace/name.
func PodKey(p *v1.Pod) string { return p.Namespace + "/" + p.Name }

// Pods returns pods 0..n-1 in one backing array (so that a client-go
// PodList can hold the very same objects) and pointers to them.
//
// Every pod has: namespace ns-<i%5>, name pod-<i 7 digits>, labels
// app=app-<i%1000> and tier (one of three), one annotation, one owner
// reference (a ReplicaSet per app), one container with cpu/memory
// requests and limits, and status Running with a pod IP and a host IP.
// Immutable sub-objects that real pods of one app would share by value
// (container spec, owner reference) are shared by pointer, to keep the
// benchmark process small; no workload reads them.
func Pods(n int) ([]v1.Pod, []*v1.Pod) {
	containers := []v1.Container{{
		Name:  "main",
		Image: "registry.example/app:1.0",
		Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{
				v1.ResourceCPU:    resource.MustParse("100m"),
				v1.ResourceMemory: resource.MustParse("128Mi"),
			},
			Limits: v1.ResourceList{
				v1.ResourceCPU:    resource.MustParse("500m"),
				v1.ResourceMemory: resource.MustParse("256Mi"),
			},
		},
	}}
	owners := make([][]metav1.OwnerReference, NumApps)
	ctrl := true
	for a := range owners {
		owners[a] = []metav1.OwnerReference{{
			APIVersion: "apps/v1",
			Kind:       "ReplicaSet",
			Name:       "rs-" + strconv.Itoa(a),
			UID:        types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", a)),
			Controller: &ctrl,
		}}
	}
	tiers := [...]string{"frontend", "backend", "cache"}
	items := make([]v1.Pod, n)
	ptrs := make([]*v1.Pod, n)
	for i := range items {
		p := &items[i]
		p.Namespace = Namespace(i)
		p.Name = Name(i)
		p.UID = types.UID(fmt.Sprintf("10000000-0000-0000-0000-%012d", i))
		p.ResourceVersion = "1"
		p.Labels = map[string]string{"app": App(i, 0), "tier": tiers[i%len(tiers)]}
		p.Annotations = map[string]string{"bench.ctrlkit.io/index": strconv.Itoa(i)}
		p.OwnerReferences = owners[i%NumApps]
		p.Spec.Containers = containers
		p.Spec.NodeName = "node-" + strconv.Itoa(i%100)
		p.Status.Phase = v1.PodRunning
		ip := fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)
		p.Status.PodIP = ip
		p.Status.PodIPs = []v1.PodIP{{IP: ip}}
		p.Status.HostIP = "192.168.0." + strconv.Itoa(i%100)
		ptrs[i] = p
	}
	return items, ptrs
}

// Relabeled returns shallow copies of pods with the app label shifted by
// shift and resourceVersion rv: what an update that changes the label
// delivers. The label maps are shared between copies with equal labels.
func Relabeled(pods []*v1.Pod, shift int, rv string) []*v1.Pod {
	labels := map[[2]string]map[string]string{}
	out := make([]v1.Pod, len(pods))
	ptrs := make([]*v1.Pod, len(pods))
	for i, p := range pods {
		out[i] = *p
		app := App(i, shift)
		tier := p.Labels["tier"]
		m, ok := labels[[2]string{app, tier}]
		if !ok {
			m = map[string]string{"app": app, "tier": tier}
			labels[[2]string{app, tier}] = m
		}
		out[i].Labels = m
		out[i].ResourceVersion = rv
		ptrs[i] = &out[i]
	}
	return ptrs
}

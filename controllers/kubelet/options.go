package kubelet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net/netip"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/events"
)

// Options configure one Kubelet. Only NodeName is required; every other
// zero field takes the default its comment names.
type Options struct {
	// NodeName is the node's name (the kubelet's --hostname-override).
	NodeName string
	// Capacity is the node's total resources. Missing entries default to
	// cpu 4, memory 16Gi, ephemeral-storage 100Gi and pods 110 (the
	// kubelet's maxPods).
	Capacity api.ResourceList
	// Allocatable is what pods may request. Missing entries default to
	// the capacity minus the kubelet's default hard eviction thresholds
	// (memory.available 100Mi; nodefs.available 10%).
	Allocatable api.ResourceList
	// Labels are added to the node's labels, after the well-known ones
	// the kubelet sets (kubernetes.io/hostname, kubernetes.io/os linux,
	// kubernetes.io/arch amd64).
	Labels map[string]string
	// Taints are registered with the node (--register-with-taints).
	Taints []api.Taint
	// InternalIP is the node's address; the default is derived from the
	// node name in 172.16.0.0/12.
	InternalIP string
	// PodCIDR is the range pod IPs are taken from when the Node has no
	// spec.podCIDR (the kubelet's --pod-cidr); the default is a /24 of
	// 10.64.0.0/10 derived from the node name. Distinct nodes may collide
	// on the default: set it when pod IPs must be unique.
	PodCIDR string
	// StatusUpdateFrequency is how often the node status is computed
	// (nodeStatusUpdateFrequency); default 10 s, the kubelet's. A status
	// that changed is posted then.
	StatusUpdateFrequency time.Duration
	// StatusReportFrequency is how often the node status is posted when
	// it has not changed (nodeStatusReportFrequency); default 5 min, the
	// kubelet's. A change other than the conditions' lastHeartbeatTime is
	// posted at the next StatusUpdateFrequency tick.
	StatusReportFrequency time.Duration
	// LeaseDuration is the node Lease's leaseDurationSeconds
	// (nodeLeaseDurationSeconds); default 40 s. It is renewed every
	// quarter of it, 10 s by default, as the kubelet does.
	LeaseDuration time.Duration
	// StaticPodPath is a directory of pod manifests the kubelet runs
	// without the API server (staticPodPath); empty: none.
	StaticPodPath string
	// FileCheckFrequency is how often StaticPodPath is read again
	// (fileCheckFrequency); default 20 s.
	FileCheckFrequency time.Duration
	// Stages steer the simulated runtime; nil means DefaultStages().
	Stages []Stage
	// Seed seeds the random source the stages' jitters are drawn from.
	Seed uint64
	// KubeletVersion is reported in nodeInfo; default "v1.34.0-sim".
	KubeletVersion string
	// Recorder receives the kubelet's events about pods (Pulled,
	// Created, Started, Killing, Unhealthy, BackOff); nil records none.
	Recorder events.Recorder
	// Logger receives the kubelet's logs; nil discards them.
	Logger *slog.Logger
}

// ErrNoNodeName is returned by New when Options.NodeName is empty.
var ErrNoNodeName = errors.New("kubelet: Options.NodeName is required")

func (o *Options) validate() error {
	if o.NodeName == "" {
		return ErrNoNodeName
	}
	capacity := api.ResourceList{
		api.ResourceName("cpu"):               api.MustParse("4"),
		api.ResourceName("memory"):            api.MustParse("16Gi"),
		api.ResourceName("ephemeral-storage"): api.MustParse("100Gi"),
		api.ResourceName("pods"):              api.MustParse("110"),
	}
	for k, v := range o.Capacity {
		capacity[k] = v
	}
	o.Capacity = capacity
	alloc := api.ResourceList{}
	for k, v := range capacity {
		switch k {
		case "memory":
			v = v.Sub(api.MustParse("100Mi"))
		case "ephemeral-storage":
			v = api.NewQuantity(v.Value()-v.Value()/10, api.BinarySI)
		}
		alloc[k] = v
	}
	for k, v := range o.Allocatable {
		alloc[k] = v
	}
	o.Allocatable = alloc
	h := fnv.New32a()
	h.Write([]byte(o.NodeName))
	sum := h.Sum32()
	if o.InternalIP == "" {
		o.InternalIP = fmt.Sprintf("172.%d.%d.%d", 16+(sum>>16)&15, (sum>>8)&255, 2+sum&255%250)
	}
	if _, err := netip.ParseAddr(o.InternalIP); err != nil {
		return fmt.Errorf("kubelet: InternalIP: %w", err)
	}
	if o.PodCIDR == "" {
		o.PodCIDR = fmt.Sprintf("10.%d.%d.0/24", 64+(sum>>8)&63, sum&255)
	}
	if _, err := netip.ParsePrefix(o.PodCIDR); err != nil {
		return fmt.Errorf("kubelet: PodCIDR: %w", err)
	}
	if o.StatusUpdateFrequency <= 0 {
		o.StatusUpdateFrequency = 10 * time.Second
	}
	if o.StatusReportFrequency <= 0 {
		o.StatusReportFrequency = 5 * time.Minute
	}
	if o.LeaseDuration <= 0 {
		o.LeaseDuration = 40 * time.Second
	}
	if o.FileCheckFrequency <= 0 {
		o.FileCheckFrequency = 20 * time.Second
	}
	if o.Stages == nil {
		o.Stages = DefaultStages()
	}
	if o.KubeletVersion == "" {
		o.KubeletVersion = "v1.34.0-sim"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// ipam hands out pod IPs from one prefix, lowest free first, from .2 on
// (.1 is the bridge's, as with the bridge CNI plugin). It keeps a bit per
// address up to the highest it handed out, offset from the prefix's
// first: a node's few pods take a word, where a map took hundreds of
// bytes.
type ipam struct {
	prefix netip.Prefix
	used   []uint64 // bit i: the address i after the prefix's first is taken
	n      int      // addresses taken
}

func newIPAM(cidr string) (*ipam, error) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return nil, fmt.Errorf("kubelet: pod CIDR: %w", err)
	}
	return &ipam{prefix: p.Masked()}, nil
}

func (a *ipam) taken(i int) bool { return i/64 < len(a.used) && a.used[i/64]&(1<<(i%64)) != 0 }

func (a *ipam) allocate() (string, bool) {
	ip := a.prefix.Addr().Next()
	i := 1
	for ip, i = ip.Next(), i+1; a.prefix.Contains(ip); ip, i = ip.Next(), i+1 {
		if !a.taken(i) && a.prefix.Contains(ip.Next()) { // skip the broadcast address
			for i/64 >= len(a.used) {
				a.used = append(a.used, 0)
			}
			a.used[i/64] |= 1 << (i % 64)
			a.n++
			return ip.String(), true
		}
	}
	return "", false
}

func (a *ipam) release(ip string) {
	addr, err := netip.ParseAddr(ip)
	if err != nil || !a.prefix.Contains(addr) {
		return
	}
	// The offset of addr from the prefix's first address: the low 64
	// bits of their difference, as the prefix has fewer addresses than
	// ipam ever hands out beyond them.
	x, base := addr.As16(), a.prefix.Addr().As16()
	i := int(binary.BigEndian.Uint64(x[8:]) - binary.BigEndian.Uint64(base[8:]))
	if a.taken(i) {
		a.used[i/64] &^= 1 << (i % 64)
		a.n--
	}
}

// empty reports whether no address is taken.
func (a *ipam) empty() bool { return a.n == 0 }

package kubelet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/source"
)

// NodeLeaseNamespace holds the nodes' heartbeat Leases, one per node
// named after it.
const NodeLeaseNamespace = "kube-node-lease"

// nodeConditions are the kubelet's node conditions at now, in the
// kubelet's order (pkg/kubelet/nodestatus/setters.go): every heartbeat
// moves lastHeartbeatTime; lastTransitionTime moves only when a
// condition's status changes from prev (e.g. from the Unknown the node
// lifecycle controller set while the kubelet was silent).
func nodeConditions(prev []api.NodeCondition, now time.Time) []api.NodeCondition {
	want := []api.NodeCondition{
		{Type: api.NodeMemoryPressure, Status: api.ConditionFalse, Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available"},
		{Type: api.NodeDiskPressure, Status: api.ConditionFalse, Reason: "KubeletHasNoDiskPressure", Message: "kubelet has no disk pressure"},
		{Type: api.NodePIDPressure, Status: api.ConditionFalse, Reason: "KubeletHasSufficientPID", Message: "kubelet has sufficient PID available"},
		{Type: api.NodeReady, Status: api.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"},
	}
	for i := range want {
		want[i].LastHeartbeatTime = apiTime(now)
		want[i].LastTransitionTime = apiTime(now)
		for _, p := range prev {
			if p.Type == want[i].Type && p.Status == want[i].Status {
				want[i].LastTransitionTime = p.LastTransitionTime
			}
		}
	}
	// Conditions others own (NetworkUnavailable) are kept.
	for _, p := range prev {
		switch p.Type {
		case api.NodeMemoryPressure, api.NodeDiskPressure, api.NodePIDPressure, api.NodeReady:
		default:
			want = append(want, p)
		}
	}
	return want
}

// nodeStatus is the status the kubelet posts at now over prev.
func (k *Kubelet) nodeStatus(prev api.NodeStatus, now time.Time) api.NodeStatus {
	st := prev
	st.Capacity = maps.Clone(k.opts.Capacity)
	st.Allocatable = maps.Clone(k.opts.Allocatable)
	st.Conditions = nodeConditions(prev.Conditions, now)
	st.Addresses = []api.NodeAddress{
		{Type: api.NodeInternalIP, Address: k.opts.InternalIP},
		{Type: api.NodeHostName, Address: k.opts.NodeName},
	}
	st.Images = k.images.list()
	st.DaemonEndpoints = api.NodeDaemonEndpoints{KubeletEndpoint: api.DaemonEndpoint{Port: 10250}}
	st.NodeInfo = api.NodeSystemInfo{
		MachineID:               k.machineID,
		SystemUUID:              k.machineID,
		BootID:                  k.bootID,
		KernelVersion:           "6.8.0-sim",
		OSImage:                 "ctrlkit simulated node",
		ContainerRuntimeVersion: "sim://1.0.0",
		KubeletVersion:          k.opts.KubeletVersion,
		KubeProxyVersion:        k.opts.KubeletVersion,
		OperatingSystem:         "linux",
		Architecture:            "amd64",
	}
	return st
}

// register creates the Node, or takes over the one that exists
// (tryRegisterWithAPIServer), and learns its uid and pod CIDR.
func (k *Kubelet) register(ctx context.Context, now time.Time) error {
	n := &api.Node{}
	n.Name = k.opts.NodeName
	n.Labels = map[string]string{api.LabelHostname: k.opts.NodeName, api.LabelOS: "linux", api.LabelArch: "amd64"}
	maps.Copy(n.Labels, k.opts.Labels)
	n.Spec.Taints = append([]api.Taint(nil), k.opts.Taints...)
	n.Spec.PodCIDR, n.Spec.PodCIDRs = k.opts.PodCIDR, []string{k.opts.PodCIDR}
	n.Status = k.nodeStatus(api.NodeStatus{}, now)
	_, err := k.nodeRes.Create(ctx, n)
	if errors.Is(err, source.ErrAlreadyExists) {
		n, _, err = k.nodeRes.Get(ctx, k.opts.NodeName)
		if err == nil {
			n.Status = k.nodeStatus(n.Status, now)
			_, err = k.nodeRes.UpdateStatus(ctx, n)
		}
	}
	if err != nil {
		return fmt.Errorf("kubelet: register node %s: %w", k.opts.NodeName, err)
	}
	k.nodeUID = n.UID
	if cidr := n.Spec.PodCIDR; cidr != "" && cidr != k.ips.prefix.String() && k.ips.empty() {
		if a, err := newIPAM(cidr); err == nil {
			k.ips = a
		}
	}
	k.registered = true
	k.lastReport = now
	return nil
}

// postStatus is one node status update (tryUpdateNodeStatus): the
// status is computed every StatusUpdateFrequency and posted when it
// changed (nodeStatusHasChanged: anything but the conditions'
// lastHeartbeatTime) or when StatusReportFrequency has passed since the
// last post, so that an idle node writes its Node every 5 min and lives
// on its Lease meanwhile. A deleted Node is not registered again, as the
// kubelet does not.
func (k *Kubelet) postStatus(ctx context.Context, now time.Time) error {
	n, _, err := k.nodeRes.Get(ctx, k.opts.NodeName)
	if err == nil {
		st := k.nodeStatus(n.Status, now)
		if !k.lastReport.IsZero() && now.Sub(k.lastReport) < k.opts.StatusReportFrequency && !nodeStatusChanged(n.Status, st) {
			return nil
		}
		n.Status = st
		if _, err = k.nodeRes.UpdateStatus(ctx, n); err == nil {
			k.lastReport = now
		}
	}
	if err != nil {
		return fmt.Errorf("kubelet: update node %s status: %w", k.opts.NodeName, err)
	}
	return nil
}

// nodeStatusChanged reports whether st differs from prev other than in
// its conditions' lastHeartbeatTime (the kubelet's nodeStatusHasChanged:
// conditions compared by type, the rest as a whole — here by their JSON
// encodings, as the store tells a no-op update).
func nodeStatusChanged(prev, st api.NodeStatus) bool {
	if len(prev.Conditions) != len(st.Conditions) {
		return true
	}
	strip := func(s api.NodeStatus) []byte {
		s.Conditions = slices.Clone(s.Conditions)
		for i := range s.Conditions {
			s.Conditions[i].LastHeartbeatTime = api.Time{}
		}
		slices.SortStableFunc(s.Conditions, func(a, b api.NodeCondition) int { return strings.Compare(string(a.Type), string(b.Type)) })
		b, err := json.Marshal(s)
		if err != nil {
			return nil
		}
		return b
	}
	a, b := strip(prev), strip(st)
	return a == nil || b == nil || !bytes.Equal(a, b)
}

// renewLease renews the node's Lease, creating it (and its namespace,
// which kube-apiserver would have created) when missing
// (pkg/kubelet/nodelease via component-helpers' lease controller).
func (k *Kubelet) renewLease(ctx context.Context, now time.Time) error {
	key := api.NamespacedKey(NodeLeaseNamespace, k.opts.NodeName)
	renew := api.NewMicroTime(now.UTC())
	l, _, err := k.leaseRes.Get(ctx, key)
	switch {
	case err == nil:
		l.Spec.RenewTime = &renew
		holder := k.opts.NodeName
		l.Spec.HolderIdentity = &holder
		l.Spec.LeaseDurationSeconds = new(int32(k.opts.LeaseDuration / time.Second))
		_, err = k.leaseRes.Update(ctx, l, "")
	case errors.Is(err, source.ErrNotFound):
		ns := &api.Namespace{}
		ns.Name = NodeLeaseNamespace
		if _, err := k.nsRes.Create(ctx, ns); err != nil && !errors.Is(err, source.ErrAlreadyExists) {
			return fmt.Errorf("kubelet: create namespace %s: %w", NodeLeaseNamespace, err)
		}
		l = &api.Lease{}
		l.Namespace, l.Name = NodeLeaseNamespace, k.opts.NodeName
		if k.nodeUID != "" {
			l.OwnerReferences = []api.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: k.opts.NodeName, UID: k.nodeUID}}
		}
		holder := k.opts.NodeName
		l.Spec = api.LeaseSpec{
			HolderIdentity:       &holder,
			LeaseDurationSeconds: new(int32(k.opts.LeaseDuration / time.Second)),
			RenewTime:            &renew,
		}
		_, err = k.leaseRes.Create(ctx, l)
	}
	if err != nil {
		return fmt.Errorf("kubelet: renew lease %s: %w", key, err)
	}
	return nil
}

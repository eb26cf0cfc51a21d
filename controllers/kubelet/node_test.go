package kubelet

import (
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Heartbeats move lastHeartbeatTime; lastTransitionTime moves only when
// a condition's status changes, e.g. from the Unknown of an unreachable
// node; conditions others own are kept.
func TestNodeConditions(t *testing.T) {
	first := nodeConditions(nil, at(0))
	if len(first) != 4 || first[3].Type != api.NodeReady || first[3].Status != api.ConditionTrue || first[3].Reason != "KubeletReady" {
		t.Fatalf("first %+v", first)
	}
	beat := nodeConditions(first, at(10))
	for i, c := range beat {
		if !c.LastHeartbeatTime.Time.Equal(at(10)) || !c.LastTransitionTime.Time.Equal(at(0)) {
			t.Errorf("beat %s: heartbeat %v transition %v", c.Type, c.LastHeartbeatTime, c.LastTransitionTime)
		}
		if c.Type != first[i].Type {
			t.Errorf("order: %s at %d", c.Type, i)
		}
	}
	unknown := append([]api.NodeCondition(nil), beat...)
	unknown[3].Status, unknown[3].Reason = api.ConditionUnknown, "NodeStatusUnknown"
	unknown = append(unknown, api.NodeCondition{Type: api.NodeNetworkUnavailable, Status: api.ConditionFalse})
	back := nodeConditions(unknown, at(100))
	if len(back) != 5 || back[4].Type != api.NodeNetworkUnavailable {
		t.Fatalf("others' condition lost: %+v", back)
	}
	if !back[3].LastTransitionTime.Time.Equal(at(100)) || back[3].Status != api.ConditionTrue {
		t.Errorf("Ready back: %+v", back[3])
	}
	if !back[0].LastTransitionTime.Time.Equal(at(0)) {
		t.Errorf("MemoryPressure moved: %+v", back[0])
	}
}

func TestIPAM(t *testing.T) {
	a, err := newIPAM("10.1.2.0/29") // .0 network, .1 bridge, .7 broadcast
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		ip, ok := a.allocate()
		if !ok {
			break
		}
		got = append(got, ip)
	}
	want := []string{"10.1.2.2", "10.1.2.3", "10.1.2.4", "10.1.2.5", "10.1.2.6"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	a.release("10.1.2.4")
	if ip, _ := a.allocate(); ip != "10.1.2.4" {
		t.Errorf("after release: %s", ip)
	}
}

// Past the first word of the bitmap, and releases of addresses it never
// handed out.
func TestIPAMWide(t *testing.T) {
	a, err := newIPAM("10.1.0.0/23")
	if err != nil {
		t.Fatal(err)
	}
	for range 300 { // .2 to 1.45
		if _, ok := a.allocate(); !ok {
			t.Fatal("exhausted")
		}
	}
	a.release("10.1.1.40")
	a.release("10.1.1.200") // never handed out
	a.release("10.2.0.5")   // outside
	a.release("nonsense")
	if ip, _ := a.allocate(); ip != "10.1.1.40" {
		t.Errorf("after release: %s", ip)
	}
	if ip, _ := a.allocate(); ip != "10.1.1.46" {
		t.Errorf("next: %s", ip)
	}
	if a.empty() {
		t.Error("empty with 301 taken")
	}
}

func TestOptionsDefaults(t *testing.T) {
	o := Options{NodeName: "n1"}
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	pods := o.Allocatable[api.ResourceName("pods")]
	mem := o.Allocatable[api.ResourceName("memory")]
	if pods.CmpInt64(110) != 0 || mem.Cmp(api.MustParse("16284Mi")) != 0 {
		t.Errorf("allocatable %v", o.Allocatable)
	}
	if o.StatusUpdateFrequency != 10*time.Second || o.LeaseDuration != 40*time.Second || o.FileCheckFrequency != 20*time.Second {
		t.Errorf("periods %v %v %v", o.StatusUpdateFrequency, o.LeaseDuration, o.FileCheckFrequency)
	}
	o2 := Options{NodeName: "n1"}
	_ = o2.validate()
	if o.PodCIDR != o2.PodCIDR || o.InternalIP != o2.InternalIP {
		t.Error("derived addresses are not stable")
	}
	if err := (&Options{}).validate(); err != ErrNoNodeName {
		t.Errorf("no node name: %v", err)
	}
}

package scheduler

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/events"
)

// Issue 31: the scheduler records FailedScheduling with the message of the
// Unschedulable condition while no node fits, then Scheduled once bound,
// as kube-scheduler does.
func TestSchedulerEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := events.NewMemory()
		c := newCluster(t, Options{Recorder: rec})
		c.addNode(mkNode("small", "1", "1Gi", 110))
		c.addPod(mkPod("web", "2", ""))
		c.start()
		c.settle(100 * time.Millisecond)

		failed := "0/1 nodes are available: 1 Insufficient cpu." +
			" preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
		got := rec.Events()
		if len(got) != 1 || got[0].Reason != ReasonFailedScheduling || got[0].Type != events.Warning || got[0].Message != failed {
			t.Fatalf("events %v", got)
		}
		if ref := got[0].Regarding; ref.Kind != "Pod" || ref.Namespace != "default" || ref.Name != "web" {
			t.Fatalf("regarding %+v", ref)
		}
		if msg := scheduledCond(c.pod("web")).Message; msg != failed {
			t.Fatalf("condition message %q", msg)
		}
		if a := c.s.Attempts(); a != (Attempts{Unschedulable: 1}) {
			t.Fatalf("attempts %+v", a)
		}

		c.addNode(mkNode("big", "4", "4Gi", 110))
		c.settle(2 * time.Second)
		got = rec.Events()
		last := got[len(got)-1]
		if last.Reason != ReasonScheduled || last.Type != events.Normal || last.Message != "Successfully assigned default/web to big" {
			t.Fatalf("events %v", got)
		}
		if p := c.pod("web"); p.Spec.NodeName != "big" {
			t.Fatalf("pod on %q", p.Spec.NodeName)
		}
		// scheduler_schedule_attempts_total: one attempt per
		// FailedScheduling, then the one that bound.
		if a := c.s.Attempts(); a.Scheduled != 1 || a.Error != 0 || a.Unschedulable != int64(len(got)-1) {
			t.Fatalf("attempts %+v after %d events", a, len(got))
		}
	})
}

// A message longer than an event note may be is cut as kube-scheduler's
// truncateMessage cuts it.
func TestSchedulerEventMessageTruncated(t *testing.T) {
	rec := events.NewMemory()
	s := &Scheduler{opts: Options{Recorder: rec}}
	long := make([]byte, 2000)
	for i := range long {
		long[i] = 'x'
	}
	s.event(mkPod("p", "", ""), events.Warning, ReasonFailedScheduling, string(long))
	msg := rec.Events()[0].Message
	if len(msg) != 1024 || msg[1020:] != " ..." {
		t.Fatalf("message of %d bytes ending %q", len(msg), msg[len(msg)-4:])
	}
}

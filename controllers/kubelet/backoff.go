package kubelet

import "time"

// The kubelet's crash-loop back-off (pkg/kubelet/kubelet.go: backOffPeriod
// and MaxContainerBackOff).
const (
	initialBackOff = 10 * time.Second
	maxBackOff     = 5 * time.Minute
)

// backOff is the kubelet's per-container restart back-off: client-go's
// flowcontrol.Backoff as kuberuntime's doBackOff drives it, without the
// jitter. The first restart after an exit is immediate; each later one
// waits the current back-off after the exit, which then doubles up to
// maxBackOff; a container that ran for more than twice maxBackOff since
// its last restart starts over. The zero value has no history.
type backOff struct {
	d       time.Duration // the back-off the next exit waits
	restart time.Time     // when the container was last restarted (flowcontrol's lastUpdate)
	set     bool
}

// delay records an exit at finished and returns how long after it the
// container may restart; the restart is counted at finished plus that.
func (b *backOff) delay(finished time.Time) time.Duration {
	if !b.set || finished.Sub(b.restart) > 2*maxBackOff {
		b.set, b.d, b.restart = true, initialBackOff, finished
		return 0
	}
	wait := b.d
	b.d = min(2*b.d, maxBackOff)
	b.restart = finished.Add(wait)
	return wait
}

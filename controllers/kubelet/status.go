package kubelet

import (
	"fmt"
	"strings"
	"time"
	"unique"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// status returns the pod status the kubelet reports for s at now, as
// generateAPIPodStatus does: the conditions the kubelet owns (Initialized,
// ContainersReady, Ready) after those others own (PodScheduled,
// DisruptionTarget, readiness gates), which are kept as pod holds them.
func (s *podState) status(pod *api.Pod, now time.Time) api.PodStatus {
	st := api.PodStatus{
		Phase:             s.phase,
		NominatedNodeName: pod.Status.NominatedNodeName,
		QOSClass:          pod.Status.QOSClass,
		HostIP:            s.hostIP,
		PodIP:             s.podIP,
	}
	if s.overdue {
		st.Reason, st.Message = reasonDeadline, msgDeadline
	}
	if s.hostNetwork {
		st.PodIP = s.hostIP
	}
	if st.HostIP != "" {
		st.HostIPs = []api.HostIP{{IP: st.HostIP}}
	}
	if st.PodIP != "" {
		st.PodIPs = []api.PodIP{{IP: st.PodIP}}
	}
	start := apiTime(s.admitted)
	st.StartTime = &start
	scheduled := false
	for _, c := range pod.Status.Conditions {
		scheduled = scheduled || c.Type == api.PodScheduled
	}
	if !scheduled { // a static pod, or one created bound: the kubelet says it is scheduled
		st.Conditions = append(st.Conditions, api.PodCondition{Type: api.PodScheduled, Status: api.ConditionTrue, LastTransitionTime: start})
	}
	for _, c := range pod.Status.Conditions {
		switch c.Type {
		case api.PodInitialized, api.ContainersReady, api.PodReady:
		default:
			st.Conditions = append(st.Conditions, c)
		}
	}
	var notInit, notReady []string
	for _, c := range s.initCtrs() {
		if !c.succeeded() && !(c.sidecar && c.everStarted) {
			notInit = append(notInit, c.name())
		}
		if c.sidecar && !c.ready {
			notReady = append(notReady, c.name()) // a sidecar's readiness counts
		}
		st.InitContainerStatuses = append(st.InitContainerStatuses, c.status(s))
	}
	for _, c := range s.appCtrs() {
		if !c.ready {
			notReady = append(notReady, c.name())
		}
		st.ContainerStatuses = append(st.ContainerStatuses, c.status(s))
	}
	for _, e := range s.ext().ephemeral {
		st.EphemeralContainerStatuses = append(st.EphemeralContainerStatuses, e.status(s))
	}
	// The conditions' reasons and messages, by the index of their type
	// in ownConds.
	var reasons, msgs [len(ownConds)]string
	setCond := func(i condIndex, status api.ConditionStatus, reason, msg string) {
		s.setCond(i, status, now)
		reasons[i], msgs[i] = reason, msg
	}
	completed := s.phase == api.PodSucceeded
	switch {
	case completed:
		setCond(condInitialized, api.ConditionTrue, reasonPodDone, "")
	case len(notInit) > 0:
		setCond(condInitialized, api.ConditionFalse, reasonNotInit, containersMsg("containers with incomplete status: [", notInit))
	default:
		setCond(condInitialized, api.ConditionTrue, "", "")
	}
	switch {
	case completed:
		setCond(condContainersReady, api.ConditionFalse, reasonPodDone, "")
		setCond(condReady, api.ConditionFalse, reasonPodDone, "")
	case s.phase == api.PodFailed:
		// pkg/kubelet/status: a Failed pod's containers are not ready,
		// whatever they report, since they may still be terminating.
		setCond(condContainersReady, api.ConditionFalse, reasonPodFailed, "")
		setCond(condReady, api.ConditionFalse, reasonPodFailed, "")
	case len(notReady) > 0:
		msg := containersMsg("containers with unready status: [", notReady)
		setCond(condContainersReady, api.ConditionFalse, reasonNotReady, msg)
		setCond(condReady, api.ConditionFalse, reasonNotReady, msg)
	default:
		setCond(condContainersReady, api.ConditionTrue, "", "")
		if msg := unreadyGates(pod); msg != "" {
			setCond(condReady, api.ConditionFalse, reasonGatesReady, msg)
		} else {
			setCond(condReady, api.ConditionTrue, "", "")
		}
	}
	for i, t := range ownConds {
		status := api.ConditionFalse
		if s.condTrue[i] {
			status = api.ConditionTrue
		}
		st.Conditions = append(st.Conditions, api.PodCondition{
			Type:               t,
			Status:             status,
			LastTransitionTime: apiTime(s.condSince[i]),
			Reason:             reasons[i],
			Message:            msgs[i],
		})
	}
	return st
}

// setCond records the status of a kubelet-owned condition; its
// transition time moves only when its status changes.
func (s *podState) setCond(i condIndex, status api.ConditionStatus, now time.Time) {
	isTrue := status == api.ConditionTrue
	if s.condSince[i].IsZero() || s.condTrue[i] != isTrue {
		s.condSince[i], s.condTrue[i] = now, isTrue
	}
}

// containersMsg is a condition's message naming containers: prefix,
// their names, "]". Pods alike have alike messages, which the stored
// statuses share (unique.Make) rather than hold one each.
func containersMsg(prefix string, names []string) string {
	return unique.Make(prefix + strings.Join(names, " ") + "]").Value()
}

// unreadyGates explains the first readiness gate whose condition is not
// True (pkg/kubelet/status: generatePodReadyCondition), "" if none.
func unreadyGates(pod *api.Pod) string {
	for _, g := range pod.Spec.ReadinessGates {
		found := false
		for _, c := range pod.Status.Conditions {
			if c.Type != g.ConditionType {
				continue
			}
			found = true
			if c.Status != api.ConditionTrue {
				return fmt.Sprintf("the status of pod readiness gate %q is not \"True\", but %s", g.ConditionType, c.Status)
			}
		}
		if !found {
			return fmt.Sprintf("corresponding condition of pod readiness gate %q does not exist.", g.ConditionType)
		}
	}
	return ""
}

// status reports container c as the kubelet does.
func (c *container) status(s *podState) api.ContainerStatus {
	spec := c.spec.Value()
	cs := api.ContainerStatus{
		Name:         spec.name,
		Image:        spec.image.ref,
		ImageID:      spec.image.id,
		Ready:        c.ready,
		RestartCount: c.restarts(),
	}
	if c.runs > 0 {
		cs.ContainerID = containerID(s, spec.name, c.runs)
	}
	switch c.phase {
	case waiting:
		cs.State.Waiting = &api.ContainerStateWaiting{Reason: c.reason.String(), Message: c.msg}
	case running:
		cs.State.Running = &api.ContainerStateRunning{StartedAt: apiTime(c.startedAt)}
	case terminated:
		t := *c.term
		t.ContainerID = cs.ContainerID
		cs.State.Terminated = &t
	}
	if c.last != nil {
		t := *c.last
		cs.LastTerminationState.Terminated = &t
	}
	if !c.init || c.sidecar {
		started := c.phase == running && c.started
		cs.Started = &started
	}
	return cs
}

// containerID is the simulated runtime's id of run runs of s's
// container name.
func containerID(s *podState, name string, runs int32) string {
	uid := string(s.uid)
	if len(uid) > 8 {
		uid = uid[:8]
	}
	return fmt.Sprintf("sim://%s-%s-%d", uid, name, runs)
}

package kubelet

import (
	"fmt"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// ephemeral is one ephemeral container of a pod (`kubectl debug`): it
// starts once the pod runs and runs until the pod stops (its process,
// a shell or `sleep 1d`, waits on its user); it is never restarted and
// never ready, as the kubelet runs them.
type ephemeral struct {
	name, image string
	startedAt   time.Time // zero: waiting
	finishedAt  time.Time // zero: not stopped
}

// syncEphemeral takes the ephemeral containers the pod's spec gained on,
// starts those waiting once the pod runs, and stops the running ones
// when the pod stops, recording the kubelet's events of each (Pulled,
// Created and Started on its start, Killing on its stop) about
// spec.ephemeralContainers{name}, as kube's GenerateContainerRef names
// an ephemeral container.
func (s *podState) syncEphemeral(pod *api.Pod, now time.Time) {
	if len(pod.Spec.EphemeralContainers) > len(s.ext().ephemeral) {
		x := s.extras()
		for _, ec := range pod.Spec.EphemeralContainers[len(x.ephemeral):] {
			x.ephemeral = append(x.ephemeral, &ephemeral{name: ec.Name, image: ec.Image})
		}
	}
	stopped := s.terminating || s.terminal()
	for _, e := range s.ext().ephemeral {
		switch {
		case e.startedAt.IsZero() && !stopped && s.phase == api.PodRunning:
			e.startedAt = now
			s.noteEphemeral(e, "Pulled", fmt.Sprintf("Container image %q already present on machine and can be accessed by the pod", e.image))
			s.noteEphemeral(e, "Created", "Container created")
			s.noteEphemeral(e, "Started", "Container started")
			out := s.output()
			out.pulls = append(out.pulls, imagePull{e.image, ImageSize(e.image)})
		case !e.startedAt.IsZero() && e.finishedAt.IsZero() && stopped:
			e.finishedAt = now
			s.noteEphemeral(e, "Killing", "Stopping container "+e.name)
		}
	}
}

// noteEphemeral records a Normal event about ephemeral container e.
func (s *podState) noteEphemeral(e *ephemeral, reason, message string) {
	out := s.output()
	out.notes = append(out.notes, note{fieldPath: "spec.ephemeralContainers{" + e.name + "}", reason: reason, message: message})
}

// status is the ephemeral container's status, as the kubelet reports
// it in status.ephemeralContainerStatuses.
func (e *ephemeral) status(s *podState) api.ContainerStatus {
	started := !e.startedAt.IsZero() && e.finishedAt.IsZero()
	cs := api.ContainerStatus{Name: e.name, Image: e.image, ImageID: imageDigestName(e.image), Started: &started}
	switch {
	case e.startedAt.IsZero():
		cs.State.Waiting = &api.ContainerStateWaiting{Reason: reasonCreating}
	case e.finishedAt.IsZero():
		cs.ContainerID = containerID(s, e.name, 1)
		cs.State.Running = &api.ContainerStateRunning{StartedAt: apiTime(e.startedAt)}
	default:
		cs.ContainerID = containerID(s, e.name, 1)
		cs.State.Terminated = &api.ContainerStateTerminated{ExitCode: 137, Reason: "Error", ContainerID: cs.ContainerID,
			StartedAt: apiTime(e.startedAt), FinishedAt: apiTime(e.finishedAt)}
	}
	return cs
}

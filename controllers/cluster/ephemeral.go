package cluster

import (
	"context"
	"fmt"
	"reflect"
	"unicode"
	"unicode/utf8"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// allowedEphemeralFields are the Container fields an ephemeral container
// may set (kube's allowedEphemeralContainerFields, pkg/apis/core/
// validation): ports, resources, probes, lifecycle, restartPolicy and the
// resize policy are for workload containers.
var allowedEphemeralFields = map[string]bool{
	"Name": true, "Image": true, "Command": true, "Args": true, "WorkingDir": true, "EnvFrom": true, "Env": true,
	"VolumeMounts": true, "VolumeDevices": true, "TerminationMessagePath": true, "TerminationMessagePolicy": true,
	"ImagePullPolicy": true, "SecurityContext": true, "Stdin": true, "StdinOnce": true, "TTY": true,
}

// validateEphemeralContainers checks a pod's ephemeral containers as
// kube's validateEphemeralContainers: each a valid container with a name
// unique among all the pod's containers, only the allowed fields set, no
// subPath mounts, and a targetContainerName naming a container or init
// container.
func validateEphemeralContainers(fs *fieldErrors, path string, s *api.PodSpec, volumes map[string]bool) {
	if len(s.EphemeralContainers) == 0 {
		return
	}
	others, all := map[string]bool{}, map[string]bool{}
	for _, list := range [][]api.Container{s.Containers, s.InitContainers} {
		for _, c := range list {
			others[c.Name], all[c.Name] = true, true
		}
	}
	for i := range s.EphemeralContainers {
		ec := &s.EphemeralContainers[i]
		p := fmt.Sprintf("%s.ephemeralContainers[%d]", path, i)
		switch {
		case ec.Name == "":
			fs.required(p+".name", "")
		case all[ec.Name]:
			fs.add(FieldDuplicate, p+".name", ec.Name, "")
		default:
			checkDNS1123Label(fs, p+".name", ec.Name)
			all[ec.Name] = true
		}
		if ec.Image == "" {
			fs.required(p+".image", "")
		}
		validateContainerDetails(fs, p, &ec.Container, volumes)
		if ec.TargetContainerName != "" && !others[ec.TargetContainerName] {
			fs.add(FieldNotFound, p+".targetContainerName", ec.TargetContainerName, "")
		}
		v, t := reflect.ValueOf(ec.Container), reflect.TypeOf(ec.Container)
		for j := range t.NumField() {
			f := t.Field(j)
			if allowedEphemeralFields[f.Name] || v.Field(j).IsZero() {
				continue
			}
			r, n := utf8.DecodeRuneInString(f.Name)
			fs.forbidden(p+"."+string(unicode.ToLower(r))+f.Name[n:], "cannot be set for an Ephemeral Container")
		}
		for j, m := range ec.VolumeMounts {
			mp := fmt.Sprintf("%s.volumeMounts[%d]", p, j)
			if m.SubPath != "" {
				fs.forbidden(mp+".subPath", "cannot be set for an Ephemeral Container")
			}
			if m.SubPathExpr != "" {
				fs.forbidden(mp+".subPathExpr", "cannot be set for an Ephemeral Container")
			}
		}
	}
}

// validatePodCreate refuses ephemeral containers on create, as kube's
// ValidatePodCreate: they are added to a running pod through the
// pods/ephemeralcontainers subresource.
func validatePodCreate(p *api.Pod, fs *fieldErrors) {
	if len(p.Spec.EphemeralContainers) > 0 {
		fs.forbidden("spec.ephemeralContainers", "cannot be set on create")
	}
}

// validatePodEphemeralContainersUpdate checks a write of the
// pods/ephemeralcontainers subresource, as kube's
// ValidatePodEphemeralContainersUpdate: no ephemeral containers on a
// static pod, and the existing ones neither removed nor changed (the
// new ones are checked with the pod's spec).
func validatePodEphemeralContainersUpdate(old, cur *api.Pod, fs *fieldErrors) {
	if _, ok := old.Annotations["kubernetes.io/config.mirror"]; ok {
		fs.forbidden("", "static pods do not support ephemeral containers")
		return
	}
	byName := map[string]*api.EphemeralContainer{}
	for i := range cur.Spec.EphemeralContainers {
		byName[cur.Spec.EphemeralContainers[i].Name] = &cur.Spec.EphemeralContainers[i]
	}
	for _, o := range old.Spec.EphemeralContainers {
		n, ok := byName[o.Name]
		switch {
		case !ok:
			fs.forbidden("spec.ephemeralContainers", fmt.Sprintf("existing ephemeral containers %q may not be removed\n", o.Name))
		case !jsonEqual(o, *n):
			fs.forbidden("spec.ephemeralContainers", fmt.Sprintf("existing ephemeral containers %q may not be changed\n", o.Name))
		}
	}
}

// UpdateEphemeralContainers writes pod's spec.ephemeralContainers over
// the stored pod, and nothing else: Kubernetes' pods/ephemeralcontainers
// subresource (`kubectl debug`). The new containers are defaulted and
// validated with the pod; existing ones may not be removed or changed;
// a static pod takes none. Preconditions (resourceVersion, uid) and the
// result in pod are as for Update.
func (c *Cluster) UpdateEphemeralContainers(ctx context.Context, pod *api.Pod) (string, error) {
	s := c.Pods()
	if err := checkObject(ctx, pod); err != nil {
		return "", fmt.Errorf("cluster: update pods ephemeralcontainers: %w", err)
	}
	return s.write(ctx, "update ephemeralcontainers", api.Key(pod), pod.ResourceVersion, pod, func(cur *api.Pod) (*api.Pod, error) {
		next := cur.DeepCopy()
		next.Spec.EphemeralContainers = pod.DeepCopy().Spec.EphemeralContainers
		defaultEphemeralContainers(&next.Spec)
		var fs fieldErrors
		validatePodEphemeralContainersUpdate(cur, next, &fs)
		if len(fs) == 0 {
			validatePod(next, &fs)
		}
		return next, fs.err("pods", next.Name)
	})
}

// defaultEphemeralContainers defaults ephemeral containers as
// containers: the termination message path, the pull policy.
func defaultEphemeralContainers(s *api.PodSpec) {
	for i := range s.EphemeralContainers {
		c := &s.EphemeralContainers[i].Container
		if c.TerminationMessagePath == "" {
			c.TerminationMessagePath = "/dev/termination-log"
		}
		if c.ImagePullPolicy == "" {
			c.ImagePullPolicy = defaultPullPolicy(c.Image)
		}
	}
}

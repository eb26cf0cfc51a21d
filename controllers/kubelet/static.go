package kubelet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/source"
)

// staticPod is a pod the kubelet runs from a manifest in StaticPodPath.
type staticPod struct {
	pod     *api.Pod // as the kubelet runs it: named <name>-<node>, bound, annotated
	hash    string
	st      *podState
	removed bool // its manifest is gone: it terminates, then is dropped
}

func isMirror(p *api.Pod) bool {
	_, ok := p.Annotations[api.AnnotationConfigMirror]
	return ok
}

func fnvHash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// staticFrom is pod as the kubelet's file source makes it
// (pkg/kubelet/config/common.go applyDefaults): the node name appended to
// its name, namespace default, uid and config.hash from the manifest and
// node, bound to the node, and the defaults the API server would apply.
func staticFrom(pod *api.Pod, node string, now time.Time) (*api.Pod, error) {
	raw, err := json.Marshal(pod)
	if err != nil {
		return nil, fmt.Errorf("kubelet: static pod %s: %w", pod.Name, err)
	}
	hash := fmt.Sprintf("%016x", fnvHash(node+"\x00"+string(raw)))
	p := pod.DeepCopy()
	p.Name = pod.Name + "-" + strings.ToLower(node)
	if p.Namespace == "" {
		p.Namespace = "default"
	}
	p.UID = api.UID(hash)
	if p.Annotations == nil {
		p.Annotations = map[string]string{}
	}
	p.Annotations[api.AnnotationConfigHash] = hash
	p.Annotations[api.AnnotationConfigSource] = "file"
	p.Annotations[api.AnnotationConfigSeen] = now.UTC().Format(time.RFC3339Nano)
	p.Spec.NodeName = node
	if p.Spec.RestartPolicy == "" {
		p.Spec.RestartPolicy = api.RestartPolicyAlways
	}
	if p.Spec.TerminationGracePeriodSeconds == nil {
		p.Spec.TerminationGracePeriodSeconds = new(int64(30))
	}
	p.Status = api.PodStatus{}
	return p, nil
}

// readStatic reads StaticPodPath at now (the kubelet's file source):
// every pod in a file not starting with "." runs; a changed manifest
// replaces its pod; a removed one terminates. An unreadable file is
// skipped and reported in the error.
func (k *Kubelet) readStatic(now time.Time) error {
	entries, err := os.ReadDir(k.opts.StaticPodPath)
	if err != nil {
		return fmt.Errorf("kubelet: static pod path: %w", err)
	}
	var errs []error
	want := map[string]*api.Pod{}
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		objs, err := api.DecodeFile(filepath.Join(k.opts.StaticPodPath, e.Name()), api.DecodeOptions{})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, obj := range objs {
			pod, ok := obj.(*api.Pod)
			if !ok {
				errs = append(errs, fmt.Errorf("kubelet: %s: a %T is not a pod", e.Name(), obj))
				continue
			}
			p, err := staticFrom(pod, k.opts.NodeName, now)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			want[api.Key(p)] = p
		}
	}
	for key, p := range want {
		sp := k.static[key]
		if sp != nil && !sp.removed && sp.hash == p.Annotations[api.AnnotationConfigHash] {
			continue
		}
		if sp != nil {
			k.releaseIP(sp.st)
		}
		st, err := k.admit(p, now)
		if err != nil {
			errs = append(errs, err)
		}
		k.static[key] = &staticPod{pod: p, hash: p.Annotations[api.AnnotationConfigHash], st: st}
	}
	for key, sp := range k.static {
		if _, ok := want[key]; !ok && !sp.removed {
			sp.removed = true
			sp.st.terminate(now, gracePeriod(sp.pod))
		}
	}
	return errors.Join(errs...)
}

// syncStatic runs the static pod at key and keeps its mirror pod: created
// when missing, deleted (and so created again) when deleted, stale, or
// left over from a static pod that is gone, and carrying the static pod's
// status. The mirror never controls the static pod: deleting it does not
// stop the pod.
func (k *Kubelet) syncStatic(ctx context.Context, key string, now time.Time) error {
	sp := k.static[key]
	mirror, ok := k.pods.Lister().Get(key)
	if sp != nil {
		sp.st.advance(now)
		about := sp.pod
		if ok && isMirror(mirror) {
			about = mirror
		}
		k.record(about, sp.st)
		if sp.st.terminal() {
			k.releaseIP(sp.st)
		}
		if sp.removed && sp.st.done {
			k.releaseIP(sp.st)
			delete(k.static, key)
			sp = nil
		}
	}
	if sp == nil {
		if ok && isMirror(mirror) {
			return k.finalDelete(ctx, key, mirror.UID)
		}
		return nil
	}
	if !ok {
		if sp.removed {
			return nil
		}
		m := sp.pod.DeepCopy()
		m.UID = ""
		m.Annotations[api.AnnotationConfigMirror] = sp.hash
		if k.nodeUID != "" {
			m.OwnerReferences = []api.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: k.opts.NodeName, UID: k.nodeUID}}
		}
		if _, err := k.podRes.Create(ctx, m); err != nil && !errors.Is(err, source.ErrAlreadyExists) {
			return fmt.Errorf("kubelet: create mirror pod %s: %w", key, err)
		}
		return nil
	}
	if !isMirror(mirror) {
		k.log.Warn("kubelet: a pod that is not a mirror holds a static pod's name", "pod", key)
		return nil
	}
	if mirror.Annotations[api.AnnotationConfigMirror] != sp.hash || mirror.DeletionTimestamp != nil {
		return k.finalDelete(ctx, key, mirror.UID)
	}
	return k.writeStatus(ctx, mirror, sp.st.status(mirror, now))
}

package kubelet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/source"
)

// configRetry is how soon a container that could not be created for a
// missing ConfigMap or Secret (CreateContainerConfigError) is tried
// again: the pod worker's back-off after a failed sync (backOffPeriod,
// 10 s).
const configRetry = 10 * time.Second

// Mount retries back off as the volume manager's operations do
// (nestedpendingoperations' exponential back-off): 500 ms doubling up to
// 2 min 2 s.
const (
	mountRetryFirst = 500 * time.Millisecond
	mountRetryMax   = 2*time.Minute + 2*time.Second
)

const reasonConfigError = "CreateContainerConfigError"

// configSource reads the ConfigMaps and Secrets a pod refers to, as the
// kubelet's configMapManager and secretManager do, with a Get each (their
// "Get" change detection strategy): only the objects of the node's pods,
// only while one waits for them. It memoizes its reads for one sync.
type configSource struct {
	ctx        context.Context
	cms        client.Resource[*api.ConfigMap]
	secrets    client.Resource[*api.Secret]
	ns         string
	cmCache    map[string]cmResult
	secretData map[string]secretResult
}

type cmResult struct {
	cm  *api.ConfigMap
	err error
}

type secretResult struct {
	data map[string][]byte
	err  error
}

// errNotFound is the error the kubelet's managers return for a missing
// object: apierrors.NewNotFound of resource "configmap" or "secret",
// whose message is `configmap "x" not found`.
type errNotFound struct{ resource, name string }

func (e errNotFound) Error() string { return fmt.Sprintf("%s %q not found", e.resource, e.name) }

func isNotFound(err error) bool {
	var nf errNotFound
	return errors.As(err, &nf)
}

func (k *Kubelet) configSource(ctx context.Context, ns string) *configSource {
	return &configSource{ctx: ctx, cms: k.cmRes, secrets: k.secretRes, ns: ns,
		cmCache: map[string]cmResult{}, secretData: map[string]secretResult{}}
}

func (c *configSource) configMap(name string) (*api.ConfigMap, error) {
	if r, ok := c.cmCache[name]; ok {
		return r.cm, r.err
	}
	cm, _, err := c.cms.Get(c.ctx, api.NamespacedKey(c.ns, name))
	if errors.Is(err, source.ErrNotFound) {
		err = errNotFound{"configmap", name}
	}
	c.cmCache[name] = cmResult{cm, err}
	return cm, err
}

// secret returns the secret's data (with stringData merged, as the API
// server stores it).
func (c *configSource) secret(name string) (map[string][]byte, error) {
	if r, ok := c.secretData[name]; ok {
		return r.data, r.err
	}
	s, _, err := c.secrets.Get(c.ctx, api.NamespacedKey(c.ns, name))
	var data map[string][]byte
	switch {
	case errors.Is(err, source.ErrNotFound):
		err = errNotFound{"secret", name}
	case err == nil:
		data = make(map[string][]byte, len(s.Data)+len(s.StringData))
		for k, v := range s.Data {
			data[k] = v
		}
		for k, v := range s.StringData {
			data[k] = []byte(v)
		}
	}
	c.secretData[name] = secretResult{data, err}
	return data, err
}

// envError is why the container with this env cannot be created, as
// makeEnvironmentVariables (pkg/kubelet/kubelet_pods.go) fails: a
// missing ConfigMap or Secret of envFrom, then of env's valueFrom, or a
// missing key of the latter, unless optional. "" when it can.
func (c *configSource) envError(env []api.EnvVar, envFrom []api.EnvFromSource) string {
	for _, f := range envFrom {
		switch {
		case f.ConfigMapRef != nil:
			if _, err := c.configMap(f.ConfigMapRef.Name); err != nil && !(isNotFound(err) && isTrue(f.ConfigMapRef.Optional)) {
				return err.Error()
			}
		case f.SecretRef != nil:
			if _, err := c.secret(f.SecretRef.Name); err != nil && !(isNotFound(err) && isTrue(f.SecretRef.Optional)) {
				return err.Error()
			}
		}
	}
	for _, e := range env {
		if e.Value != "" || e.ValueFrom == nil {
			continue
		}
		switch {
		case e.ValueFrom.ConfigMapKeyRef != nil:
			ref := e.ValueFrom.ConfigMapKeyRef
			cm, err := c.configMap(ref.Name)
			if err != nil {
				if isNotFound(err) && isTrue(ref.Optional) {
					continue
				}
				return err.Error()
			}
			if _, ok := cm.Data[ref.Key]; !ok && !isTrue(ref.Optional) {
				return fmt.Sprintf("couldn't find key %s in ConfigMap %s/%s", ref.Key, c.ns, ref.Name)
			}
		case e.ValueFrom.SecretKeyRef != nil:
			ref := e.ValueFrom.SecretKeyRef
			data, err := c.secret(ref.Name)
			if err != nil {
				if isNotFound(err) && isTrue(ref.Optional) {
					continue
				}
				return err.Error()
			}
			if _, ok := data[ref.Key]; !ok && !isTrue(ref.Optional) {
				return fmt.Sprintf("couldn't find key %s in Secret %s/%s", ref.Key, c.ns, ref.Name)
			}
		}
	}
	return ""
}

// mountErrors are the FailedMount messages of the pod's volumes that
// cannot be set up, in the pod's order, as the configmap, secret and
// projected volume plugins fail (pkg/volume/...): a missing object
// unless optional, an item whose key is missing unless optional; a
// projected volume reports its sources' errors together, as an
// aggregate. Nil when every volume can be set up.
func (c *configSource) mountErrors(vols []api.Volume) []string {
	var out []string
	for _, v := range vols {
		var errs []string
		switch {
		case v.ConfigMap != nil:
			errs = c.configMapVolume(v.ConfigMap.Name, v.ConfigMap.Items, isTrue(v.ConfigMap.Optional))
		case v.Secret != nil:
			errs = c.secretVolume(v.Secret.SecretName, v.Secret.Items, isTrue(v.Secret.Optional))
		case v.Projected != nil:
			for _, s := range v.Projected.Sources {
				switch {
				case s.ConfigMap != nil:
					errs = append(errs, c.configMapVolume(s.ConfigMap.Name, s.ConfigMap.Items, isTrue(s.ConfigMap.Optional))...)
				case s.Secret != nil:
					errs = append(errs, c.secretVolume(s.Secret.Name, s.Secret.Items, isTrue(s.Secret.Optional))...)
				}
			}
		}
		msg := ""
		switch len(errs) {
		case 0:
			continue
		case 1:
			msg = errs[0]
		default: // utilerrors.NewAggregate
			msg = "[" + strings.Join(errs, ", ") + "]"
		}
		out = append(out, fmt.Sprintf("MountVolume.SetUp failed for volume %q : %s", v.Name, msg))
	}
	return out
}

func (c *configSource) configMapVolume(name string, items []api.KeyToPath, optional bool) []string {
	cm, err := c.configMap(name)
	if err != nil {
		if isNotFound(err) && optional {
			return nil
		}
		return []string{err.Error()}
	}
	for _, it := range items {
		_, inData := cm.Data[it.Key]
		_, inBinary := cm.BinaryData[it.Key]
		if !inData && !inBinary && !optional {
			return []string{"configmap references non-existent config key: " + it.Key}
		}
	}
	return nil
}

func (c *configSource) secretVolume(name string, items []api.KeyToPath, optional bool) []string {
	data, err := c.secret(name)
	if err != nil {
		if isNotFound(err) && optional {
			return nil
		}
		return []string{err.Error()}
	}
	for _, it := range items {
		if _, ok := data[it.Key]; !ok && !optional {
			return []string{"references non-existent secret key: " + it.Key}
		}
	}
	return nil
}

// hasConfigVolumes reports whether a volume of the pod needs a ConfigMap
// or Secret.
func hasConfigVolumes(pod *api.Pod) bool {
	for _, v := range pod.Spec.Volumes {
		if v.ConfigMap != nil || v.Secret != nil {
			return true
		}
		if v.Projected != nil {
			for _, s := range v.Projected.Sources {
				if s.ConfigMap != nil || s.Secret != nil {
					return true
				}
			}
		}
	}
	return false
}

func isTrue(b *bool) bool { return b != nil && *b }

// mountRetry is the wait before mount attempt tries+1.
func mountRetry(tries int) time.Duration {
	d := mountRetryFirst
	for range tries - 1 {
		d *= 2
		if d >= mountRetryMax {
			return mountRetryMax
		}
	}
	return d
}

// mountVolumes tries to set up the volumes of the pod of s at now, as
// the volume manager does before the pod's containers are created: on
// success the containers are scheduled; else a FailedMount event per
// failing volume and another attempt after the back-off.
func (k *Kubelet) mountVolumes(cs *configSource, pod *api.Pod, s *podState, now time.Time) {
	errs := cs.mountErrors(pod.Spec.Volumes)
	if len(errs) == 0 {
		s.mounted(now)
		return
	}
	out := s.output()
	for _, m := range errs {
		out.notes = append(out.notes, note{warning: true, reason: "FailedMount", message: m})
	}
	x := s.extras()
	x.mountTries++
	x.mountAt = now.Add(mountRetry(x.mountTries))
}

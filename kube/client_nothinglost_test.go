package kube_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/kube"
)

// rawServer is an API server of a few objects kept as raw JSON, every
// field of them, as kube-apiserver keeps the fields ctrlkit's types do
// not model (ctrlkit's own server decodes into them and drops the rest).
// It serves GET and PUT of an object and of its status subresource,
// with resourceVersion preconditions.
type rawServer struct {
	mu   sync.Mutex
	rv   int
	objs map[string]map[string]any // by URL path
}

func decodeJSON(t testing.TB, b []byte) map[string]any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	require.NoError(t, d.Decode(&m))
	return m
}

func (s *rawServer) answer(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func (s *rawServer) status(w http.ResponseWriter, code int, reason string) {
	s.answer(w, code, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": reason, "code": code, "message": reason})
}

func (s *rawServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path, sub := r.URL.Path, ""
	if p, ok := strings.CutSuffix(path, "/status"); ok {
		path, sub = p, "status"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.objs[path]
	if !ok {
		s.status(w, http.StatusNotFound, "NotFound")
		return
	}
	switch r.Method {
	case http.MethodGet:
		s.answer(w, http.StatusOK, cur)
	case http.MethodPut:
		var in map[string]any
		d := json.NewDecoder(r.Body)
		d.UseNumber()
		if err := d.Decode(&in); err != nil {
			s.status(w, http.StatusBadRequest, "BadRequest")
			return
		}
		meta, _ := in["metadata"].(map[string]any)
		curMeta := cur["metadata"].(map[string]any)
		if meta == nil || meta["resourceVersion"] != curMeta["resourceVersion"] {
			s.status(w, http.StatusConflict, "Conflict")
			return
		}
		next := in
		if sub == "status" {
			next = clone(cur)
			next["status"] = in["status"]
		} else {
			next["status"] = cur["status"]
		}
		s.rv++
		next["metadata"].(map[string]any)["resourceVersion"] = fmt.Sprint(s.rv)
		s.objs[path] = next
		s.answer(w, http.StatusOK, next)
	default:
		s.status(w, http.StatusMethodNotAllowed, "MethodNotAllowed")
	}
}

func clone(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var out map[string]any
	d.Decode(&out)
	return out
}

// at returns the value at path (string keys, int indexes), and whether
// there is one.
func at(v any, path ...any) (any, bool) {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[k]; !ok {
				return nil, false
			}
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil, false
			}
			v = a[k]
		}
	}
	return v, true
}

const rawPod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns","uid":"u-pod","resourceVersion":"1",
 "labels":{"app":"web"},"annotations":{"unknown.example.com/a":"kept"},
 "selfLink":"/api/v1/namespaces/ns/pods/p"},
 "spec":{"os":{"name":"linux"},"hostUsers":false,"hostnameOverride":"h","resourceClaims":[{"name":"gpu","resourceClaimName":"gpu-claim"}],
  "containers":[{"name":"c","image":"nginx:1","resizePolicy":[{"resourceName":"cpu","restartPolicy":"NotRequired"}],
   "terminationMessagePath":"/dev/termination-log","ports":[{"containerPort":80,"protocol":"TCP"}]}]},
 "status":{"phase":"Pending","qosClass":"BestEffort","resize":"Proposed","resourceClaimStatuses":[{"name":"gpu","resourceClaimName":"gpu-claim"}]}}`

const rawDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"ns","uid":"u-dep","resourceVersion":"1","generation":1},
 "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
  "template":{"metadata":{"labels":{"app":"web"}},"spec":{"hostUsers":false,"resourceClaims":[{"name":"gpu","resourceClaimName":"c"}],
   "containers":[{"name":"c","image":"nginx:1","resizePolicy":[{"resourceName":"memory","restartPolicy":"RestartContainer"}]}]}}},
 "status":{"replicas":1,"terminatingReplicas":2,"conditions":[{"type":"Available","status":"True","unknownField":"x"}]}}`

const rawStatefulSet = `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"s","namespace":"ns","uid":"u-sts","resourceVersion":"1","generation":1},
 "spec":{"replicas":1,"serviceName":"s","selector":{"matchLabels":{"app":"db"}},"ordinals":{"start":3},
  "persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Delete","whenScaled":"Retain"},
  "template":{"metadata":{"labels":{"app":"db"}},"spec":{"hostUsers":false,"hostnameOverride":"db","containers":[{"name":"db","image":"pg:1","resizePolicy":[{"resourceName":"cpu","restartPolicy":"NotRequired"}]}]}}},
 "status":{"replicas":1,"availableReplicas":1,"fieldOfALaterVersion":{"a":1}}}`

// unknownPaths are, per object, fields ctrlkit's types do not model
// (Kubernetes v1.37 fields, and in the statuses two of a would-be later
// version); the test checks that they are not modelled, then that writes
// keep them.
var unknownPaths = map[string][][]any{
	"p": {{"metadata", "selfLink"}, {"spec", "hostUsers"}, {"spec", "hostnameOverride"}, {"spec", "resourceClaims"},
		{"spec", "containers", 0, "resizePolicy"}, {"status", "resize"}, {"status", "resourceClaimStatuses"}},
	"d": {{"spec", "template", "spec", "hostUsers"}, {"spec", "template", "spec", "resourceClaims"},
		{"spec", "template", "spec", "containers", 0, "resizePolicy"}, {"status", "conditions", 0, "unknownField"}},
	"s": {{"spec", "template", "spec", "hostUsers"}, {"spec", "template", "spec", "hostnameOverride"},
		{"spec", "template", "spec", "containers", 0, "resizePolicy"}, {"status", "fieldOfALaterVersion"}},
}

// Nothing lost (issue 29 item 3): a Pod, a Deployment and a StatefulSet
// carrying fields ctrlkit does not model go through Get→Update and
// Get→UpdateStatus; the server still has every one of those fields, and
// the changes made. Both with the raw JSON remembered and without it
// (RawCacheBytes < 0: each write reads the object first).
func TestClientWritesLoseNothing(t *testing.T) {
	for _, cacheBytes := range []int64{0, -1} {
		t.Run(fmt.Sprint("RawCacheBytes=", cacheBytes), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &rawServer{rv: 1, objs: map[string]map[string]any{
					"/api/v1/namespaces/ns/pods/p":               decodeJSON(t, []byte(rawPod)),
					"/apis/apps/v1/namespaces/ns/deployments/d":  decodeJSON(t, []byte(rawDeployment)),
					"/apis/apps/v1/namespaces/ns/statefulsets/s": decodeJSON(t, []byte(rawStatefulSet)),
				}}
				seeds := map[string]map[string]any{}
				for path, o := range s.objs {
					seeds[path] = clone(o)
				}
				cl, err := kube.NewClient(pipeConfig(s), kube.ClientOptions{RawCacheBytes: cacheBytes})
				require.NoError(t, err)
				pods, _ := client.For[*api.Pod](cl)
				deps, _ := client.For[*api.Deployment](cl)
				stss, _ := client.For[*api.StatefulSet](cl)

				check := func(path, name string, changed func(stored map[string]any)) {
					t.Helper()
					s.mu.Lock()
					stored := clone(s.objs[path])
					s.mu.Unlock()
					for _, p := range unknownPaths[name] {
						want, ok := at(seeds[path], p...)
						require.True(t, ok, "seed has %v", p)
						got, ok := at(stored, p...)
						require.True(t, ok, "%s lost %v: %v", name, p, stored)
						require.Equal(t, want, got, "%s %v", name, p)
					}
					got, _ := at(stored, "metadata", "annotations", "unknown.example.com/a")
					want, _ := at(seeds[path], "metadata", "annotations", "unknown.example.com/a")
					require.Equal(t, want, got)
					changed(stored)
				}
				notModelled := func(obj api.Object, name string) {
					b, err := json.Marshal(obj)
					require.NoError(t, err)
					typed := decodeJSON(t, b)
					for _, p := range unknownPaths[name] {
						_, ok := at(typed, p...)
						require.False(t, ok, "ctrlkit models %v; pick a field it does not", p)
					}
				}

				ctx := t.Context()
				// Pod.
				p, _, err := pods.Get(ctx, "ns/p")
				require.NoError(t, err)
				notModelled(p, "p")
				p.Labels["tier"] = "front"
				p.Spec.Containers[0].Image = "nginx:2"
				_, err = pods.Update(ctx, p, "")
				require.NoError(t, err)
				check("/api/v1/namespaces/ns/pods/p", "p", func(st map[string]any) {
					v, _ := at(st, "metadata", "labels", "tier")
					require.Equal(t, "front", v)
					v, _ = at(st, "spec", "containers", 0, "image")
					require.Equal(t, "nginx:2", v)
				})
				p, _, err = pods.Get(ctx, "ns/p")
				require.NoError(t, err)
				p.Status.Phase = api.PodRunning
				_, err = pods.UpdateStatus(ctx, p)
				require.NoError(t, err)
				check("/api/v1/namespaces/ns/pods/p", "p", func(st map[string]any) {
					v, _ := at(st, "status", "phase")
					require.Equal(t, "Running", v)
				})

				// Deployment: Update with the object as Update returned it.
				d, _, err := deps.Get(ctx, "ns/d")
				require.NoError(t, err)
				notModelled(d, "d")
				d.Spec.Replicas = ptrTo(int32(4))
				_, err = deps.Update(ctx, d, "")
				require.NoError(t, err)
				d.Status.Replicas = 4
				_, err = deps.UpdateStatus(ctx, d)
				require.NoError(t, err)
				check("/apis/apps/v1/namespaces/ns/deployments/d", "d", func(st map[string]any) {
					v, _ := at(st, "spec", "replicas")
					require.Equal(t, json.Number("4"), v)
					v, _ = at(st, "status", "replicas")
					require.Equal(t, json.Number("4"), v)
				})

				// StatefulSet.
				ss, _, err := stss.Get(ctx, "ns/s")
				require.NoError(t, err)
				notModelled(ss, "s")
				ss.Spec.Replicas = ptrTo(int32(2))
				ss.Spec.Template.Spec.Containers = append(ss.Spec.Template.Spec.Containers, api.Container{Name: "side", Image: "busybox"})
				_, err = stss.Update(ctx, ss, "")
				require.NoError(t, err)
				ss, _, err = stss.Get(ctx, "ns/s")
				require.NoError(t, err)
				ss.Status.Replicas = 2
				_, err = stss.UpdateStatus(ctx, ss)
				require.NoError(t, err)
				check("/apis/apps/v1/namespaces/ns/statefulsets/s", "s", func(st map[string]any) {
					v, _ := at(st, "spec", "template", "spec", "containers", 1, "name")
					require.Equal(t, "side", v)
					v, _ = at(st, "status", "replicas")
					require.Equal(t, json.Number("2"), v)
				})

				// A stale write still conflicts.
				stale, _, err := pods.Get(ctx, "ns/p")
				require.NoError(t, err)
				stale.ResourceVersion = "1"
				_, err = pods.Update(ctx, stale, "")
				require.True(t, client.IsConflict(err), "%v", err)
			})
		})
	}
}

package main

// This file generates random kubectl apply scenarios; see main.go.

import (
	"encoding/json"
	"fmt"
	"log"
	"math/rand/v2"

	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

type obj = map[string]any

// randomApplies returns n `kubectl apply` cases over random Deployments:
// a random manifest applied before, the live object changed at random by
// "the server", and a random edit of the manifest applied over it. Cases
// where kubectl itself fails are skipped; those where kube-apiserver fails
// carry its error.
func randomApplies(n int, seed uint64) []applied {
	r := rand.New(rand.NewPCG(seed, 1))
	schema, err := strategicpatch.NewPatchMetaFromStruct(schemas["Deployment"])
	if err != nil {
		log.Fatal(err)
	}
	var res []applied
	for i := range n {
		before := randomDeployment(r)
		manifest := deepCopy(before).(obj)
		for range 1 + r.IntN(4) {
			mutate(r, manifest)
		}
		liveObj := deepCopy(before).(obj)
		for range r.IntN(3) {
			mutate(r, liveObj)
		}
		// Without the last-applied annotation, which is one more string
		// to kubectl's diff and would only make the cases longer.
		beforeJSON := mustJSON(before)
		live := serverFields(mustJSON(liveObj))
		modified := mustJSON(manifest)
		patch, err := strategicpatch.CreateThreeWayMergePatch(beforeJSON, modified, live, schema, true)
		if err != nil {
			continue // kubectl fails too (e.g. on "env: null")
		}
		want, err := strategicpatch.StrategicMergePatchUsingLookupPatchMeta(live, patch, schema)
		a := applied{Description: fmt.Sprintf("random %d", i), Kind: "Deployment", Live: live, Patch: patch, Want: want}
		if err != nil {
			a.Want, a.WantError = nil, err.Error()
		}
		res = append(res, a)
	}
	return res
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		log.Fatal(err)
	}
	return b
}

func deepCopy(v any) any {
	var out any
	if err := json.Unmarshal(mustJSON(v), &out); err != nil {
		log.Fatal(err)
	}
	return out
}

func pick[T any](r *rand.Rand, l []T) T { return l[r.IntN(len(l))] }

var (
	names  = []string{"a", "b", "c", "d", "e", "f"}
	images = []string{"nginx:1.27", "nginx:1.28", "busybox:1.36", "envoy:1"}
)

func randomContainer(r *rand.Rand, name string) obj {
	c := obj{"name": name, "image": pick(r, images)}
	if r.IntN(2) == 0 {
		c["env"] = randomNamedList(r, func(n string) obj { return obj{"name": "E" + n, "value": pick(r, names)} })
	}
	if r.IntN(2) == 0 {
		var ports []any
		for _, p := range []int{80, 443, 8080, 9090} {
			if r.IntN(2) == 0 {
				ports = append(ports, obj{"containerPort": p})
			}
		}
		if ports != nil {
			c["ports"] = ports
		}
	}
	if r.IntN(3) == 0 {
		c["args"] = []any{pick(r, names), pick(r, names)}
	}
	if r.IntN(3) == 0 {
		c["volumeMounts"] = []any{obj{"name": "v" + pick(r, names), "mountPath": "/m/" + pick(r, names)}}
	}
	if r.IntN(3) == 0 {
		c["resources"] = obj{"limits": obj{"cpu": pick(r, []string{"1", "500m"}), "memory": "64Mi"}}
	}
	return c
}

// randomNamedList returns elements for a random subset of names, in a
// random order.
func randomNamedList(r *rand.Rand, mk func(string) obj) []any {
	var l []any
	for _, i := range r.Perm(len(names))[:1+r.IntN(4)] {
		l = append(l, mk(names[i]))
	}
	return l
}

func randomDeployment(r *rand.Rand) obj {
	spec := obj{
		"containers": randomNamedList(r, func(n string) obj { return randomContainer(r, n) }),
	}
	if r.IntN(2) == 0 {
		spec["volumes"] = randomNamedList(r, func(n string) obj { return randomVolume(r, n) })
	}
	if r.IntN(3) == 0 {
		spec["tolerations"] = []any{obj{"key": pick(r, names), "operator": "Exists"}}
	}
	d := obj{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": obj{"name": "web", "namespace": "default", "labels": obj{"app": "web"}},
		"spec": obj{
			"selector": obj{"matchLabels": obj{"app": "web"}},
			"template": obj{"metadata": obj{"labels": obj{"app": "web"}}, "spec": spec},
		},
	}
	if r.IntN(2) == 0 {
		d["spec"].(obj)["replicas"] = 1 + r.IntN(3)
	}
	if r.IntN(3) == 0 {
		d["metadata"].(obj)["finalizers"] = []any{"example.com/" + pick(r, names)}
	}
	return d
}

func randomVolume(r *rand.Rand, n string) obj {
	v := obj{"name": "v" + n}
	switch r.IntN(3) {
	case 0:
		v["emptyDir"] = obj{}
	case 1:
		v["configMap"] = obj{"name": pick(r, names)}
	default:
		v["secret"] = obj{"secretName": pick(r, names)}
	}
	return v
}

// mutate makes one random edit of a Deployment.
func mutate(r *rand.Rand, d obj) {
	meta := d["metadata"].(obj)
	spec := d["spec"].(obj)
	pod := spec["template"].(obj)["spec"].(obj)
	containers := pod["containers"].([]any)
	c := pick(r, containers).(obj)
	switch r.IntN(14) {
	case 0:
		c["image"] = pick(r, images)
	case 1: // add a container
		n := pick(r, names)
		for _, e := range containers {
			if e.(obj)["name"] == n {
				return
			}
		}
		at := r.IntN(len(containers) + 1)
		containers = append(containers[:at], append([]any{randomContainer(r, n)}, containers[at:]...)...)
		pod["containers"] = containers
	case 2: // remove a container
		if len(containers) > 1 {
			i := r.IntN(len(containers))
			pod["containers"] = append(containers[:i:i], containers[i+1:]...)
		}
	case 3:
		r.Shuffle(len(containers), func(i, j int) { containers[i], containers[j] = containers[j], containers[i] })
	case 4:
		c["env"] = editNamed(r, c["env"], "name", func(n string) obj { return obj{"name": "E" + n, "value": pick(r, names)} })
	case 5:
		if env, ok := c["env"].([]any); ok && len(env) > 0 {
			pick(r, env).(obj)["value"] = pick(r, names)
		}
	case 6:
		if r.IntN(2) == 0 {
			delete(c, "ports")
		} else {
			c["ports"] = []any{obj{"containerPort": pick(r, []int{80, 443, 8080})}}
		}
	case 7:
		labels := meta["labels"].(obj)
		if k := "l" + pick(r, names); labels[k] != nil {
			delete(labels, k)
		} else {
			labels[k] = pick(r, names)
		}
	case 8:
		f, _ := meta["finalizers"].([]any)
		x := "example.com/" + pick(r, names)
		if i := indexOfString(f, x); i >= 0 {
			f = append(f[:i:i], f[i+1:]...)
		} else {
			f = append(f, x)
		}
		if len(f) == 0 {
			delete(meta, "finalizers")
		} else {
			meta["finalizers"] = f
		}
	case 9:
		pod["volumes"] = editNamed(r, pod["volumes"], "name", func(n string) obj { return randomVolume(r, n) })
	case 10:
		if vols, ok := pod["volumes"].([]any); ok && len(vols) > 0 {
			i := r.IntN(len(vols))
			vols[i] = randomVolume(r, vols[i].(obj)["name"].(string)[1:])
		}
	case 11:
		if _, ok := spec["replicas"]; ok && r.IntN(2) == 0 {
			delete(spec, "replicas")
		} else {
			spec["replicas"] = 1 + r.IntN(5)
		}
	case 12:
		pod["tolerations"] = []any{obj{"key": pick(r, names), "operator": "Exists"}}
	case 13:
		if r.IntN(2) == 0 {
			spec["strategy"] = obj{"type": "Recreate"}
		} else {
			spec["strategy"] = obj{"type": "RollingUpdate", "rollingUpdate": obj{"maxSurge": 1}}
		}
	}
}

// editNamed adds, removes or moves one element of a list merged by key.
func editNamed(r *rand.Rand, l any, key string, mk func(string) obj) any {
	list, _ := l.([]any)
	n := pick(r, names)
	i := -1
	for j, e := range list {
		if e.(obj)[key] == mk(n)[key] {
			i = j
		}
	}
	switch {
	case i >= 0 && r.IntN(2) == 0:
		list = append(list[:i:i], list[i+1:]...)
	case i >= 0:
		e := list[i]
		list = append(list[:i:i], list[i+1:]...)
		at := r.IntN(len(list) + 1)
		list = append(list[:at:at], append([]any{e}, list[at:]...)...)
	default:
		at := r.IntN(len(list) + 1)
		list = append(list[:at:at], append([]any{mk(n)}, list[at:]...)...)
	}
	if len(list) == 0 {
		return nil
	}
	return list
}

func indexOfString(l []any, s string) int {
	for i, e := range l {
		if e == s {
			return i
		}
	}
	return -1
}

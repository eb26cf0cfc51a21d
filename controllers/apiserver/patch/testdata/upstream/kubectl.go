package main

// This file computes kubectl apply's patches; see main.go.

import (
	"encoding/json"
	"log"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"sigs.k8s.io/yaml"
)

const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// scenario is one `kubectl apply` of manifest over an object created by
// applying before, which the cluster then changed with the strategic merge
// patch server (a controller, a webhook, an HPA); or, when patch is set,
// one `kubectl patch --type=strategic` of before.
type scenario struct {
	description string
	kind        string
	before      string
	server      string
	manifest    string
	patch       string
}

type applied struct {
	Description string          `json:"description"`
	Kind        string          `json:"kind"`
	Live        json.RawMessage `json:"live"`
	Patch       json.RawMessage `json:"patch"`
	Want        json.RawMessage `json:"want,omitempty"`
	WantError   string          `json:"wantError,omitempty"`
}

var schemas = map[string]any{
	"Deployment": &appsv1.Deployment{},
	"DaemonSet":  &appsv1.DaemonSet{},
	"Pod":        &corev1.Pod{},
	"Service":    &corev1.Service{},
	"ConfigMap":  &corev1.ConfigMap{},
}

func kubectl() []applied {
	var res []applied
	for _, sc := range scenarios {
		schema, err := strategicpatch.NewPatchMetaFromStruct(schemas[sc.kind])
		if err != nil {
			log.Fatal(err)
		}
		before := withLastApplied(toJSON(sc.before))
		live := serverFields(before)
		if sc.server != "" {
			live = must(strategicpatch.StrategicMergePatchUsingLookupPatchMeta(live, toJSON(sc.server), schema))
		}
		var patch []byte
		if sc.patch != "" {
			patch = toJSON(sc.patch)
		} else {
			original := toJSON(sc.before)
			modified := withLastApplied(toJSON(sc.manifest))
			patch = must(strategicpatch.CreateThreeWayMergePatch(original, modified, live, schema, true))
		}
		want := must(strategicpatch.StrategicMergePatchUsingLookupPatchMeta(live, patch, schema))
		res = append(res, applied{Description: sc.description, Kind: sc.kind, Live: live, Patch: patch, Want: want})
	}
	return res
}

func toJSON(y string) []byte { return must(yaml.YAMLToJSON([]byte(y))) }

func must(b []byte, err error) []byte {
	if err != nil {
		log.Fatal(err)
	}
	return b
}

// withLastApplied sets the annotation kubectl apply writes: the manifest's
// own JSON.
func withLastApplied(doc []byte) []byte {
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		log.Fatal(err)
	}
	meta := m["metadata"].(map[string]any)
	ann, _ := meta["annotations"].(map[string]any)
	if ann == nil {
		ann = map[string]any{}
	}
	ann[lastApplied] = string(doc) + "\n"
	meta["annotations"] = ann
	return must(json.Marshal(m))
}

// serverFields adds what kube-apiserver sets on create.
func serverFields(doc []byte) []byte {
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		log.Fatal(err)
	}
	meta := m["metadata"].(map[string]any)
	meta["uid"] = "6b3f6c5e-2d1a-4a1e-9c57-0d6f9e1c2b10"
	meta["resourceVersion"] = "41"
	meta["creationTimestamp"] = "2026-12-01T10:00:00Z"
	return must(json.Marshal(m))
}

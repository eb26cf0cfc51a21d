package kube_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver/protobuf"
)

// richSamples are objects with the fields whose protobuf forms are
// special (times, quantities, int-or-strings, bytes, inline messages,
// optional pointers, raw JSON, managed fields), besides the small
// samples of controllers/api/testdata/kinds.yaml.
const richSamples = `
apiVersion: v1
kind: Pod
metadata:
  name: rich
  namespace: default
  uid: 0f1c
  resourceVersion: "12"
  generation: 3
  creationTimestamp: "2026-01-02T03:04:05Z"
  deletionTimestamp: "2026-01-02T03:05:05Z"
  deletionGracePeriodSeconds: 30
  labels: {app: web, tier: ""}
  annotations: {note: "x"}
  finalizers: [a/b]
  ownerReferences:
  - {apiVersion: apps/v1, kind: ReplicaSet, name: web-1, uid: u1, controller: true, blockOwnerDeletion: true}
  managedFields:
  - manager: kubectl
    operation: Update
    apiVersion: v1
    time: "2026-01-02T03:04:05Z"
    fieldsType: FieldsV1
    fieldsV1: {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}}
spec:
  terminationGracePeriodSeconds: 0
  activeDeadlineSeconds: 600
  hostNetwork: false
  priority: -5
  nodeSelector: {disk: ssd}
  tolerations:
  - {key: k, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
  volumes:
  - name: cache
    emptyDir: {medium: Memory, sizeLimit: 64Mi}
  - name: cfg
    configMap: {name: cfg, defaultMode: 420, items: [{key: a, path: b}]}
  securityContext: {runAsUser: 1000, supplementalGroups: [1, 2, 3], fsGroup: 2000}
  containers:
  - name: c
    image: nginx
    args: ["--port", "8080"]
    ports: [{containerPort: 8080, protocol: TCP, name: http}]
    env: [{name: A, value: "1"}, {name: B, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
    resources:
      requests: {cpu: 100m, memory: 128Mi}
      limits: {cpu: "1", memory: 1Gi, "nvidia.com/gpu": "2"}
    livenessProbe:
      httpGet: {path: /healthz, port: http}
      initialDelaySeconds: 3
    readinessProbe:
      tcpSocket: {port: 8080}
status:
  phase: Running
  startTime: "2026-01-02T03:04:06Z"
  conditions:
  - {type: Ready, status: "True", lastTransitionTime: "2026-01-02T03:04:07Z"}
  containerStatuses:
  - name: c
    ready: true
    restartCount: 2
    image: nginx
    imageID: ""
    state: {running: {startedAt: "2026-01-02T03:04:06Z"}}
---
apiVersion: v1
kind: Secret
metadata: {name: rich, namespace: default}
type: kubernetes.io/tls
immutable: true
data: {tls.crt: aGVsbG8=, tls.key: "", bin: AAEC/w==}
---
apiVersion: v1
kind: Service
metadata: {name: rich, namespace: default}
spec:
  type: NodePort
  selector: {app: web}
  clusterIP: 10.0.0.10
  clusterIPs: [10.0.0.10]
  ipFamilies: [IPv4]
  sessionAffinity: None
  ports:
  - {name: http, port: 80, targetPort: http, nodePort: 30080, protocol: TCP}
  - {name: https, port: 443, targetPort: 8443}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: rich, namespace: default}
spec:
  replicas: 2
  revisionHistoryLimit: 10
  progressDeadlineSeconds: 600
  selector: {matchLabels: {app: web}, matchExpressions: [{key: tier, operator: In, values: [a, b]}]}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 25%, maxUnavailable: 0}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
status:
  observedGeneration: 1
  replicas: 2
  readyReplicas: 2
  conditions: [{type: Available, status: "True", lastUpdateTime: "2026-01-02T03:04:05Z", lastTransitionTime: "2026-01-02T03:04:05Z", reason: MinimumReplicasAvailable}]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: rich, namespace: default}
spec:
  schedule: "*/5 * * * *"
  timeZone: Etc/UTC
  suspend: false
  startingDeadlineSeconds: 100
  jobTemplate:
    spec:
      backoffLimit: 2
      completions: 3
      template:
        spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}
status:
  lastScheduleTime: "2026-01-02T03:00:00Z"
---
apiVersion: apps/v1
kind: ControllerRevision
metadata: {name: rich, namespace: default}
revision: 7
data: {spec: {template: {spec: {containers: [{name: c, image: busybox}]}}}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: rich, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}
  - type: Pods
    pods: {metric: {name: qps}, target: {type: AverageValue, averageValue: 1k}}
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: rich, namespace: default}
spec: {holderIdentity: me, leaseDurationSeconds: 15, acquireTime: "2026-01-02T03:04:05.123456Z", renewTime: "2026-01-02T03:04:06.000001Z"}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: rich, namespace: default}
spec: {hard: {pods: "10", requests.cpu: "4", limits.memory: 8Gi}}
status: {hard: {pods: "10"}, used: {pods: "3"}}
---
apiVersion: v1
kind: Status
status: Failure
message: 'pods "x" not found'
reason: NotFound
code: 404
details: {name: x, kind: pods, causes: [{reason: FieldValueInvalid, field: spec}]}
---
apiVersion: v1
kind: DeleteOptions
gracePeriodSeconds: 0
propagationPolicy: Foreground
preconditions: {uid: u1, resourceVersion: "5"}
dryRun: [All]
---
apiVersion: autoscaling/v1
kind: Scale
metadata: {name: web, namespace: default}
spec: {replicas: 3}
status: {replicas: 2, selector: app=web}
---
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata:
  name: web
  namespace: default
  annotations: {autoscaling.alpha.kubernetes.io/conditions: '[{"type":"AbleToScale","status":"True"}]'}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 5
  targetCPUUtilizationPercentage: 80
status: {observedGeneration: 3, lastScaleTime: "2026-01-02T03:04:05Z", currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 95}
---
apiVersion: policy/v1
kind: Eviction
metadata: {name: p, namespace: default}
deleteOptions: {gracePeriodSeconds: 5}
`

// protobufSamples returns every object of kinds.yaml with a protobuf
// form, as ctrlkit's API server encodes it in JSON, then richSamples.
func protobufSamples(t *testing.T) [][]byte {
	t.Helper()
	objs, err := api.DecodeFile("../controllers/api/testdata/kinds.yaml", api.DecodeOptions{})
	require.NoError(t, err)
	var out [][]byte
	for _, obj := range objs {
		gvk := obj.GroupVersionKind()
		if !protobuf.Has(gvk.APIVersion(), gvk.Kind) {
			require.Equal(t, "CustomResourceDefinition", gvk.Kind, "every built-in sample but the CRD has a protobuf form")
			continue
		}
		j, err := json.Marshal(obj)
		require.NoError(t, err)
		out = append(out, j)
	}
	for _, doc := range strings.Split(richSamples, "\n---\n") {
		j, err := yaml.YAMLToJSON([]byte(doc))
		require.NoError(t, err)
		out = append(out, j)
	}
	return out
}

// k8sObject decodes j, a JSON object, into client-go's Go type of its kind.
func k8sObject(t *testing.T, j []byte) (runtime.Object, schema.GroupVersionKind) {
	t.Helper()
	var tm struct{ APIVersion, Kind string }
	require.NoError(t, json.Unmarshal(j, &tm))
	gvk := schema.FromAPIVersionAndKind(tm.APIVersion, tm.Kind)
	obj, err := scheme.Scheme.New(gvk)
	require.NoError(t, err, "%s", gvk)
	require.NoError(t, json.Unmarshal(j, obj))
	return obj, gvk
}

type protoMessage interface {
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
}

// TestProtobufMatchesKubernetes is the differential test of the codec:
// for every sample object, ctrlkit's protobuf encoding of its JSON,
// unmarshalled by k8s.io/api's generated code, is the object client-go
// decodes from the JSON; and k8s.io/api's protobuf encoding, decoded by
// ctrlkit's codec, is JSON that decodes to the same object.
func TestProtobufMatchesKubernetes(t *testing.T) {
	for _, j := range protobufSamples(t) {
		want, gvk := k8sObject(t, j)
		t.Run(gvk.Kind, func(t *testing.T) {
			// ctrlkit → Kubernetes.
			doc, err := protobuf.Marshal(j)
			require.NoError(t, err)
			av, kind, raw, err := protobuf.Unwrap(doc)
			require.NoError(t, err)
			require.Equal(t, gvk.GroupVersion().String(), av)
			require.Equal(t, gvk.Kind, kind)
			got, err := scheme.Scheme.New(gvk)
			require.NoError(t, err)
			require.NoError(t, got.(protoMessage).Unmarshal(raw))
			got.GetObjectKind().SetGroupVersionKind(gvk)
			requireSemanticEqual(t, want, got, "ctrlkit's protobuf, unmarshalled by k8s.io/api")

			// Kubernetes → ctrlkit.
			kraw, err := want.(protoMessage).Marshal()
			require.NoError(t, err)
			v, err := protobuf.ToJSON(protobuf.MessageFor(av, kind), kraw)
			require.NoError(t, err)
			back, err := json.Marshal(v)
			require.NoError(t, err)
			got2, err := scheme.Scheme.New(gvk)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(back, got2))
			got2.GetObjectKind().SetGroupVersionKind(gvk)
			requireSemanticEqual(t, want, got2, "k8s.io/api's protobuf, decoded by ctrlkit")
		})
	}
}

func requireSemanticEqual(t *testing.T, want, got runtime.Object, what string) {
	t.Helper()
	if !equality.Semantic.DeepEqual(want, got) {
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		t.Fatalf("%s differs:\nwant %s\ngot  %s", what, wj, gj)
	}
}

// TestProtobufMatchesKubernetesList checks a list: its items and list
// metadata.
func TestProtobufMatchesKubernetesList(t *testing.T) {
	j := []byte(`{"apiVersion":"v1","kind":"ConfigMapList","metadata":{"resourceVersion":"9","continue":"c"},
		"items":[{"metadata":{"name":"a"},"data":{"k":"v"},"binaryData":{"b":"AAE="}},{"metadata":{"name":"b"}}]}`)
	want, gvk := k8sObject(t, j)
	doc, err := protobuf.Marshal(j)
	require.NoError(t, err)
	_, _, raw, err := protobuf.Unwrap(doc)
	require.NoError(t, err)
	got, err := scheme.Scheme.New(gvk)
	require.NoError(t, err)
	require.NoError(t, got.(protoMessage).Unmarshal(raw))
	got.GetObjectKind().SetGroupVersionKind(gvk)
	requireSemanticEqual(t, want, got, "list")
}

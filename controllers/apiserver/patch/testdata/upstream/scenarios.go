package main

// This file lists the kubectl scenarios; see main.go.

import "strings"

const deployment = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
  labels: {app: web, tier: fe}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: nginx:1.27
        ports:
        - containerPort: 80
        env:
        - {name: A, value: "1"}
        - {name: B, value: "2"}
        volumeMounts:
        - {name: data, mountPath: /data}
        resources:
          limits: {cpu: 500m, memory: 128Mi}
      volumes:
      - name: data
        emptyDir: {}
`

const twoContainers = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - {name: app, image: nginx:1.27}
      - {name: log, image: busybox:1.36, args: [tail, -f, /var/log/app.log]}
`

const service = `
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: default
spec:
  selector: {app: web}
  ports:
  - {name: http, port: 80, targetPort: 8080}
  - {name: metrics, port: 9090}
`

const pod = `
apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: default
  labels: {app: p, track: canary}
  finalizers: [example.com/keep]
spec:
  containers:
  - name: app
    image: nginx:1.27
`

const configMap = `
apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
  namespace: default
data:
  a: "1"
  b: "2"
`

const daemonSet = `
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
  namespace: kube-system
spec:
  selector:
    matchLabels: {app: agent}
  updateStrategy:
    type: RollingUpdate
    rollingUpdate: {maxUnavailable: 1}
  template:
    metadata:
      labels: {app: agent}
    spec:
      tolerations:
      - {key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}
      containers:
      - {name: agent, image: agent:1}
`

var scenarios = []scenario{
	{description: "Deployment: image change", kind: "Deployment", before: deployment,
		manifest: replace(deployment, "nginx:1.27", "nginx:1.28")},
	{description: "Deployment: container added", kind: "Deployment", before: deployment,
		manifest: replace(deployment, "      volumes:", "      - {name: log, image: busybox:1.36}\n      volumes:")},
	{description: "Deployment: container removed", kind: "Deployment", before: twoContainers,
		manifest: replace(twoContainers, "      - {name: log, image: busybox:1.36, args: [tail, -f, /var/log/app.log]}\n", "")},
	{description: "Deployment: first container removed", kind: "Deployment", before: twoContainers,
		manifest: replace(twoContainers, "      - {name: app, image: nginx:1.27}\n", "")},
	{description: "Deployment: container replaced by another", kind: "Deployment", before: twoContainers,
		manifest: replace(twoContainers, "{name: app, image: nginx:1.27}", "{name: web, image: httpd:2.4}")},
	{description: "Deployment: containers swapped", kind: "Deployment", before: twoContainers,
		manifest: replace(replace(replace(twoContainers, "{name: app, image: nginx:1.27}", "SWAP"),
			"{name: log, image: busybox:1.36, args: [tail, -f, /var/log/app.log]}", "{name: app, image: nginx:1.27}"),
			"SWAP", "{name: log, image: busybox:1.36, args: [tail, -f, /var/log/app.log]}")},
	{description: "Deployment: env var removed", kind: "Deployment", before: deployment,
		manifest: replace(deployment, "        - {name: B, value: \"2\"}\n", "")},
	{description: "Deployment: env var inserted in the middle", kind: "Deployment", before: deployment,
		manifest: replace(deployment, "        - {name: B, value: \"2\"}\n", "        - {name: X, value: x}\n        - {name: B, value: \"2\"}\n")},
	{description: "Deployment: label removed", kind: "Deployment", before: deployment,
		manifest: replace(deployment, "labels: {app: web, tier: fe}", "labels: {app: web}")},
	{description: "Deployment: label and annotation added", kind: "Deployment", before: deployment,
		manifest: replace(deployment, "labels: {app: web, tier: fe}", "labels: {app: web, tier: fe, team: a}\n  annotations: {owner: me}")},
	{description: "Deployment: port added, env var and volume mount removed", kind: "Deployment", before: deployment,
		manifest: replace(replace(replace(deployment, "        - containerPort: 80\n", "        - containerPort: 80\n        - {containerPort: 443, name: https}\n"),
			"        - {name: A, value: \"1\"}\n", ""), "        volumeMounts:\n        - {name: data, mountPath: /data}\n", "")},
	{description: "Deployment: volume source switched (retainKeys)", kind: "Deployment", before: deployment,
		manifest: replace(deployment, "        emptyDir: {}", "        configMap: {name: cfg}")},
	{description: "Deployment: strategy RollingUpdate to Recreate (retainKeys)", kind: "Deployment",
		before:   replace(deployment, "  replicas: 2\n", "  replicas: 2\n  strategy:\n    type: RollingUpdate\n    rollingUpdate: {maxSurge: 1, maxUnavailable: 0}\n"),
		manifest: replace(deployment, "  replicas: 2\n", "  replicas: 2\n  strategy:\n    type: Recreate\n")},
	{description: "Deployment: strategy set over server defaults", kind: "Deployment", before: deployment,
		server:   `{"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"}},"revisionHistoryLimit":10}}`,
		manifest: replace(deployment, "  replicas: 2\n", "  replicas: 2\n  strategy:\n    type: Recreate\n")},
	{description: "Deployment: replicas removed from the manifest", kind: "Deployment", before: deployment,
		manifest: replace(deployment, "  replicas: 2\n", "")},
	{description: "Deployment: replicas scaled by an HPA, image changed", kind: "Deployment", before: deployment,
		server:   `{"spec":{"replicas":5}}`,
		manifest: replace(deployment, "nginx:1.27", "nginx:1.28")},
	{description: "Deployment: injected sidecar and env kept over an image change", kind: "Deployment", before: deployment,
		server: `{"spec":{"template":{"spec":{"containers":[{"name":"proxy","image":"envoy:1"},{"name":"app","env":[{"name":"INJECTED","value":"y"}]}],
			"$setElementOrder/containers":[{"name":"proxy"},{"name":"app"}]}}}}`,
		manifest: replace(deployment, "nginx:1.27", "nginx:1.28")},
	{description: "Deployment: resource limit changed and request added", kind: "Deployment", before: deployment,
		manifest: replace(deployment, "limits: {cpu: 500m, memory: 128Mi}", "limits: {cpu: \"1\", memory: 128Mi}\n          requests: {cpu: 100m}")},
	{description: "Deployment: finalizer added next to the server's", kind: "Deployment", before: deployment,
		server:   `{"metadata":{"finalizers":["foregroundDeletion"]}}`,
		manifest: replace(deployment, "  labels: {app: web, tier: fe}\n", "  labels: {app: web, tier: fe}\n  finalizers: [example.com/a]\n")},
	{description: "Deployment: finalizer removed", kind: "Deployment",
		before:   replace(deployment, "  labels: {app: web, tier: fe}\n", "  labels: {app: web, tier: fe}\n  finalizers: [example.com/a, example.com/b]\n"),
		manifest: replace(deployment, "  labels: {app: web, tier: fe}\n", "  labels: {app: web, tier: fe}\n  finalizers: [example.com/b]\n")},
	{description: "Deployment: init container and image pull secret added", kind: "Deployment", before: deployment,
		manifest: replace(deployment, "      containers:\n", "      imagePullSecrets: [{name: regcred}]\n      initContainers:\n      - {name: init, image: busybox:1.36}\n      containers:\n")},
	{description: "Deployment: kubectl rollout restart", kind: "Deployment", before: deployment,
		patch: `{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-12-02T01:00:00Z"}}}}}`},
	{description: "Deployment: kubectl set image", kind: "Deployment", before: twoContainers,
		patch: `{"spec":{"template":{"spec":{"containers":[{"name":"log","image":"busybox:1.37"}]}}}}`},
	{description: "Deployment: $patch replace of the containers", kind: "Deployment", before: twoContainers,
		patch: `{"spec":{"template":{"spec":{"containers":[{"name":"only","image":"x:1"},{"$patch":"replace"}]}}}}`},
	{description: "Deployment: $patch delete of a container", kind: "Deployment", before: twoContainers,
		patch: `{"spec":{"template":{"spec":{"containers":[{"name":"app","$patch":"delete"}]}}}}`},
	{description: "Deployment: $patch delete of a map and null of a member", kind: "Deployment", before: deployment,
		patch: `{"metadata":{"labels":{"$patch":"delete"}},"spec":{"template":{"spec":{"containers":[{"name":"app","resources":null}]}}}}`},
	{description: "Service: port added and one removed, selector changed", kind: "Service", before: service,
		manifest: replace(replace(service, "  - {name: metrics, port: 9090}\n", "  - {name: https, port: 443, targetPort: 8443}\n"), "selector: {app: web}", "selector: {app: web2}")},
	{description: "Service: server-assigned clusterIP and nodePort kept", kind: "Service", before: service,
		server:   `{"spec":{"clusterIP":"10.96.0.10","type":"ClusterIP","ports":[{"port":80,"protocol":"TCP"},{"port":9090,"protocol":"TCP"}]}}`,
		manifest: replace(service, "targetPort: 8080", "targetPort: 8081")},
	{description: "Pod: label removed and image changed", kind: "Pod", before: pod,
		manifest: replace(replace(pod, "labels: {app: p, track: canary}", "labels: {app: p}"), "nginx:1.27", "nginx:1.28")},
	{description: "Pod: tolerations replaced whole (atomic list)", kind: "Pod",
		before:   replace(pod, "  containers:\n", "  tolerations:\n  - {key: a, operator: Exists}\n  containers:\n"),
		server:   `{"spec":{"tolerations":[{"key":"a","operator":"Exists"},{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}]}}`,
		manifest: replace(pod, "  containers:\n", "  tolerations:\n  - {key: b, operator: Exists}\n  containers:\n")},
	{description: "Pod: finalizers merged as a set", kind: "Pod", before: pod,
		server:   `{"metadata":{"finalizers":["example.com/server"]}}`,
		manifest: replace(pod, "finalizers: [example.com/keep]", "finalizers: [example.com/new, example.com/keep]")},
	{description: "ConfigMap: key removed, key added", kind: "ConfigMap", before: configMap,
		manifest: replace(configMap, "  b: \"2\"\n", "  c: \"3\"\n")},
	{description: "DaemonSet: toleration added, update strategy changed", kind: "DaemonSet", before: daemonSet,
		manifest: replace(replace(daemonSet, "      containers:\n", "      - {key: dedicated, operator: Equal, value: infra, effect: NoSchedule}\n      containers:\n"),
			"    type: RollingUpdate\n    rollingUpdate: {maxUnavailable: 1}\n", "    type: OnDelete\n")},
}

func replace(s, old, new string) string {
	if !contains(s, old) {
		panic("scenario: " + old + " not found")
	}
	return replaceAll(s, old, new)
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func replaceAll(s, old, new string) string { return strings.Replace(s, old, new, 1) }

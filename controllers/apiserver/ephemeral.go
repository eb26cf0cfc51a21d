package apiserver

// ephemeralContainersResource is the discovery entry of
// pods/ephemeralcontainers, as kube-apiserver lists it: `kubectl debug`
// reads the pod and patches (strategic merge) its
// spec.ephemeralContainers there. A write stores only the ephemeral
// containers (cluster.Cluster.UpdateEphemeralContainers: kube's
// validation; existing ones may not be removed or changed); GET returns
// the pod.
var ephemeralContainersResource = apiResource{Name: "pods/ephemeralcontainers", Namespaced: true, Kind: "Pod", Verbs: []string{"get", "patch", "update"}}

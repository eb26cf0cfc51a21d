package apiserver

import "net/http"

// servePortForward answers pods/{name}/portforward. Port forwarding
// (SPDY/3.1 streams, or SPDY tunnelled in WebSocket frames as kubectl
// v1.31 and later try first) is not served: after the checks
// kube-apiserver makes (the pod exists and runs on a node) the request
// is refused with a 400 Status, which kubectl prints as "error: error
// upgrading connection: …" and exits 1. `kubectl proxy` and the
// Service's node port reach a pod's simulated port instead.
func (h *typed[T]) servePortForward(req *request) {
	if m := req.r.Method; m != http.MethodGet && m != http.MethodPost {
		h.fail(req, methodNotAllowed(req))
		return
	}
	pod, _, err := h.srv.c.Pods().Get(req.r.Context(), h.key(req))
	if err != nil {
		h.fail(req, err)
		return
	}
	if pod.Spec.NodeName == "" {
		h.fail(req, badRequest("pod %s does not have a host assigned", pod.Name))
		return
	}
	h.fail(req, badRequest("unable to upgrade connection: port-forward is not supported by ctrlkit (pod %s): the simulated containers listen on no port", pod.Name))
}

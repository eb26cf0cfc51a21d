// Package serving secures a served Kubernetes API as kind and
// kube-apiserver do by default: TLS with a certificate authority and a
// serving certificate made here, a bearer token, a check of the Host
// header, and a kubeconfig that hands all of it to kubectl and
// client-go. `ctrlkit up --listen` (package controlplane/cli, and the
// etcd module's build of it) serves through it.
//
// # Usage
//
//	creds, err := serving.NewCredentials(host)            // CA, certificate, token
//	h := serving.Handler(apiHandler, serving.Options{Token: creds.Token, Hosts: []string{host}, Port: port})
//	srv := &http.Server{Handler: h, TLSConfig: creds.TLSConfig()}
//	go srv.ServeTLS(ln, "", "")
//	err = serving.WriteKubeconfig(path, serving.Kubeconfig{
//		Server: "https://" + ln.Addr().String(), CAData: creds.CAPEM, Token: creds.Token})
//
// # Credentials
//
// NewCredentials makes, with the standard library only, a self-signed CA
// (ECDSA P-256, valid CAValidity) and a serving certificate it signs
// (valid ServingValidity) for localhost, 127.0.0.1, ::1 and the hosts it
// is given; the CA's key is dropped once the certificate is signed, so
// nothing else can be signed with it. The token is TokenBytes bytes of
// crypto/rand, base64url. Nothing is written to disk but the kubeconfig:
// each start makes new credentials, and the previous kubeconfig stops
// working.
//
// # Handler
//
// Handler checks, before anything reaches the API:
//   - the Host header names the listener (localhost, a loopback address,
//     or Options.Hosts, with the listener's port or none), else 421
//     Misdirected Request: a page on attacker.example whose name was
//     rebound to 127.0.0.1 is refused even without a token;
//   - the bearer token, compared in constant time (of SHA-256 digests),
//     else 401 Unauthorized — except for PublicPaths (/healthz, /livez,
//     /readyz, /version), which kube-apiserver serves to anonymous users.
//     The token authenticates as kubernetes-admin in the groups
//     system:masters and system:authenticated (rbac.Admin), as kind's
//     kubeconfig does: the identity `kubectl auth whoami` shows. Any
//     other token is offered to Options.Authenticate (a service
//     account token the API server issued), and is 401 if it says no.
//
// Both refusals are kube Status objects, as kube-apiserver writes them
// (WriteStatus). An empty Options.Token turns authentication off (the
// command's --insecure-http-no-auth); the Host check stays.
//
// # Kubeconfig
//
// Kubeconfig.Marshal writes one cluster (server,
// certificate-authority-data), one user (token) and one context, each
// named DefaultName ("ctrlkit"), current. WriteKubeconfig replaces a file
// with it (mode 0600, directory 0700, atomically); MergeKubeconfig merges
// the three entries into an existing kubeconfig, keeping every other
// entry, as `kind` does with ~/.kube/config; UserKubeconfig names that
// file ($KUBECONFIG's first path, else ~/.kube/config). ReadKubeconfig
// and Kubeconfig.Client read one back into an http.Client that trusts
// the CA and sends the token.
package serving

// Package satoken signs and verifies service account tokens: the JWTs
// kube-apiserver issues for a service account's token subresource
// (TokenRequest, `kubectl create token`, projected volumes) and accepts
// as bearer tokens.
//
// A token is a JWS compact serialization signed with ES256 (ECDSA P-256,
// SHA-256; kube-apiserver signs with RS256 or ES256 by its key's type),
// whose header names the key (kid: the base64url SHA-256 of the public
// key's DER, as kube's) and whose claims are kube's: iss, sub
// (system:serviceaccount:NAMESPACE:NAME), aud, exp, iat, nbf, jti, and
// the private "kubernetes.io" claim naming the namespace, the service
// account (name and UID) and the object the token is bound to (a pod,
// and its node; a secret; a node).
//
// # Contract
//
//   - Issuer.Sign sets iss and signs the claims it is given; the caller
//     (controllers/apiserver's TokenREST) fills and validates them.
//   - Issuer.Verify accepts only a token of its own key and issuer, for
//     one of the audiences asked (the API audiences by default), within
//     its validity (Leeway of clock skew either way) and whose subject
//     names its service account. A string that is not such a token, of
//     another issuer or key, or tampered with, is ErrNotMine — so another
//     authenticator may be asked — and never panics; a token longer than
//     MaxTokenBytes is not decoded. An expired token of this issuer is an
//     error worded as kube-apiserver's.
//   - Verify does not look anything up: whether the service account and
//     the bound object still exist, with the same UIDs, is the API
//     server's check (apiserver.Server.AuthenticateToken).
//
// Keys live in memory: an Issuer made without Options.Key has a new key,
// and the tokens of an earlier one stop verifying — `ctrlkit up` makes
// one at each start, as it makes its serving credentials.
package satoken

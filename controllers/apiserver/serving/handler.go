package serving

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/rbac"
)

// PublicPaths are served without a token, as kube-apiserver's
// system:public-info-viewer role grants them to anonymous users: the
// health checks and the version.
var PublicPaths = []string{"/healthz", "/livez", "/readyz", "/version", "/version/"}

// Options configure Handler. The zero value authenticates nothing and
// accepts only a loopback Host header with any port.
type Options struct {
	// Token is the bearer token every request but those to Public must
	// carry (Authorization: Bearer TOKEN), compared in constant time.
	// Empty: no authentication (the opt-out for throw-away use).
	Token string
	// Public are the paths (exact) served without the token; nil means
	// PublicPaths.
	Public []string
	// Hosts are the host names and IP literals the Host header may name
	// besides localhost and the loopback addresses, which are always
	// accepted: the host the listener was asked for (--listen). An
	// unspecified address (0.0.0.0, ::) among them accepts every IP
	// literal, as such a listener is reached by any of the machine's.
	Hosts []string
	// Port, when not empty, is the listener's port: a Host header that
	// carries a port must carry this one.
	Port string
	// Authenticate, when set, is asked about a bearer token that is not
	// Token (a service account token: apiserver.Server's
	// AuthenticateToken). ok false or an error is 401 Unauthorized; else
	// the request is the user's.
	Authenticate func(r *http.Request, token string) (u rbac.User, ok bool, err error)
}

// Handler wraps next with the checks of a served API, in this order:
//
//  1. The Host header must name this listener — localhost, a loopback
//     address, or one of Options.Hosts, with no port or Options.Port —
//     else 421 Misdirected Request. A web page that rebinds its own DNS
//     name to 127.0.0.1 sends its own name, so this stops DNS rebinding
//     even where there is no token.
//  2. Unless the path is public, the request must carry
//     "Authorization: Bearer <Options.Token>" — it is then the admin's
//     (rbac.Admin: kubernetes-admin in system:masters) — or a token
//     Options.Authenticate accepts (a service account's), else 401
//     Unauthorized; the user is in the request's context
//     (rbac.WithUser).
//
// Both answers are kube Status objects (application/json), as
// kube-apiserver's.
func Handler(next http.Handler, opts Options) http.Handler {
	public := opts.Public
	if public == nil {
		public = PublicPaths
	}
	hosts := map[string]bool{"localhost": true}
	anyIP := false
	for _, h := range opts.Hosts {
		h = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"))
		if ip := net.ParseIP(h); ip != nil {
			if ip.IsUnspecified() {
				anyIP = true
			}
			h = ip.String()
		}
		if h != "" {
			hosts[h] = true
		}
	}
	want := sha256.Sum256([]byte(opts.Token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r.Host, hosts, anyIP, opts.Port) {
			WriteStatus(w, http.StatusMisdirectedRequest, "MisdirectedRequest",
				fmt.Sprintf("the Host header %q does not name this server: use localhost or the address it listens on", r.Host))
			return
		}
		if opts.Token != "" && !isPublic(r.URL.Path, public) {
			tok, ok := bearer(r.Header.Get("Authorization"))
			// Hashes of equal length: the comparison takes the same time
			// whatever the token's length or content.
			got := sha256.Sum256([]byte(tok))
			switch {
			case !ok:
				WriteStatus(w, http.StatusUnauthorized, "Unauthorized", "Unauthorized")
				return
			case subtle.ConstantTimeCompare(got[:], want[:]) == 1:
				// The token is the admin's, as kind's kubeconfig is.
				r = r.WithContext(rbac.WithUser(r.Context(), rbac.Admin()))
			default:
				var u rbac.User
				var err error
				if opts.Authenticate != nil {
					u, ok, err = opts.Authenticate(r, tok)
				} else {
					ok = false
				}
				if !ok || err != nil {
					WriteStatus(w, http.StatusUnauthorized, "Unauthorized", "Unauthorized")
					return
				}
				r = r.WithContext(rbac.WithUser(r.Context(), u))
			}
		}
		next.ServeHTTP(w, r)
	})
}

func isPublic(path string, public []string) bool {
	for _, p := range public {
		if path == p {
			return true
		}
	}
	return false
}

// bearer returns the token of an "Authorization: Bearer TOKEN" header
// (the scheme case-insensitive, as RFC 7235 has it).
func bearer(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}

func hostAllowed(host string, hosts map[string]bool, anyIP bool, port string) bool {
	name, p := host, ""
	if h, hp, err := net.SplitHostPort(host); err == nil {
		name, p = h, hp
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		name = host[1 : len(host)-1]
	}
	if p != "" && port != "" && p != port {
		return false
	}
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	if ip := net.ParseIP(name); ip != nil {
		return anyIP || ip.IsLoopback() || hosts[ip.String()]
	}
	return name != "" && hosts[name]
}

// status is a kube metav1.Status as kube-apiserver writes it.
type status struct {
	Kind       string   `json:"kind"`
	APIVersion string   `json:"apiVersion"`
	Metadata   struct{} `json:"metadata"`
	Status     string   `json:"status"`
	Message    string   `json:"message"`
	Reason     string   `json:"reason"`
	Code       int      `json:"code"`
}

// WriteStatus answers with a kube Status of status Failure.
func WriteStatus(w http.ResponseWriter, code int, reason, message string) {
	b, _ := json.Marshal(status{Kind: "Status", APIVersion: "v1", Status: "Failure", Message: message, Reason: reason, Code: code})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write(append(b, '\n'))
}

package cli

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver/satoken"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver/serving"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/controllers/kubelet"
	"github.com/ctrlkit/ctrlkit/controllers/rbac"
)

// DefaultKubeconfig is where `up --listen` writes its kubeconfig without
// --kubeconfig: ctrlkit/kubeconfig under the user's configuration
// directory (os.UserConfigDir: $XDG_CONFIG_HOME or ~/.config on Linux,
// ~/Library/Application Support on macOS). It never writes
// ~/.kube/config unless asked (--merge-kubeconfig).
func DefaultKubeconfig() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "ctrlkit", "kubeconfig"), nil
}

// served is the --listen server: stop closes it.
type served struct {
	srv  *http.Server
	url  string
	kube string // the kubeconfig written
}

// serveAPI listens on cfg.listen and serves the API and the manager's
// endpoints there: over TLS behind the token (serving.Handler), with a
// kubeconfig written for it (creds: the CA, certificate and token made
// before the control plane started), or, with --insecure-http-no-auth
// (creds nil), plain HTTP with the Host check only.
func serveAPI(cp *controlplane.ControlPlane, cfg upConfig, opts Options, creds *serving.Credentials, logger *slog.Logger, stderr io.Writer) (*served, error) {
	// Service account tokens (kubectl create token) are signed with a
	// key made at each start, as the serving credentials are.
	tokens, err := satoken.New(satoken.Options{})
	if err != nil {
		return nil, err
	}
	api, err := apiserver.New(cp.Cluster, apiserver.Options{AllowNonLoopback: cfg.listenAny, ResourceUsage: resourceUsage(cp),
		AuthorizationMode: cfg.authorizationMode, ServiceAccountTokens: tokens, PortForward: kubelet.NewPorts(), FieldManager: opts.FieldManager})
	if err != nil {
		return nil, err
	}
	ln, err := api.Listen(cfg.listen)
	if err != nil {
		return nil, err
	}
	host, _, _ := net.SplitHostPort(cfg.listen)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	urlHost := host
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		urlHost = "127.0.0.1"
	}
	// The API server's header and idle timeouts (its handler sets each
	// request's body and write deadlines).
	hs := apiserver.NewHTTPServer(nil)
	// TLS handshakes a browser or a scanner fails are not the user's
	// business unless they asked for logs.
	hs.ErrorLog = slog.NewLogLogger(logger.Handler(), slog.LevelDebug)
	s := &served{srv: hs}
	hopts := serving.Options{Hosts: []string{host}, Port: port,
		Authenticate: func(r *http.Request, tok string) (rbac.User, bool, error) {
			return api.AuthenticateToken(r.Context(), tok)
		}}
	kc := serving.Kubeconfig{}
	if cfg.insecure {
		s.url = "http://" + net.JoinHostPort(urlHost, port)
		kc.Server = s.url
	} else {
		hopts.Token = creds.Token
		hs.TLSConfig = creds.TLSConfig()
		s.url = "https://" + net.JoinHostPort(urlHost, port)
		kc = serving.Kubeconfig{Server: s.url, CAData: creds.CAPEM, Token: creds.Token}
	}
	var apiHandler http.Handler = api
	if opts.registry != nil {
		// The default build's /metrics: kube-apiserver's request series
		// and the control plane's, beside the controllers'.
		apiHandler = api.Instrument(opts.registry)
		controlPlaneMetrics(opts.registry, cp)
	}
	hs.Handler = serving.Handler(serveMux(cp, apiHandler, opts.Metrics, cfg.pprof), hopts)
	s.kube = cfg.kubeconfig
	if s.kube == "" {
		if s.kube, err = DefaultKubeconfig(); err != nil {
			ln.Close()
			return nil, fmt.Errorf("kubeconfig: %w (choose one with --kubeconfig)", err)
		}
	}
	if err := serving.WriteKubeconfig(s.kube, kc); err != nil {
		ln.Close()
		return nil, err
	}
	if cfg.mergeKubeconfig {
		user, err := serving.UserKubeconfig()
		if err == nil {
			err = serving.MergeKubeconfig(user, kc)
		}
		if err != nil {
			ln.Close()
			return nil, err
		}
		fmt.Fprintf(stderr, "merged cluster, user and context %q into %s and made it the current context\n", serving.DefaultName, user)
	}
	if cfg.insecure {
		go func() { _ = hs.Serve(ln) }()
		fmt.Fprintf(stderr, "serving the Kubernetes API and /healthz /readyz /metrics%s on %s WITHOUT TLS OR AUTHENTICATION (--insecure-http-no-auth): whoever reaches it can read and write everything\n", pprofNote(cfg), s.url)
	} else {
		go func() { _ = hs.ServeTLS(ln, "", "") }()
		fmt.Fprintf(stderr, "serving the Kubernetes API and /healthz /readyz /metrics%s on %s (TLS, bearer token)\n", pprofNote(cfg), s.url)
	}
	fmt.Fprintf(stderr, "kubeconfig: %s (kubectl --kubeconfig %s get nodes)\n", s.kube, s.kube)
	return s, nil
}

func pprofNote(cfg upConfig) string {
	if cfg.pprof {
		return " /debug/pprof/"
	}
	return ""
}

// serveMux serves the controller manager's endpoints (/healthz, /readyz
// with the leader, /metrics, and /debug/pprof/ when pprof) and the
// Kubernetes API for every other path, as kube-apiserver serves both on
// one port.
func serveMux(cp *controlplane.ControlPlane, api http.Handler, metrics http.Handler, pprof bool) http.Handler {
	m := cp.Manager.Handler(metrics)
	mux := http.NewServeMux()
	paths := []string{"/healthz", "/readyz", "/metrics"}
	if pprof {
		paths = append(paths, "/debug/pprof/")
	}
	for _, p := range paths {
		mux.Handle(p, m)
	}
	mux.Handle("/", api)
	return mux
}

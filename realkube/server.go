package realkube

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	kubeapiserver "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
)

// Options configure Start. The zero value starts kube-apiserver with
// the flags of k8s.io/kubernetes' test server, which are
// kube-apiserver's defaults (every default admission plugin, every
// generally available API) but for the serving certificates, a
// service-account signing key, the service cluster IP range 10.0.0.0/16
// and no endpoint reconciler.
type Options struct {
	// Flags are kube-apiserver command-line flags applied over the
	// test server's (for example "--disable-admission-plugins=X" or
	// "--runtime-config=api/all=false,api/v1=true").
	Flags []string
	// EtcdTimeout bounds how long Start waits for etcd to become ready;
	// default 30s. (kube-apiserver's own wait for /healthz is a minute.)
	EtcdTimeout time.Duration
}

// Server is a kube-apiserver running in this process over an embedded
// etcd of its own. It is safe for concurrent use.
type Server struct {
	cfg     *rest.Config
	startup time.Duration
	stop    func()
	once    sync.Once
}

// Start starts etcd and kube-apiserver for the test t and returns when
// the server answers /healthz and has created the namespace "default".
// Both run until Stop or the end of t (Start registers Stop with
// t.Cleanup), and leave nothing on disk. kube-apiserver keeps some state
// of its own process-wide (feature gates, logging), so tests that start
// servers must not do so in parallel.
func Start(t testing.TB, opts Options) (*Server, error) {
	t.Helper()
	if opts.EtcdTimeout <= 0 {
		opts.EtcdTimeout = 30 * time.Second
	}
	began := time.Now()
	dir, err := os.MkdirTemp("", "realkube-etcd")
	if err != nil {
		return nil, fmt.Errorf("realkube: %w", err)
	}
	etcd, err := startEtcd(filepath.Join(dir, "data"), opts.EtcdTimeout)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	stopEtcd := func() {
		etcd.stop()
		os.RemoveAll(dir)
	}
	storage := storagebackend.NewDefaultConfig("/registry", nil)
	storage.Transport.ServerList = []string{etcd.url}
	instance := &kubeapiserver.TestServerInstanceOptions{
		// The invariant checks scrape kube-apiserver's metrics at
		// teardown: a check of the server, not of its clients.
		DisableInvariantChecks: true,
	}
	ts, err := kubeapiserver.StartTestServer(t, instance, opts.Flags, storage)
	if err != nil {
		stopEtcd()
		return nil, fmt.Errorf("realkube: start kube-apiserver: %w", err)
	}
	s := &Server{cfg: rest.CopyConfig(ts.ClientConfig), startup: time.Since(began)}
	s.stop = func() {
		ts.TearDownFn()
		stopEtcd()
	}
	t.Cleanup(s.Stop)
	return s, nil
}

// Config returns a copy of the configuration of a client of the server:
// its https URL, its CA and a bearer token of a member of system:masters
// (kube-apiserver's loopback client, which every authorizer allows).
// QPS and Burst are the test server's 1000 and 10000.
func (s *Server) Config() *rest.Config { return rest.CopyConfig(s.cfg) }

// StartupTime returns how long Start took, etcd included.
func (s *Server) StartupTime() time.Duration { return s.startup }

// Stop stops kube-apiserver, then etcd, and removes their files. It
// returns when both have stopped; later calls do nothing.
func (s *Server) Stop() { s.once.Do(s.stop) }

// WriteKubeconfig writes a kubeconfig file of the server's client
// configuration (see Kubeconfig) to path, readable by its owner only.
func (s *Server) WriteKubeconfig(path string) error {
	b, err := Kubeconfig(s.cfg)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

// Kubeconfig returns a kubeconfig (YAML) with one cluster, user and
// context, all named "realkube", made current, that reaches the server
// of cfg as cfg does: its host, TLS server name and certificates
// (inline), bearer token or basic authentication. A cfg whose
// credentials live in files (BearerTokenFile, CAFile, CertFile, KeyFile)
// names those files. It fails on a cfg without Host.
func Kubeconfig(cfg *rest.Config) ([]byte, error) {
	if cfg == nil || cfg.Host == "" {
		return nil, fmt.Errorf("realkube: Kubeconfig: no host")
	}
	const name = "realkube"
	kc := clientcmdapi.NewConfig()
	kc.Clusters[name] = &clientcmdapi.Cluster{
		Server:                   cfg.Host,
		TLSServerName:            cfg.TLSClientConfig.ServerName,
		InsecureSkipTLSVerify:    cfg.TLSClientConfig.Insecure,
		CertificateAuthority:     cfg.TLSClientConfig.CAFile,
		CertificateAuthorityData: cfg.TLSClientConfig.CAData,
	}
	kc.AuthInfos[name] = &clientcmdapi.AuthInfo{
		Token:                 cfg.BearerToken,
		TokenFile:             cfg.BearerTokenFile,
		Username:              cfg.Username,
		Password:              cfg.Password,
		ClientCertificate:     cfg.TLSClientConfig.CertFile,
		ClientCertificateData: cfg.TLSClientConfig.CertData,
		ClientKey:             cfg.TLSClientConfig.KeyFile,
		ClientKeyData:         cfg.TLSClientConfig.KeyData,
	}
	kc.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	kc.CurrentContext = name
	b, err := clientcmd.Write(*kc)
	if err != nil {
		return nil, fmt.Errorf("realkube: Kubeconfig: %w", err)
	}
	return b, nil
}

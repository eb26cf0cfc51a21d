// Package testserver starts a real Kubernetes API server in-process for
// the kube tests: k8s.io/sample-apiserver (the wardle.example.com group,
// Flunders and Fischers) built from k8s.io/apiserver's generic server,
// over an embedded etcd, with the watch cache off so that every list and
// watch reaches etcd and an expired version is a real 410.
//
// It is started the way sample-apiserver starts, minus what needs a
// kube-apiserver next to it: no delegated authentication or
// authorization (the server's loopback bearer token is the only
// credential, in group system:masters, and every request is allowed), no
// admission plugins (BanFlunder and NamespaceLifecycle would need core
// informers), no priority-and-fairness, no core API kubeconfig.
package testserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/util/compatibility"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/sample-apiserver/pkg/apis/wardle/v1alpha1"
	"k8s.io/sample-apiserver/pkg/apiserver"
	sampleopenapi "k8s.io/sample-apiserver/pkg/generated/openapi"
)

// Server is a running API server and its etcd.
type Server struct {
	// Config reaches the API server as system:masters.
	Config *rest.Config
	// Etcd is a client of the server's etcd, for faults the API cannot
	// cause (compaction).
	Etcd *clientv3.Client

	addr    string // host:port of the API server
	etcdURL string
	dir     string
	etcd    *embed.Etcd
	cancel  context.CancelFunc
	done    chan error
}

// Start starts etcd and the API server and returns once the server
// serves. Close stops both.
//
// Start sends klog's output (the API server's logs) to io.Discard
// unless KUBE_TESTSERVER_LOGS is set.
func Start() (_ *Server, err error) {
	if os.Getenv("KUBE_TESTSERVER_LOGS") == "" {
		klog.LogToStderr(false)
		klog.SetOutput(io.Discard)
	}
	dir, err := os.MkdirTemp("", "kube-testserver-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if err := s.startEtcd(); err != nil {
		return nil, err
	}
	if err := s.startAPIServer(); err != nil {
		return nil, err
	}
	return s, nil
}

// etcdAttempts bounds how often startEtcd picks new ports when one it
// chose was taken before etcd bound it.
const etcdAttempts = 5

// loopbackHost returns a random address in 127.0.0.0/8 other than
// 127.0.0.1: the ephemeral ports of other processes' connections are
// bound to 127.0.0.1, so they never collide with etcd's ports there.
func loopbackHost() string {
	return fmt.Sprintf("127.%d.%d.%d", 1+rand.IntN(254), rand.IntN(256), 1+rand.IntN(254))
}

func freePorts(host string, n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func (s *Server) startEtcd() error {
	var err error
	for attempt := range etcdAttempts {
		err = s.tryEtcd(attempt)
		if err == nil || !(errors.Is(err, syscall.EADDRINUSE) || strings.Contains(err.Error(), "address already in use")) {
			return err
		}
	}
	return err
}

func (s *Server) tryEtcd(attempt int) error {
	host := loopbackHost()
	ports, err := freePorts(host, 2)
	if err != nil {
		return err
	}
	peer := url.URL{Scheme: "http", Host: net.JoinHostPort(host, strconv.Itoa(ports[0]))}
	client := url.URL{Scheme: "http", Host: net.JoinHostPort(host, strconv.Itoa(ports[1]))}
	cfg := embed.NewConfig()
	cfg.Name = "etcd"
	cfg.Dir = fmt.Sprintf("%s/etcd.%d", s.dir, attempt)
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.InitialCluster = "etcd=" + peer.String()
	cfg.TickMs, cfg.ElectionMs = 10, 100
	cfg.UnsafeNoFsync = true
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return fmt.Errorf("testserver: etcd: %w", err)
	}
	s.etcd = e
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(30 * time.Second):
		return errors.New("testserver: etcd did not become ready in 30s")
	}
	s.etcdURL = client.String()
	s.Etcd, err = clientv3.New(clientv3.Config{Endpoints: []string{s.etcdURL}, DialTimeout: 10 * time.Second, Logger: zap.NewNop()})
	return err
}

func (s *Server) startAPIServer() error {
	codec := apiserver.Codecs.LegacyCodec(v1alpha1.SchemeGroupVersion)
	etcdOpts := genericoptions.NewEtcdOptions(storagebackend.NewDefaultConfig("/registry/wardle.example.com", codec))
	etcdOpts.StorageConfig.EncodeVersioner = runtime.NewMultiGroupVersioner(v1alpha1.SchemeGroupVersion, schema.GroupKind{Group: v1alpha1.GroupName})
	etcdOpts.StorageConfig.Transport.ServerList = []string{s.etcdURL}
	etcdOpts.StorageConfig.CompactionInterval = 0 // the tests compact
	etcdOpts.EnableWatchCache = false

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	serving := genericoptions.NewSecureServingOptions().WithLoopback()
	serving.Listener = ln
	serving.BindAddress = net.ParseIP("127.0.0.1")
	serving.BindPort = ln.Addr().(*net.TCPAddr).Port
	s.addr = ln.Addr().String()
	serving.ServerCert.CertDirectory = s.dir + "/certs"
	serving.ServerCert.PairName = "apiserver"
	if err := serving.MaybeDefaultWithSelfSignedCerts("localhost", nil, []net.IP{net.ParseIP("127.0.0.1")}); err != nil {
		return fmt.Errorf("testserver: certificates: %w", err)
	}

	cfg := genericapiserver.NewRecommendedConfig(apiserver.Codecs)
	cfg.EffectiveVersion = compatibility.DefaultBuildEffectiveVersion()
	// Shutdown waits this long for open requests; watches are cancelled
	// by their tests, so this only bounds a leak.
	cfg.RequestTimeout = 10 * time.Second
	cfg.OpenAPIConfig = genericapiserver.DefaultOpenAPIConfig(sampleopenapi.GetOpenAPIDefinitions, openapi.NewDefinitionNamer(apiserver.Scheme))
	cfg.OpenAPIV3Config = genericapiserver.DefaultOpenAPIV3Config(sampleopenapi.GetOpenAPIDefinitions, openapi.NewDefinitionNamer(apiserver.Scheme))
	if err := serving.ApplyTo(&cfg.SecureServing, &cfg.LoopbackClientConfig); err != nil {
		return fmt.Errorf("testserver: serving: %w", err)
	}
	if err := etcdOpts.ApplyTo(&cfg.Config); err != nil {
		return fmt.Errorf("testserver: etcd options: %w", err)
	}
	// Only the loopback token authenticates (AuthorizeClientBearerToken
	// adds it in front of this authenticator, which knows nobody).
	cfg.Authentication.Authenticator = authenticator.RequestFunc(func(*http.Request) (*authenticator.Response, bool, error) {
		return nil, false, nil
	})
	cfg.Authorization.Authorizer = authorizerfactory.NewAlwaysAllowAuthorizer()
	genericapiserver.AuthorizeClientBearerToken(cfg.LoopbackClientConfig, &cfg.Authentication, &cfg.Authorization)

	ready := make(chan struct{})
	c := &apiserver.Config{GenericConfig: cfg}
	srv, err := c.Complete().New()
	if err != nil {
		return fmt.Errorf("testserver: %w", err)
	}
	srv.GenericAPIServer.AddPostStartHookOrDie("testserver-ready", func(genericapiserver.PostStartHookContext) error {
		close(ready)
		return nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.done = make(chan error, 1)
	go func() { s.done <- srv.GenericAPIServer.PrepareRun().RunWithContext(ctx) }()
	select {
	case <-ready:
	case err := <-s.done:
		s.done <- err
		return fmt.Errorf("testserver: API server stopped: %w", err)
	case <-time.After(60 * time.Second):
		return errors.New("testserver: API server did not start in 60s")
	}
	s.Config = rest.CopyConfig(cfg.LoopbackClientConfig)
	s.Config.QPS, s.Config.Burst = -1, 0
	// v1alpha1 Flunders are "deprecated"; the tests need not hear it.
	s.Config.WarningHandler = rest.NoWarnings{}
	return nil
}

// Close stops the API server and etcd and removes their files.
func (s *Server) Close() {
	if s.cancel != nil {
		s.cancel()
		<-s.done
	}
	if s.Etcd != nil {
		s.Etcd.Close()
	}
	if s.etcd != nil {
		s.etcd.Close()
	}
	os.RemoveAll(s.dir)
}

// Compact compacts etcd at its current revision, as the API server's
// compactor does every five minutes (turned off here), and returns that
// revision.
func (s *Server) Compact(ctx context.Context) (int64, error) {
	rev, err := s.Revision(ctx)
	if err != nil {
		return 0, err
	}
	if _, err := s.Etcd.Compact(ctx, rev, clientv3.WithCompactPhysical()); err != nil {
		return 0, err
	}
	return rev, nil
}

// Revision returns etcd's current revision: the newest resourceVersion.
func (s *Server) Revision(ctx context.Context) (int64, error) {
	resp, err := s.Etcd.Get(ctx, "revision-probe")
	if err != nil {
		return 0, err
	}
	return resp.Header.Revision, nil
}

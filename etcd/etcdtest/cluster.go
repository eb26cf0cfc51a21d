package etcdtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
)

// MaxTxnOps is the number of operations a transaction may hold on the
// members of a Cluster (etcd's default is 128), so that tests can load
// many objects quickly.
const MaxTxnOps = 1024

// Options configures a Cluster. The zero value starts one member.
type Options struct {
	// Members is the number of members. Default 1.
	Members int
	// Dir is the directory the members keep their data in (one
	// subdirectory each). Required by Start; New uses tb.TempDir().
	Dir string
	// TickMs is the raft heartbeat interval in milliseconds. Default 50
	// (etcd's is 100): elections settle fast, and the minimum lease TTL
	// (1.5 election timeouts, rounded up to a second) is 1s.
	TickMs uint
	// ElectionMs is the raft election timeout in milliseconds. Default 10
	// ticks.
	ElectionMs uint
	// StartTimeout bounds how long Start waits for the cluster to be
	// ready. Default 30s.
	StartTimeout time.Duration
	// Logger receives etcd's logs. Default zap.NewNop().
	Logger *zap.Logger
}

func (o *Options) defaults() error {
	if o.Members < 0 {
		return fmt.Errorf("etcdtest: Options.Members is negative (%d)", o.Members)
	}
	if o.Members == 0 {
		o.Members = 1
	}
	if o.Dir == "" {
		return errors.New("etcdtest: Options.Dir is empty")
	}
	if o.TickMs == 0 {
		o.TickMs = 50
	}
	if o.ElectionMs == 0 {
		o.ElectionMs = 10 * o.TickMs
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 30 * time.Second
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	return nil
}

// Cluster is a set of embedded etcd members running in this process,
// listening on loopback ports.
type Cluster struct {
	opts    Options
	members []*Member
}

// Member is one etcd server of a Cluster. It can be stopped and started
// again on the same ports and data.
type Member struct {
	name    string
	cfg     *embed.Config
	timeout time.Duration
	// proxy fronts the member's client port, so that Stop can cut the
	// clients off at once (as a crash would) instead of waiting for etcd's
	// graceful shutdown to give up on open watch streams.
	proxy *Proxy

	mu sync.Mutex
	// etcd is the running server, nil while stopped. Guarded by mu.
	etcd *embed.Etcd
}

// New starts a cluster with its data under tb.TempDir() and stops it when
// the test ends. It fails the test if the cluster does not start.
func New(tb testing.TB, opts Options) *Cluster {
	tb.Helper()
	if opts.Dir == "" {
		opts.Dir = tb.TempDir()
	}
	c, err := Start(opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Close)
	return c
}

// startAttempts bounds how often Start picks new ports when one it chose
// was taken before etcd bound it.
const startAttempts = 5

// Start starts a cluster and waits until every member is ready.
//
// The members listen on a loopback address of their own (a random one in
// 127.0.0.0/8, not 127.0.0.1), so the ephemeral ports of other processes'
// connections, which are bound to 127.0.0.1, never collide with them; if
// a port is taken anyway between choosing and binding it, Start tries
// again on new ports.
func Start(opts Options) (*Cluster, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	var err error
	for attempt := range startAttempts {
		var c *Cluster
		c, err = start(opts, attempt)
		if err == nil {
			return c, nil
		}
		if !addrInUse(err) {
			return nil, err
		}
	}
	return nil, err
}

// addrInUse reports whether err is a bind that found its port taken
// (embed does not always wrap the syscall error, hence the text).
func addrInUse(err error) bool {
	return errors.Is(err, syscall.EADDRINUSE) || strings.Contains(err.Error(), "address already in use")
}

func start(opts Options, attempt int) (*Cluster, error) {
	c := &Cluster{opts: opts}
	host := loopbackHost()
	ports, err := freePorts(host, 2*opts.Members)
	if err != nil {
		return nil, err
	}
	var initial []string
	for i := range opts.Members {
		name := fmt.Sprintf("m%d", i)
		peer := url.URL{Scheme: "http", Host: net.JoinHostPort(host, strconv.Itoa(ports[2*i]))}
		client := url.URL{Scheme: "http", Host: net.JoinHostPort(host, strconv.Itoa(ports[2*i+1]))}
		cfg := embed.NewConfig()
		cfg.Name = name
		// A failed attempt may leave data behind; each starts afresh.
		cfg.Dir = fmt.Sprintf("%s/%s", opts.Dir, name)
		if attempt > 0 {
			cfg.Dir = fmt.Sprintf("%s/%s.%d", opts.Dir, name, attempt)
		}
		cfg.ListenPeerUrls = []url.URL{peer}
		cfg.AdvertisePeerUrls = []url.URL{peer}
		cfg.ListenClientUrls = []url.URL{client}
		cfg.AdvertiseClientUrls = []url.URL{client}
		cfg.TickMs = opts.TickMs
		cfg.ElectionMs = opts.ElectionMs
		cfg.UnsafeNoFsync = true
		cfg.MaxTxnOps = MaxTxnOps
		cfg.InitialClusterToken = "ctrlkit-etcdtest"
		cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(opts.Logger)
		initial = append(initial, fmt.Sprintf("%s=%s", name, peer.String()))
		proxy, err := NewProxy(client.String())
		if err != nil {
			c.Close()
			return nil, err
		}
		c.members = append(c.members, &Member{name: name, cfg: cfg, timeout: opts.StartTimeout, proxy: proxy})
	}
	for _, m := range c.members {
		m.cfg.InitialCluster = strings.Join(initial, ",")
		e, err := embed.StartEtcd(m.cfg)
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("etcdtest: start %s: %w", m.name, err)
		}
		m.etcd = e
	}
	for _, m := range c.members {
		if err := m.waitReady(); err != nil {
			c.Close()
			return nil, err
		}
		// A restart reuses the data directory.
		m.cfg.ClusterState = embed.ClusterStateFlagExisting
	}

	return c, nil
}

// loopbackHost returns a random address in 127.0.0.0/8 other than
// 127.0.0.1 (Linux routes the whole block to the loopback interface).
func loopbackHost() string {
	return fmt.Sprintf("127.%d.%d.%d", 1+rand.IntN(254), rand.IntN(256), 1+rand.IntN(254))
}

// freePorts reserves n ports on host by listening on port 0 and closing
// the listeners; Start retries if one is taken before etcd binds it.
func freePorts(host string, n int) ([]int, error) {
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	var ports []int
	for range n {
		ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return nil, fmt.Errorf("etcdtest: reserve a port on %s: %w", host, err)
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// Members returns the members in the order they were created.
func (c *Cluster) Members() []*Member { return c.members }

// Endpoints returns the client URLs of all members.
func (c *Cluster) Endpoints() []string {
	eps := make([]string, 0, len(c.members))
	for _, m := range c.members {
		eps = append(eps, m.ClientURL())
	}
	return eps
}

// Leader returns the member that is the raft leader, if a running member
// knows itself to be it.
func (c *Cluster) Leader() (*Member, bool) {
	for _, m := range c.members {
		if m.IsLeader() {
			return m, true
		}
	}
	return nil, false
}

// ClientConfig returns a client configuration for endpoints (all members
// when none are given) that reconnects quickly and logs nothing.
func ClientConfig(endpoints ...string) clientv3.Config {
	return clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
		DialOptions: []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 50 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
			MinConnectTimeout: time.Second,
		})},
	}
}

// Client returns a client of endpoints (all members when none are given)
// configured by ClientConfig. The caller closes it.
func (c *Cluster) Client(endpoints ...string) (*clientv3.Client, error) {
	if len(endpoints) == 0 {
		endpoints = c.Endpoints()
	}
	cli, err := clientv3.New(ClientConfig(endpoints...))
	if err != nil {
		return nil, fmt.Errorf("etcdtest: client: %w", err)
	}
	return cli, nil
}

// Close stops every member and its proxy. It is safe to call more than
// once. The followers stop first: a leader that stops while its followers
// stop too waits seconds for a leadership transfer that cannot happen.
func (c *Cluster) Close() {
	var wg sync.WaitGroup
	for _, m := range c.members {
		if !m.IsLeader() {
			wg.Go(m.Stop)
		}
	}
	wg.Wait()
	for _, m := range c.members {
		wg.Go(func() {
			m.Stop()
			m.proxy.Close()
		})
	}
	wg.Wait()
}

// Name returns the member's name (m0, m1, ...).
func (m *Member) Name() string { return m.name }

// ClientURL returns the URL clients use to reach the member
// (http://127.0.0.1:port, a proxy in front of the member). It stays the same across restarts.
func (m *Member) ClientURL() string { return m.proxy.URL() }

// Running reports whether the member is started.
func (m *Member) Running() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.etcd != nil
}

// IsLeader reports whether the member is running and the raft leader.
func (m *Member) IsLeader() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.etcd != nil && m.etcd.Server.Leader() == m.etcd.Server.MemberID()
}

// Stop stops the member and waits until it has stopped: its clients'
// connections are cut at once, as if it had crashed, then the server
// shuts down (handing raft leadership over if it leads). Stopping a
// stopped member does nothing.
func (m *Member) Stop() {
	m.mu.Lock()
	e := m.etcd
	m.etcd = nil
	m.mu.Unlock()
	if e != nil {
		m.proxy.Cut()
		e.Close()
	}
}

// Restart starts a stopped member again on its ports and data, and waits
// until it is ready (which needs a quorum of the cluster).
func (m *Member) Restart() error {
	m.mu.Lock()
	if m.etcd != nil {
		m.mu.Unlock()
		return fmt.Errorf("etcdtest: restart %s: it is running", m.name)
	}
	e, err := embed.StartEtcd(m.cfg)
	if err != nil {
		m.mu.Unlock()
		return fmt.Errorf("etcdtest: restart %s: %w", m.name, err)
	}
	m.etcd = e
	m.mu.Unlock()
	if err := m.waitReady(); err != nil {
		return err
	}
	m.proxy.Restore()
	return nil
}

func (m *Member) waitReady() error {
	m.mu.Lock()
	e := m.etcd
	m.mu.Unlock()
	t := time.NewTimer(m.timeout)
	defer t.Stop()
	select {
	case <-e.Server.ReadyNotify():
		return nil
	case err := <-e.Err():
		return fmt.Errorf("etcdtest: %s failed: %w", m.name, err)
	case <-t.C:
		return fmt.Errorf("etcdtest: %s not ready after %v", m.name, m.timeout)
	}
}

// Compact compacts the cluster's history up to rev through cli and waits
// until the compaction is applied, so that older revisions fail with
// etcd's "compacted" error from then on.
func Compact(ctx context.Context, cli *clientv3.Client, rev int64) error {
	if _, err := cli.Compact(ctx, rev, clientv3.WithCompactPhysical()); err != nil {
		return fmt.Errorf("etcdtest: compact at %d: %w", rev, err)
	}
	return nil
}

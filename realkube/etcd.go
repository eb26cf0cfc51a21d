package realkube

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// etcdServer is a single-member etcd serving on a loopback port the
// kernel chose.
type etcdServer struct {
	e   *embed.Etcd
	url string // the client URL, http://127.0.0.1:PORT
}

// startEtcd starts a single-member etcd with its data in dir, listening
// for clients and peers on ports the kernel picks (port 0: a lone member
// never dials its peer URL, so nothing needs the real peer port), with
// fsync off since the data is thrown away.
func startEtcd(dir string, timeout time.Duration) (*etcdServer, error) {
	loopback := url.URL{Scheme: "http", Host: "127.0.0.1:0"}
	cfg := embed.NewConfig()
	cfg.Name = "realkube"
	cfg.Dir = dir
	cfg.ListenClientUrls = []url.URL{loopback}
	cfg.AdvertiseClientUrls = []url.URL{loopback}
	cfg.ListenPeerUrls = []url.URL{loopback}
	cfg.AdvertisePeerUrls = []url.URL{loopback}
	cfg.InitialCluster = cfg.Name + "=" + loopback.String()
	cfg.InitialClusterToken = "realkube"
	cfg.UnsafeNoFsync = true
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("realkube: start etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("realkube: etcd failed: %w", err)
	case <-time.After(timeout):
		e.Close()
		return nil, fmt.Errorf("realkube: etcd not ready after %v", timeout)
	}
	if len(e.Clients) == 0 {
		e.Close()
		return nil, errors.New("realkube: etcd serves no client listener")
	}
	return &etcdServer{e: e, url: "http://" + e.Clients[0].Addr().String()}, nil
}

// stop stops etcd and waits for it.
func (s *etcdServer) stop() { s.e.Close() }

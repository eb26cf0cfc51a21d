package nodelifecycle

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ctrlkit/ctrlkit/events"
)

// The defaults, as kube-controller-manager's flags.
const (
	// DefaultMonitorPeriod is --node-monitor-period.
	DefaultMonitorPeriod = 5 * time.Second
	// DefaultMonitorGracePeriod is --node-monitor-grace-period (50 s since
	// Kubernetes 1.32, 40 s before).
	DefaultMonitorGracePeriod = 50 * time.Second
	// DefaultStartupGracePeriod is --node-startup-grace-period.
	DefaultStartupGracePeriod = 60 * time.Second
	// DefaultEvictionRate is --node-eviction-rate, nodes tainted per
	// second per zone.
	DefaultEvictionRate = 0.1
	// DefaultSecondaryEvictionRate is --secondary-node-eviction-rate.
	DefaultSecondaryEvictionRate = 0.01
	// DefaultLargeClusterThreshold is --large-cluster-size-threshold.
	DefaultLargeClusterThreshold = 50
	// DefaultUnhealthyZoneThreshold is --unhealthy-zone-threshold.
	DefaultUnhealthyZoneThreshold = 0.55
	// NodeEvictionPeriod is how often the rate-limited queues are tried
	// (kcm's scheduler.NodeEvictionPeriod).
	NodeEvictionPeriod = 100 * time.Millisecond
)

// Options configures a Controller. The zero value is kcm's defaults.
type Options struct {
	// MonitorPeriod is the time between health passes. Default
	// DefaultMonitorPeriod.
	MonitorPeriod time.Duration
	// MonitorGracePeriod is how long a node may go without a heartbeat
	// or lease renewal before it is Unknown. Default
	// DefaultMonitorGracePeriod.
	MonitorGracePeriod time.Duration
	// StartupGracePeriod is the same for a node that never posted a Ready
	// condition, counted from its creation. Default
	// DefaultStartupGracePeriod.
	StartupGracePeriod time.Duration
	// EvictionRate is how many nodes per second a zone's queue taints
	// NoExecute. Default (0) DefaultEvictionRate; negative never taints.
	EvictionRate float64
	// SecondaryEvictionRate is the rate in a partially disrupted zone of
	// more than LargeClusterThreshold nodes. Default (0)
	// DefaultSecondaryEvictionRate; negative means 0.
	SecondaryEvictionRate float64
	// LargeClusterThreshold is the zone size above which a partially
	// disrupted zone keeps tainting at SecondaryEvictionRate. Default (0)
	// DefaultLargeClusterThreshold.
	LargeClusterThreshold int
	// UnhealthyZoneThreshold is the fraction of a zone's nodes not ready
	// (with more than two of them) that makes it partially disrupted.
	// Default (0) DefaultUnhealthyZoneThreshold.
	UnhealthyZoneThreshold float64
	// Recorder receives the controller's events (RegisteredNode,
	// RemovingNode, NodeNotReady on nodes and pods). Default: none.
	Recorder events.Recorder
	// Logger receives the controller's logs. Default slog.Default().
	Logger *slog.Logger
}

func (o Options) validate() (Options, error) {
	if o.MonitorPeriod < 0 || o.MonitorGracePeriod < 0 || o.StartupGracePeriod < 0 || o.LargeClusterThreshold < 0 ||
		o.UnhealthyZoneThreshold < 0 || o.UnhealthyZoneThreshold > 1 {
		return o, fmt.Errorf("nodelifecycle: invalid options %+v", o)
	}
	if o.MonitorPeriod == 0 {
		o.MonitorPeriod = DefaultMonitorPeriod
	}
	if o.MonitorGracePeriod == 0 {
		o.MonitorGracePeriod = DefaultMonitorGracePeriod
	}
	if o.StartupGracePeriod == 0 {
		o.StartupGracePeriod = DefaultStartupGracePeriod
	}
	switch {
	case o.EvictionRate == 0:
		o.EvictionRate = DefaultEvictionRate
	case o.EvictionRate < 0:
		o.EvictionRate = -1
	}
	switch {
	case o.SecondaryEvictionRate == 0:
		o.SecondaryEvictionRate = DefaultSecondaryEvictionRate
	case o.SecondaryEvictionRate < 0:
		o.SecondaryEvictionRate = -1
	}
	if o.LargeClusterThreshold == 0 {
		o.LargeClusterThreshold = DefaultLargeClusterThreshold
	}
	if o.UnhealthyZoneThreshold == 0 {
		o.UnhealthyZoneThreshold = DefaultUnhealthyZoneThreshold
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.MonitorGracePeriod <= o.MonitorPeriod {
		return o, errors.New("nodelifecycle: MonitorGracePeriod must exceed MonitorPeriod")
	}
	return o, nil
}

func (o Options) rates() Rates {
	return Rates{Eviction: max(o.EvictionRate, 0), Secondary: max(o.SecondaryEvictionRate, 0), LargeCluster: o.LargeClusterThreshold}
}

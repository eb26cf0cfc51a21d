package realkube

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"

	utilcompatibility "k8s.io/apiserver/pkg/util/compatibility"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/compatibility"
	"k8s.io/component-base/configz"
	kcm "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	kcmoptions "k8s.io/kubernetes/cmd/kube-controller-manager/app/options"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
	scheduleroptions "k8s.io/kubernetes/cmd/kube-scheduler/app/options"
)

// componentFlags are set before the caller's flags for both components:
// no leader election (one instance) and no serving port (nothing scrapes
// it), against the server's kubeconfig.
func (s *Server) componentFlags(t testing.TB, flags []string) ([]string, error) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := s.WriteKubeconfig(path); err != nil {
		return nil, fmt.Errorf("realkube: %w", err)
	}
	return append([]string{"--kubeconfig=" + path, "--leader-elect=false", "--secure-port=0"}, flags...), nil
}

// registry is a registry of component versions and feature gates of its
// own for one component, with the process's feature gates as they are,
// as k8s.io/kubernetes' component test servers make one.
func registry() (compatibility.ComponentGlobalsRegistry, error) {
	gate := utilfeature.DefaultMutableFeatureGate.DeepCopy()
	version := utilcompatibility.DefaultKubeEffectiveVersionForTest()
	version.SetEmulationVersion(gate.EmulationVersion())
	version.SetMinCompatibilityVersion(gate.MinCompatibilityVersion())
	r := compatibility.NewComponentGlobalsRegistry()
	if err := r.Register(compatibility.DefaultKubeComponent, version, gate); err != nil {
		return nil, err
	}
	return r, nil
}

// run runs a component's main loop until the end of t, which cancels
// its context and waits for it to return. An error it returns before
// then fails t; what it returns once cancelled is its way of stopping
// (kube-scheduler's "finished without leader elect").
func run(ctx context.Context, cancel context.CancelFunc, t testing.TB, name, configzName string, main func() error) {
	done := make(chan error, 1)
	go func() {
		err := main()
		if err != nil && ctx.Err() == nil {
			t.Errorf("realkube: %s stopped: %v", name, err)
		}
		done <- err
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		configz.Delete(configzName)
	})
}

// StartControllerManager runs kube-controller-manager v1.37.2 — the code
// of its binary, k8s.io/kubernetes' cmd/kube-controller-manager, with
// every controller it runs by default — in this process against the
// server, until the end of t. flags are kube-controller-manager's
// command-line flags, applied after "--kubeconfig" (the server's
// administrator), "--leader-elect=false" and "--secure-port=0"; for
// example "--kube-api-qps=1000" or "--controllers=*,-ttl".
//
// There is no service-account signing key, so the token controller does
// not run (kube-apiserver's TokenRequest issues tokens), and no cluster
// signing key, so neither do the certificate signers. It returns when the
// controller manager has been configured; its controllers start in the
// background. One controller manager at a time per process: it keeps
// its configuration and metrics process-wide.
func (s *Server) StartControllerManager(t testing.TB, flags ...string) error {
	t.Helper()
	flags, err := s.componentFlags(t, flags)
	if err != nil {
		return err
	}
	o, err := kcmoptions.NewKubeControllerManagerOptions()
	if err != nil {
		return fmt.Errorf("realkube: kube-controller-manager: %w", err)
	}
	if o.ComponentGlobalsRegistry, err = registry(); err != nil {
		return fmt.Errorf("realkube: kube-controller-manager: %w", err)
	}
	all, disabled, aliases := kcm.KnownControllers(), kcm.ControllersDisabledByDefault(), kcm.ControllerAliases()
	named := o.Flags(all, disabled, aliases)
	fs := pflag.NewFlagSet("kube-controller-manager", pflag.ContinueOnError)
	for _, f := range named.FlagSets {
		fs.AddFlagSet(f)
	}
	if err := fs.Parse(flags); err != nil {
		return fmt.Errorf("realkube: kube-controller-manager: %w", err)
	}
	o.ParsedFlags = &named
	if err := o.ComponentGlobalsRegistry.Set(); err != nil {
		return fmt.Errorf("realkube: kube-controller-manager: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c, err := o.Config(ctx, all, disabled, aliases)
	if err != nil {
		cancel()
		return fmt.Errorf("realkube: kube-controller-manager: %w", err)
	}
	completed := c.Complete()
	run(ctx, cancel, t, "kube-controller-manager", kcm.ConfigzName, func() error { return kcm.Run(ctx, completed) })
	return nil
}

// StartScheduler runs kube-scheduler v1.37.2 — k8s.io/kubernetes'
// cmd/kube-scheduler with its default profile — in this process against
// the server, until the end of t. flags are kube-scheduler's command-line
// flags, applied after "--kubeconfig", "--leader-elect=false" and
// "--secure-port=0"; for example "--kube-api-qps=1000". It returns when
// the scheduler is set up; it schedules in the background. One scheduler
// at a time per process.
func (s *Server) StartScheduler(t testing.TB, flags ...string) error {
	t.Helper()
	flags, err := s.componentFlags(t, flags)
	if err != nil {
		return err
	}
	o := scheduleroptions.NewOptions()
	if o.ComponentGlobalsRegistry, err = registry(); err != nil {
		return fmt.Errorf("realkube: kube-scheduler: %w", err)
	}
	fs := pflag.NewFlagSet("kube-scheduler", pflag.ContinueOnError)
	for _, f := range o.Flags.FlagSets {
		fs.AddFlagSet(f)
	}
	if err := fs.Parse(flags); err != nil {
		return fmt.Errorf("realkube: kube-scheduler: %w", err)
	}
	if err := o.ComponentGlobalsRegistry.Set(); err != nil {
		return fmt.Errorf("realkube: kube-scheduler: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cc, sched, err := scheduler.Setup(ctx, o)
	if err != nil {
		cancel()
		return fmt.Errorf("realkube: kube-scheduler: %w", err)
	}
	run(ctx, cancel, t, "kube-scheduler", "componentconfig", func() error { return scheduler.Run(ctx, cc, sched) })
	return nil
}

package prometheus_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"testing/synctest"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/informer"
)

// Pod is a test object; the source stamps its resourceVersion.
type Pod struct {
	Name, Phase, RV string
}

func (p *Pod) GetResourceVersion() string   { return p.RV }
func (p *Pod) SetResourceVersion(rv string) { p.RV = rv }

func podKey(p *Pod) string { return p.Name }

// An informer over fake.Source, with its reflector, a handler that
// panics once and a handler that lags: the reflector_*,
// ctrlkit_reflector_* and ctrlkit_informer_* series after real writes.
func TestInformerMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, reg := newProvider(t)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		src, err := fake.NewSource(podKey, fake.Options[*Pod]{})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"a", "b"} {
			if _, err := src.Create(ctx, &Pod{Name: name}); err != nil {
				t.Fatal(err)
			}
		}
		inf, err := informer.New(src, podKey, informer.Options[*Pod]{
			Name:             "pods",
			Metrics:          p,
			ReflectorMetrics: p,
			Logger:           slog.New(slog.DiscardHandler),
			Transform: func(p *Pod) (*Pod, error) {
				if p.Phase == "bad" {
					return nil, errors.New("bad phase")
				}
				return p, nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		stopInf := p.ObserveInformer("pods", inf)
		panicky, err := inf.AddEventHandler(informer.HandlerFuncs[*Pod]{
			UpdateFunc: func(_, p *Pod) {
				if p.Phase == "panic" {
					panic("handler bug")
				}
			},
		}, informer.HandlerOptions{Name: "panicky"})
		if err != nil {
			t.Fatal(err)
		}
		release := make(chan struct{})
		slow, err := inf.AddEventHandler(informer.HandlerFuncs[*Pod]{
			AddFunc: func(p *Pod, initial bool) {
				if !initial {
					<-release
				}
			},
		}, informer.HandlerOptions{Name: "slow"})
		if err != nil {
			t.Fatal(err)
		}
		stopSlow := p.ObserveHandler("pods", slow)
		p.ObserveHandler("pods", panicky)

		inf1 := []string{"informer", "pods"}
		s := scrape(t, reg)
		s.expect(t, 0, "ctrlkit_informer_synced", inf1...)
		if m := s.find("reflector_last_resource_version", "name", "pods"); m != nil {
			t.Errorf("a resource version before the first list: %v", m)
		}
		s.expect(t, 0, "ctrlkit_informer_handler_panics_total", "informer", "pods", "handler", "panicky")

		done := make(chan error, 1)
		go func() { done <- inf.Run(ctx) }()
		if !informer.WaitForCacheSync(ctx, panicky.HasSynced, slow.HasSynced) {
			t.Fatal("not synced")
		}
		_, rv, _ := src.Get(ctx, "a")
		if _, err := src.Update(ctx, &Pod{Name: "a", Phase: "panic"}, rv); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"c", "d", "e"} {
			if _, err := src.Create(ctx, &Pod{Name: name}); err != nil { // c blocks slow
				t.Fatal(err)
			}
		}
		if _, err := src.Create(ctx, &Pod{Name: "x", Phase: "bad"}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()

		nm := []string{"name", "pods"}
		s = scrape(t, reg)
		s.expect(t, 1, "ctrlkit_informer_synced", inf1...)
		s.expect(t, 1, "reflector_lists_total", nm...)
		s.expect(t, 1, "reflector_watches_total", nm...)
		s.expect(t, 0, "reflector_short_watches_total", nm...)
		s.expect(t, 5, "ctrlkit_reflector_events_total", nm...) // update a, create c d e x
		s.expect(t, 1, "ctrlkit_reflector_replaces_total", nm...)
		s.expect(t, 0, "ctrlkit_reflector_backoffs_total", nm...)
		s.expect(t, 1, "ctrlkit_informer_quarantined_total", inf1...)
		s.expect(t, 0, "ctrlkit_informer_cache_errors_total", inf1...)
		s.expect(t, 1, "ctrlkit_informer_handler_panics_total", "informer", "pods", "handler", "panicky")
		s.expect(t, 0, "ctrlkit_informer_handler_panics_total", "informer", "pods", "handler", "slow")
		s.expect(t, 0, "ctrlkit_informer_handler_pending", "informer", "pods", "handler", "panicky")
		if got := s.value(t, "ctrlkit_informer_handler_pending", "informer", "pods", "handler", "slow"); got < 1 {
			t.Errorf("slow handler pending = %v while blocked, want ≥ 1", got)
		}
		s.expect(t, 7, "reflector_last_resource_version", nm...) // 2 creates, 1 update, 4 creates

		close(release)
		synctest.Wait()
		s = scrape(t, reg)
		s.expect(t, 0, "ctrlkit_informer_handler_pending", "informer", "pods", "handler", "slow")

		stopSlow()
		stopInf()
		s = scrape(t, reg)
		if m := s.find("ctrlkit_informer_handler_pending", "informer", "pods", "handler", "slow"); m != nil {
			t.Errorf("series left after stop: %v", m)
		}
		if m := s.find("ctrlkit_informer_synced", inf1...); m != nil {
			t.Errorf("series left after stop: %v", m)
		}
		s.expect(t, 0, "ctrlkit_informer_handler_pending", "informer", "pods", "handler", "panicky")

		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v", err)
		}
	})
}

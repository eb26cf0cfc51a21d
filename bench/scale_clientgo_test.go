package bench

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// The client-go side of the scale curve (scale_test.go).

type clientgoScale struct {
	inf    cache.SharedIndexInformer
	cancel context.CancelFunc
	done   chan struct{}

	mu   sync.Mutex
	fw   *watch.FakeWatcher // the current watch
	hook atomic.Pointer[func()]
	list *podPtrList
}

func (s *clientgoScale) start(in *scaleInputs, resync time.Duration, wait bool, hs ...*scaleHandler) {
	s.list = &podPtrList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: in.pods}
	lw := listWatchWithoutWatchList{&cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (k8sruntime.Object, error) {
			if f := s.hook.Load(); f != nil {
				(*f)()
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			l := s.list
			s.list = &podPtrList{ListMeta: metav1.ListMeta{ResourceVersion: "3"}, Items: in.relist}
			return l, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			fw := watch.NewFakeWithChanSize(scaleWatchBuffer, false)
			s.mu.Lock()
			s.fw = fw
			s.mu.Unlock()
			return fw, nil
		},
	}}
	inf := cache.NewSharedIndexInformer(lw, &v1.Pod{}, resync, cache.Indexers{
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
	})
	var regs []cache.ResourceEventHandlerRegistration
	for _, h := range hs {
		reg, err := inf.AddEventHandlerWithResyncPeriod(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(o any) { h.add(o.(*v1.Pod)) },
			UpdateFunc: func(old, o any) { h.update(old.(*v1.Pod), o.(*v1.Pod)) },
		}, resync)
		if err != nil {
			panic(err)
		}
		regs = append(regs, reg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.inf, s.cancel, s.done = inf, cancel, make(chan struct{})
	go func() {
		defer close(s.done)
		inf.RunWithContext(ctx)
	}()
	waitFor("sync", func() bool {
		if !inf.HasSynced() {
			return false
		}
		for _, r := range regs {
			if wait && !r.HasSynced() {
				return false
			}
		}
		return true
	})
}

func (s *clientgoScale) watch() *watch.FakeWatcher {
	var fw *watch.FakeWatcher
	waitFor("a watch", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		fw = s.fw
		return fw != nil
	})
	return fw
}

func (s *clientgoScale) modify(p *v1.Pod) { s.watch().Modify(p) }

func (s *clientgoScale) expire() {
	fw := s.watch()
	s.mu.Lock()
	s.fw = nil
	s.mu.Unlock()
	fw.Error(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired,
		Message: "too old resource version"})
}

func (s *clientgoScale) onList(f func())  { s.hook.Store(&f) }
func (s *clientgoScale) cachedCount() int { return len(s.inf.GetIndexer().ListKeys()) }

func (s *clientgoScale) cachedRV(key string) string {
	o, ok, err := s.inf.GetIndexer().GetByKey(key)
	if err != nil || !ok {
		return ""
	}
	return o.(*v1.Pod).ResourceVersion
}

func (s *clientgoScale) byNS() int {
	ps, err := s.inf.GetIndexer().ByIndex(cache.NamespaceIndex, "ns-0")
	if err != nil {
		panic(err)
	}
	return len(ps)
}

func (s *clientgoScale) stop() { s.cancel(); <-s.done }

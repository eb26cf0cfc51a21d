package reflector_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/reflector"
	"github.com/ctrlkit/ctrlkit/source"
)

// item is the object type of the tests.
type item struct {
	Name string
	V    int
}

type ev = source.Event[item]

func added(name string, rv int) ev {
	return ev{Type: source.Added, Object: item{name, rv}, ResourceVersion: strconv.Itoa(rv)}
}
func modified(name string, rv int) ev {
	return ev{Type: source.Modified, Object: item{name, rv}, ResourceVersion: strconv.Itoa(rv)}
}
func deleted(name string, rv int) ev {
	return ev{Type: source.Deleted, Object: item{name, rv}, ResourceVersion: strconv.Itoa(rv)}
}
func bookmark(rv int) ev { return ev{Type: source.Bookmark, ResourceVersion: strconv.Itoa(rv)} }
func endOfInitial(rv int) ev {
	return ev{Type: source.Bookmark, ResourceVersion: strconv.Itoa(rv), InitialEventsEnd: true}
}
func errEvent(err error) ev { return ev{Type: source.Error, Err: err} }

var (
	errBoom    = errors.New("boom")
	errExpired = fmt.Errorf("source: too old: %w", source.ErrExpired)
)

func items(names ...string) []item {
	out := make([]item, len(names))
	for i, n := range names {
		out[i] = item{Name: n}
	}
	return out
}

// listResp is one scripted answer to List.
type listResp struct {
	list  source.List[item]
	err   error
	block bool   // block until ctx ends, then return ctx.Err()
	then  func() // called before List returns
}

func listOK(rv int, names ...string) listResp {
	return listResp{list: source.List[item]{Items: items(names...), ResourceVersion: strconv.Itoa(rv)}}
}

// watchResp is one scripted answer to Watch.
type watchResp struct {
	err    error
	nilCh  bool
	events []ev
	// gap is slept (virtual time) before each event and before the end.
	gap time.Duration
	// open keeps the stream open after the events until ctx ends;
	// otherwise it is closed after them.
	open bool
	// feed, if set, is forwarded after events until it is closed.
	feed <-chan ev
}

// call records one List or Watch call.
type call struct {
	list  *source.ListOptions
	watch *source.WatchOptions
	at    time.Time
	ended time.Time // Watch: when the stream's goroutine exited
}

func (c *call) String() string {
	if c.list != nil {
		return fmt.Sprintf("list rv=%q limit=%d continue=%q", c.list.ResourceVersion, c.list.Limit, c.list.Continue)
	}
	return fmt.Sprintf("watch rv=%q bookmarks=%v initial=%v", c.watch.ResourceVersion, c.watch.AllowBookmarks, c.watch.SendInitialEvents)
}

// scriptLW is a scripted ListWatcher: each call takes the next scripted
// answer; once the script is exhausted List returns fallbackList and
// Watch a stream that stays open until its context ends.
type scriptLW struct {
	mu           sync.Mutex
	lists        []listResp
	watches      []watchResp
	calls        []*call
	fallbackList source.List[item]
}

func newLW(lists []listResp, watches []watchResp) *scriptLW {
	return &scriptLW{lists: lists, watches: watches,
		fallbackList: source.List[item]{ResourceVersion: "100"}}
}

func (s *scriptLW) List(ctx context.Context, opts source.ListOptions) (source.List[item], error) {
	s.mu.Lock()
	s.calls = append(s.calls, &call{list: &opts, at: time.Now()})
	resp := listResp{list: s.fallbackList}
	if len(s.lists) > 0 {
		resp, s.lists = s.lists[0], s.lists[1:]
	}
	s.mu.Unlock()
	if resp.then != nil {
		resp.then()
	}
	if resp.block {
		<-ctx.Done()
		return source.List[item]{}, ctx.Err()
	}
	return resp.list, resp.err
}

func (s *scriptLW) Watch(ctx context.Context, opts source.WatchOptions) (<-chan ev, error) {
	s.mu.Lock()
	c := &call{watch: &opts, at: time.Now()}
	s.calls = append(s.calls, c)
	resp := watchResp{open: true}
	if len(s.watches) > 0 {
		resp, s.watches = s.watches[0], s.watches[1:]
	}
	s.mu.Unlock()
	if resp.err != nil {
		return nil, resp.err
	}
	if resp.nilCh {
		return nil, nil
	}
	ch := make(chan ev)
	go func() {
		defer func() {
			s.mu.Lock()
			c.ended = time.Now()
			s.mu.Unlock()
			close(ch)
		}()
		wait := func() bool {
			if resp.gap == 0 {
				return ctx.Err() == nil
			}
			t := time.NewTimer(resp.gap)
			defer t.Stop()
			select {
			case <-t.C:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for _, e := range resp.events {
			if !wait() {
				return
			}
			select {
			case ch <- e:
			case <-ctx.Done():
				return
			}
		}
		for resp.feed != nil {
			select {
			case e, ok := <-resp.feed:
				if !ok {
					return
				}
				select {
				case ch <- e:
				case <-ctx.Done():
					return
				}
			case <-ctx.Done():
				return
			}
		}
		if resp.open {
			<-ctx.Done()
			return
		}
		wait()
	}()
	return ch, nil
}

// Calls returns the calls so far, as strings.
func (s *scriptLW) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.calls))
	for i, c := range s.calls {
		out[i] = c.String()
	}
	return out
}

// CallTimes returns when each call was made, relative to t0.
func (s *scriptLW) CallTimes(t0 time.Time) []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]time.Duration, len(s.calls))
	for i, c := range s.calls {
		out[i] = c.at.Sub(t0)
	}
	return out
}

// rawCalls returns copies of the recorded calls.
func (s *scriptLW) rawCalls() []call {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]call, len(s.calls))
	for i, c := range s.calls {
		out[i] = *c
	}
	return out
}

// orderedLW is a scriptLW whose resourceVersions are ordered integers.
type orderedLW struct{ *scriptLW }

func (orderedLW) CompareResourceVersions(a, b string) (int, error) {
	x, err := strconv.Atoi(a)
	if err != nil {
		return 0, fmt.Errorf("bad rv %q", a)
	}
	y, err := strconv.Atoi(b)
	if err != nil {
		return 0, fmt.Errorf("bad rv %q", b)
	}
	switch {
	case x < y:
		return -1, nil
	case x > y:
		return 1, nil
	}
	return 0, nil
}

// recStore records every store call as a string, and can fail the next
// call of a kind ("add", "update", "delete", "replace", "resync").
type recStore struct {
	mu   sync.Mutex
	ops  []string
	fail map[string]error
}

func newStore() *recStore { return &recStore{fail: map[string]error{}} }

func (s *recStore) record(kind, op string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err, ok := s.fail[kind]; ok {
		delete(s.fail, kind)
		return err
	}
	s.ops = append(s.ops, op)
	return nil
}

func (s *recStore) failNext(kind string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail[kind] = err
}

func (s *recStore) Add(o item, rv string) error { return s.record("add", "add "+o.Name+" @"+rv) }
func (s *recStore) Update(o item, rv string) error {
	return s.record("update", "update "+o.Name+" @"+rv)
}
func (s *recStore) Delete(o item, rv string) error {
	return s.record("delete", "delete "+o.Name+" @"+rv)
}
func (s *recStore) Replace(list []item, rv string) error {
	names := make([]string, len(list))
	for i, o := range list {
		names[i] = o.Name
	}
	return s.record("replace", "replace ["+strings.Join(names, " ")+"] @"+rv)
}
func (s *recStore) Resync() error      { return s.record("resync", "resync") }
func (s *recStore) Bookmark(rv string) { _ = s.record("bookmark", "bookmark @"+rv) }

// Ops returns the recorded operations.
func (s *recStore) Ops() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ops...)
}

// count returns how many recorded ops start with prefix.
func (s *recStore) count(prefix string) int {
	n := 0
	for _, op := range s.Ops() {
		if strings.HasPrefix(op, prefix) {
			n++
		}
	}
	return n
}

// plainStore hides recStore's Bookmark method.
type plainStore struct{ s *recStore }

func (p plainStore) Add(o item, rv string) error       { return p.s.Add(o, rv) }
func (p plainStore) Update(o item, rv string) error    { return p.s.Update(o, rv) }
func (p plainStore) Delete(o item, rv string) error    { return p.s.Delete(o, rv) }
func (p plainStore) Replace(l []item, rv string) error { return p.s.Replace(l, rv) }
func (p plainStore) Resync() error                     { return p.s.Resync() }

// counts is a Metrics that counts.
// counter is a metrics.Counter that counts.
type counter struct{ n atomic.Int64 }

func (c *counter) Inc()     { c.n.Add(1) }
func (c *counter) get() int { return int(c.n.Load()) }

// counts is a reflector.MetricsProvider whose counters count.
type counts struct {
	Lists, Watches, Events, Replaces, Resyncs, Expired, Backoffs, BadSource,
	StoreErrors, ShortWatches, WatchListFallbacks, TransientErrors counter
}

func (c *counts) ReflectorMetrics(string) reflector.Metrics {
	return reflector.Metrics{
		Lists: &c.Lists, Watches: &c.Watches, Events: &c.Events, Replaces: &c.Replaces,
		Resyncs: &c.Resyncs, Expired: &c.Expired, Backoffs: &c.Backoffs, BadSource: &c.BadSource,
		StoreErrors: &c.StoreErrors, ShortWatches: &c.ShortWatches, WatchListFallbacks: &c.WatchListFallbacks,
		TransientErrors: &c.TransientErrors,
	}
}

// errs collects the errors passed to WatchErrorHandler.
type errs struct {
	mu   sync.Mutex
	list []error
}

func (e *errs) handle(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, err)
}

func (e *errs) all() []error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]error(nil), e.list...)
}

// harness bundles a reflector with its recorders.
type harness struct {
	r       *reflector.Reflector[item]
	metrics *counts
	errs    *errs
	t0      time.Time
	cancel  context.CancelFunc
	done    chan error
}

var quiet = slog.New(slog.DiscardHandler)

// noJitter is a Backoff without jitter, so delays are exact.
var noJitter = reflector.Backoff{Jitter: -1}

// start creates a reflector over lw and store and runs it until the
// returned harness is stopped. Call it inside a synctest bubble.
func start(t *testing.T, lw source.ListWatcher[item], store reflector.Store[item], opts reflector.Options) *harness {
	t.Helper()
	h := &harness{metrics: &counts{}, errs: &errs{}, t0: time.Now(), done: make(chan error, 1)}
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	opts.Metrics = h.metrics
	opts.WatchErrorHandler = h.errs.handle
	r, err := reflector.New(lw, store, opts)
	require.NoError(t, err)
	h.r = r
	ctx, cancel := context.WithCancel(t.Context())
	h.cancel = cancel
	go func() { h.done <- r.Run(ctx) }()
	return h
}

// stop cancels Run and checks that it returns context.Canceled.
func (h *harness) stop(t *testing.T) {
	t.Helper()
	h.cancel()
	require.ErrorIs(t, <-h.done, context.Canceled)
}

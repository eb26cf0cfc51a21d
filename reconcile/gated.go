package reconcile

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/ctrlkit/ctrlkit/source"
)

type requestKey[R comparable] struct{}

// RequestFrom returns the request being reconciled, which the Controller
// puts in the context it passes to Reconcile.
func RequestFrom[R comparable](ctx context.Context) (R, bool) {
	req, ok := ctx.Value(requestKey[R]{}).(R)
	return req, ok
}

func withRequest[R comparable](ctx context.Context, req R) context.Context {
	return context.WithValue(ctx, requestKey[R]{}, req)
}

// GatedWriter wraps w so that every successful Create, Update and Delete
// made inside a Reconcile is recorded in g for the request being
// reconciled (RequestFrom): with the gate in Options.Consistency, the
// next reconcile of that request waits until the cache shows the write.
// keyFunc is the cache's key func. A write made outside a Reconcile (no
// request in its context), or one whose key or version the gate refuses
// (empty, malformed), is passed on and not recorded.
func GatedWriter[T any, R comparable](g *Consistency[R], w source.Writer[T], keyFunc func(T) string) (source.Writer[T], error) {
	switch {
	case g == nil:
		return nil, errors.New("reconcile: GatedWriter: gate is nil")
	case isNil(w):
		return nil, errors.New("reconcile: GatedWriter: writer is nil")
	case keyFunc == nil:
		return nil, errors.New("reconcile: GatedWriter: key func is nil")
	}
	return &gatedWriter[T, R]{g: g, w: w, key: keyFunc}, nil
}

type gatedWriter[T any, R comparable] struct {
	g   *Consistency[R]
	w   source.Writer[T]
	key func(T) string
}

func (gw *gatedWriter[T, R]) Get(ctx context.Context, key string) (T, string, error) {
	return gw.w.Get(ctx, key)
}

func (gw *gatedWriter[T, R]) Create(ctx context.Context, obj T) (string, error) {
	rv, err := gw.w.Create(ctx, obj)
	if err == nil {
		gw.record(ctx, gw.key(obj), rv, false)
	}
	return rv, err
}

func (gw *gatedWriter[T, R]) Update(ctx context.Context, obj T, ifVersion string) (string, error) {
	rv, err := gw.w.Update(ctx, obj, ifVersion)
	if err == nil {
		gw.record(ctx, gw.key(obj), rv, false)
	}
	return rv, err
}

func (gw *gatedWriter[T, R]) Delete(ctx context.Context, key, ifVersion string) (string, error) {
	rv, err := gw.w.Delete(ctx, key, ifVersion)
	if err == nil {
		gw.record(ctx, key, rv, true)
	}
	return rv, err
}

// record notes a successful write for the request in ctx. The write has
// happened either way, so a record the gate refuses is not the caller's
// error.
func (gw *gatedWriter[T, R]) record(ctx context.Context, key, rv string, deleted bool) {
	req, ok := RequestFrom[R](ctx)
	if !ok {
		return
	}
	if deleted {
		_ = gw.g.DeletedKey(req, key, rv)
		return
	}
	_ = gw.g.WroteKey(req, key, rv)
}

// OrderedCache is a KeyedCache whose versions it can order itself:
// *informer.Informer[T] is one when its source orders resourceVersions
// (fake.Source, etcd.Source, the cluster store).
type OrderedCache interface {
	KeyedCache
	source.VersionComparer
}

// Writer returns w with the controller's read-your-writes gate for cache
// in front of it: every successful write made inside a Reconcile of ctl
// holds the next reconcile of the same request until cache shows the
// written object (per key; see Consistency). This is the gate on by
// default: a controller that writes through Writer needs nothing else —
// the gate for cache is made on first use and consulted before every
// reconcile. Call it before Run (it returns an error after); several
// writers over one cache share one gate.
func Writer[T any, R comparable](ctl *Controller[R], cache OrderedCache, w source.Writer[T], keyFunc func(T) string) (source.Writer[T], error) {
	switch {
	case ctl == nil:
		return nil, errors.New("reconcile: Writer: controller is nil")
	case isNil(cache):
		return nil, fmt.Errorf("reconcile: Writer (controller %q): cache is nil", ctl.name)
	}
	ctl.mu.Lock()
	if ctl.started {
		ctl.mu.Unlock()
		return nil, fmt.Errorf("reconcile: Writer (controller %q): called after Run", ctl.name)
	}
	// A cache of a type that cannot be a map key gets a gate per Writer.
	shareable := reflect.TypeOf(cache).Comparable()
	var g *Consistency[R]
	ok := false
	if shareable {
		g, ok = ctl.gateFor[cache]
	}
	if !ok {
		var err error
		if g, err = NewConsistency[R](cache, cache); err != nil {
			ctl.mu.Unlock()
			return nil, err
		}
		if shareable {
			if ctl.gateFor == nil {
				ctl.gateFor = make(map[OrderedCache]*Consistency[R])
			}
			ctl.gateFor[cache] = g
		}
		ctl.gates = append(ctl.gates, g)
	}
	ctl.mu.Unlock()
	return GatedWriter(g, w, keyFunc)
}

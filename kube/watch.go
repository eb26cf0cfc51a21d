package kube

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlkit/ctrlkit/source"
)

// InitialEventsEndAnnotation is the annotation with which the API server
// marks the Bookmark that ends the initial events of a watch-list
// (metav1.InitialEventsAnnotationKey); its value is "true".
const InitialEventsEndAnnotation = metav1.InitialEventsAnnotationKey

// versionV1 and parameterCodec encode metav1.ListOptions into query
// parameters for any group, as the dynamic client does.
var (
	versionV1       = schema.GroupVersion{Version: "v1"}
	parameterScheme = func() *runtime.Scheme {
		s := runtime.NewScheme()
		metav1.AddToGroupVersion(s, versionV1)
		return s
	}()
	parameterCodec = runtime.NewParameterCodec(parameterScheme)
)

// Watch implements source.ListWatcher. The options map onto a Kubernetes
// watch as follows:
//
//   - ResourceVersion x: resourceVersion=x, events strictly after x;
//   - ResourceVersion "": sendInitialEvents=false with
//     resourceVersionMatch=NotOlderThan, which starts at the most recent
//     version (a bare watch without a version would first send the
//     current state as Added events). A server whose WatchList feature
//     gate is off refuses that; Watch then reads the current version
//     with a List of limit 1 and watches from it;
//   - SendInitialEvents: sendInitialEvents=true,
//     resourceVersionMatch=NotOlderThan and allowWatchBookmarks=true; the
//     Bookmark with the k8s.io/initial-events-end annotation becomes the
//     Bookmark with InitialEventsEnd. A server whose WatchList feature
//     gate is off refuses it: source.ErrUnsupported, on which the
//     reflector falls back to List and Watch;
//   - AllowBookmarks: allowWatchBookmarks=true. Other bookmarks are
//     dropped when it is false.
//
// An ERROR event becomes an Error event with the *metav1.Status turned
// into an error (apierrors.FromObject) and mapped like every other error
// (410 → source.ErrExpired); the channel closes after it. The channel
// also closes when ctx ends or the stream ends.
//
// Watch does not let client-go retry a connection that fails (the
// reflector retries, with its backoff): such a failure is an error
// wrapping source.ErrTransient, where client-go's Request.Watch would
// return an empty watch that a reflector takes for a short one.
func (s *Source[T]) Watch(ctx context.Context, opts source.WatchOptions) (<-chan source.Event[T], error) {
	if ctx == nil {
		return nil, errors.New("kube: Watch: nil context")
	}
	lo := metav1.ListOptions{
		Watch:               true,
		LabelSelector:       s.opts.LabelSelector,
		FieldSelector:       s.opts.FieldSelector,
		ResourceVersion:     opts.ResourceVersion,
		AllowWatchBookmarks: opts.AllowBookmarks,
	}
	if opts.SendInitialEvents || opts.ResourceVersion == "" {
		send := opts.SendInitialEvents
		lo.SendInitialEvents = &send
		lo.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
		lo.AllowWatchBookmarks = lo.AllowWatchBookmarks || send
	}
	w, err := s.watch(ctx, s.opts.Namespace, &lo)
	if err != nil && lo.SendInitialEvents != nil && apierrors.IsInvalid(err) {
		// The server refuses sendInitialEvents: its WatchList feature
		// gate is off (the default in 1.27-1.31 and 1.33).
		if opts.SendInitialEvents {
			return nil, fmt.Errorf("kube: watch %s: %w: the server refuses sendInitialEvents: %w", s.resource, source.ErrUnsupported, err)
		}
		// From now, without it: the version of a one-item list is now.
		l, lerr := s.List(ctx, source.ListOptions{Limit: 1})
		if lerr != nil {
			return nil, lerr
		}
		lo.ResourceVersion, lo.ResourceVersionMatch, lo.SendInitialEvents = l.ResourceVersion, "", nil
		w, err = s.watch(ctx, s.opts.Namespace, &lo)
	}
	if err != nil {
		return nil, convertError("watch "+s.resource, err)
	}
	ch := make(chan source.Event[T])
	go s.pump(ctx, w, ch, opts.AllowBookmarks)
	return ch, nil
}

// emptyWatch is the type of watch.NewEmptyWatch().
var emptyWatch = reflect.TypeOf(watch.NewEmptyWatch())

// watch opens a Kubernetes watch in namespace.
//
// client-go's Request.Watch answers a connection that fails with EOF or
// a timeout by retrying and then returning an empty, closed watch and no
// error; a reflector would take that for a short watch and relist. Here
// it does not retry (the reflector has its own backoff) and an empty
// watch is an error wrapping source.ErrTransient.
func (s *Source[T]) watch(ctx context.Context, namespace string, lo *metav1.ListOptions) (watch.Interface, error) {
	r := s.request("GET", namespace).SpecificallyVersionedParams(lo, parameterCodec, versionV1).MaxRetries(0)
	if s.accept != "" {
		r = r.SetHeader("Accept", s.accept)
	}
	w, err := r.Watch(ctx)
	if err == nil && reflect.TypeOf(w) == emptyWatch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: the connection failed (EOF or timeout)", source.ErrTransient)
	}
	return w, err
}

// pump converts the events of w into ch until ctx ends or w closes.
func (s *Source[T]) pump(ctx context.Context, w watch.Interface, ch chan<- source.Event[T], bookmarks bool) {
	defer close(ch)
	defer w.Stop()
	for {
		var e watch.Event
		var ok bool
		select {
		case <-ctx.Done():
			return
		case e, ok = <-w.ResultChan():
			if !ok {
				return
			}
		}
		ev, keep := s.convertEvent(e, bookmarks)
		if !keep {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case ch <- ev:
		}
		if ev.Type == source.Error {
			return
		}
	}
}

// convertEvent maps one Kubernetes watch event onto a source event;
// keep is false for a bookmark nobody asked for.
func (s *Source[T]) convertEvent(e watch.Event, bookmarks bool) (ev source.Event[T], keep bool) {
	switch e.Type {
	case watch.Added, watch.Modified, watch.Deleted:
		obj, ok := e.Object.(T)
		if !ok {
			return source.Event[T]{Type: source.Error, Err: fmt.Errorf("kube: watch %s: %s event with a %T, not a %T", s.resource, e.Type, e.Object, obj)}, true
		}
		typ := map[watch.EventType]source.EventType{watch.Added: source.Added, watch.Modified: source.Modified, watch.Deleted: source.Deleted}[e.Type]
		return source.Event[T]{Type: typ, Object: obj, ResourceVersion: obj.GetResourceVersion()}, true
	case watch.Bookmark:
		m, err := meta.Accessor(e.Object)
		if err != nil {
			return source.Event[T]{Type: source.Error, Err: fmt.Errorf("kube: watch %s: bookmark: %w", s.resource, err)}, true
		}
		end := m.GetAnnotations()[InitialEventsEndAnnotation] == "true"
		return source.Event[T]{Type: source.Bookmark, ResourceVersion: m.GetResourceVersion(), InitialEventsEnd: end}, bookmarks || end
	case watch.Error:
		return source.Event[T]{Type: source.Error, Err: convertError("watch "+s.resource, apierrors.FromObject(e.Object))}, true
	}
	return source.Event[T]{Type: source.Error, Err: fmt.Errorf("kube: watch %s: unknown event type %q", s.resource, e.Type)}, true
}

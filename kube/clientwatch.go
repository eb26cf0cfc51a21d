package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/source"
)

// Watch implements source.ListWatcher with the selection's namespace
// and selectors, mapping the options as kube.Source's Watch does (from
// "": sendInitialEvents=false, falling back to the version of a one-item
// list on a server that refuses it; SendInitialEvents: watch-list;
// AllowBookmarks: allowWatchBookmarks, BOOKMARK events becoming Bookmark
// events). An ERROR event becomes an Error event mapped as every error
// (410 → source.ErrExpired, so that the reflector relists) and closes the
// channel. The stream is read as raw JSON frames; each object's JSON is
// remembered for a later write.
func (s *selection[T]) Watch(ctx context.Context, opts source.WatchOptions) (<-chan source.Event[T], error) {
	r := s.r
	if ctx == nil {
		return nil, errors.New("kube: Watch: nil context")
	}
	lo := metav1.ListOptions{
		Watch: true, LabelSelector: s.opts.LabelSelector, FieldSelector: s.opts.FieldSelector,
		ResourceVersion: opts.ResourceVersion, AllowWatchBookmarks: opts.AllowBookmarks,
	}
	if opts.SendInitialEvents || opts.ResourceVersion == "" {
		send := opts.SendInitialEvents
		lo.SendInitialEvents = &send
		lo.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
		lo.AllowWatchBookmarks = lo.AllowWatchBookmarks || send
	}
	body, err := s.stream(ctx, &lo)
	if err != nil && lo.SendInitialEvents != nil && apierrors.IsInvalid(err) {
		if opts.SendInitialEvents {
			return nil, fmt.Errorf("kube: watch %s: %w: the server refuses sendInitialEvents: %w", r.resource, source.ErrUnsupported, err)
		}
		l, lerr := s.List(ctx, source.ListOptions{Limit: 1})
		if lerr != nil {
			return nil, lerr
		}
		lo.ResourceVersion, lo.ResourceVersionMatch, lo.SendInitialEvents = l.ResourceVersion, "", nil
		body, err = s.stream(ctx, &lo)
	}
	if err != nil {
		return nil, r.fail("watch "+r.resource, err)
	}
	ch := make(chan source.Event[T])
	go s.pump(ctx, body, ch, opts.AllowBookmarks)
	return ch, nil
}

func (s *selection[T]) stream(ctx context.Context, lo *metav1.ListOptions) (io.ReadCloser, error) {
	return s.r.request("GET", s.opts.Namespace).SpecificallyVersionedParams(lo, parameterCodec, versionV1).MaxRetries(0).Stream(ctx)
}

// frame is one event of a Kubernetes watch stream.
type frame struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// pump converts the frames of body into ch until ctx ends or the stream
// does.
func (s *selection[T]) pump(ctx context.Context, body io.ReadCloser, ch chan<- source.Event[T], bookmarks bool) {
	defer close(ch)
	defer body.Close()
	dec := json.NewDecoder(body)
	for {
		var f frame
		if err := dec.Decode(&f); err != nil {
			if ctx.Err() != nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || utilnet.IsProbableEOF(err) {
				return // the reflector watches again from its version
			}
			s.send(ctx, ch, source.Event[T]{Type: source.Error, Err: fmt.Errorf("kube: watch %s: %w: %w", s.r.resource, source.ErrTransient, err)})
			return
		}
		ev, keep := s.convert(f, bookmarks)
		if !keep {
			continue
		}
		if !s.send(ctx, ch, ev) || ev.Type == source.Error {
			return
		}
	}
}

func (s *selection[T]) send(ctx context.Context, ch chan<- source.Event[T], ev source.Event[T]) bool {
	select {
	case <-ctx.Done():
		return false
	case ch <- ev:
		return true
	}
}

// convert maps one frame onto a source event; keep is false for a
// bookmark nobody asked for.
func (s *selection[T]) convert(f frame, bookmarks bool) (ev source.Event[T], keep bool) {
	r := s.r
	types := map[string]source.EventType{"ADDED": source.Added, "MODIFIED": source.Modified, "DELETED": source.Deleted}
	switch f.Type {
	case "ADDED", "MODIFIED", "DELETED":
		obj, err := r.decode(f.Object)
		if err != nil {
			return source.Event[T]{Type: source.Error, Err: err}, true
		}
		if f.Type == "DELETED" {
			r.c.raw.drop(obj.GetObjectMeta().UID)
		}
		return source.Event[T]{Type: types[f.Type], Object: obj, ResourceVersion: obj.GetResourceVersion()}, true
	case "BOOKMARK":
		var b struct {
			Metadata api.ObjectMeta `json:"metadata"`
		}
		if err := json.Unmarshal(f.Object, &b); err != nil {
			return source.Event[T]{Type: source.Error, Err: fmt.Errorf("kube: watch %s: bookmark: %w", r.resource, err)}, true
		}
		end := b.Metadata.Annotations[InitialEventsEndAnnotation] == "true"
		return source.Event[T]{Type: source.Bookmark, ResourceVersion: b.Metadata.ResourceVersion, InitialEventsEnd: end}, bookmarks || end
	case "ERROR":
		var st metav1.Status
		if err := json.Unmarshal(f.Object, &st); err != nil {
			return source.Event[T]{Type: source.Error, Err: fmt.Errorf("kube: watch %s: error event: %w", r.resource, err)}, true
		}
		return source.Event[T]{Type: source.Error, Err: r.fail("watch "+r.resource, apierrors.FromObject(&st))}, true
	}
	return source.Event[T]{Type: source.Error, Err: fmt.Errorf("kube: watch %s: unknown event type %q", r.resource, f.Type)}, true
}

package cluster

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/source"
)

// Store is the API server's view of one kind: a source.ListWatcher[T] and
// a source.Writer[T] whose writes behave as kube-apiserver's (see the
// package documentation), plus UpdateStatus, DeleteWith and Select. Keys
// are "namespace/name" for namespaced kinds and "name" otherwise
// (api.Key). A Store is safe for concurrent use; get one from a Cluster.
//
// Get returns a private copy. Objects from List and Watch are shared
// between readers and must be treated as read-only (copy before changing
// one), as objects in an informer's cache.
type Store[T api.Object] struct {
	c    *Cluster
	kind *kind[T]
	s    storage[T]

	hubOnce sync.Once
	hub     *triggerHub[T] // of kind.trigger, made at the first indexed Select
}

var (
	_ source.ListWatcher[*api.Pod] = (*Store[*api.Pod])(nil)
	_ source.Writer[*api.Pod]      = (*Store[*api.Pod])(nil)
	_ source.VersionComparer       = (*Store[*api.Pod])(nil)
)

// Resource returns the kind's plural resource name ("pods").
func (s *Store[T]) Resource() string { return s.kind.resource }

// Get returns a copy of the object stored under key and the
// resourceVersion of its last write, or an error wrapping
// source.ErrNotFound.
func (s *Store[T]) Get(ctx context.Context, key string) (T, string, error) {
	obj, rv, err := s.s.Get(ctx, key)
	if err != nil {
		var zero T
		return zero, "", fmt.Errorf("cluster: get %s %q: %w", s.kind.resource, key, err)
	}
	return obj, rv, nil
}

// List lists every object of the kind (source.ListWatcher); Select
// filters.
func (s *Store[T]) List(ctx context.Context, opts source.ListOptions) (source.List[T], error) {
	return s.s.List(ctx, opts)
}

// Watch watches every object of the kind (source.ListWatcher); Select
// filters.
func (s *Store[T]) Watch(ctx context.Context, opts source.WatchOptions) (<-chan source.Event[T], error) {
	return s.s.Watch(ctx, opts)
}

// CompareResourceVersions orders two resourceVersions of the store
// (source.VersionComparer).
func (s *Store[T]) CompareResourceVersions(a, b string) (int, error) {
	return s.s.CompareResourceVersions(a, b)
}

// SelectOptions selects objects on the server side, as the namespace
// and the labelSelector and fieldSelector parameters of a Kubernetes list
// or watch (client.SelectOptions). Field selectors: every kind supports
// metadata.name and metadata.namespace; pods also spec.nodeName,
// spec.schedulerName, spec.restartPolicy, spec.serviceAccountName,
// status.phase and status.podIP; nodes spec.unschedulable; namespaces
// status.phase; secrets type; events
// involvedObject.{kind,namespace,name,uid,apiVersion,resourceVersion,
// fieldPath}, reason, reportingComponent, source and type.
type SelectOptions = client.SelectOptions

// Select returns a source.ListWatcher of the objects that opts selects,
// with the watch semantics of Kubernetes' watch cache (source.Filter): an
// object that starts matching arrives as Added, one that stops as
// Deleted. An unparsable selector, or a field the kind does not support,
// is an error wrapping ErrBadRequest.
func (s *Store[T]) Select(opts SelectOptions) (source.ListWatcher[T], error) {
	match, err := s.matcher(opts)
	if err != nil {
		return nil, err
	}
	if t := s.kind.trigger; t != nil {
		terms, _ := parseFieldSelector(opts.FieldSelector) // parsed by matcher (the namespace term is no trigger)
		for _, term := range terms {
			if term.field == t.field && !term.not {
				s.hubOnce.Do(func() { s.hub = &triggerHub[T]{s: s, t: *t} })
				return source.Filter[T](indexedSource[T]{hub: s.hub, value: term.value}, api.Key[T], match), nil
			}
		}
	}
	return source.Filter[T](s, api.Key[T], match), nil
}

func (s *Store[T]) matcher(opts SelectOptions) (func(T) bool, error) {
	if opts.Namespace != "" {
		if !s.kind.namespaced {
			return nil, fmt.Errorf("cluster: %s are not namespaced; cannot select namespace %q: %w", s.kind.resource, opts.Namespace, ErrBadRequest)
		}
		if opts.FieldSelector != "" {
			opts.FieldSelector += ","
		}
		opts.FieldSelector += "metadata.namespace=" + opts.Namespace
	}
	labels, err := api.ParseSelector(opts.LabelSelector)
	if err != nil {
		return nil, fmt.Errorf("cluster: %s: label selector: %v: %w", s.kind.resource, err, ErrBadRequest)
	}
	terms, err := parseFieldSelector(opts.FieldSelector)
	if err != nil {
		return nil, fmt.Errorf("cluster: %s: field selector: %v: %w", s.kind.resource, err, ErrBadRequest)
	}
	for _, t := range terms {
		if !s.supportsField(t.field) {
			return nil, fmt.Errorf("cluster: %s: field label not supported: %s: %w", s.kind.resource, t.field, ErrBadRequest)
		}
	}
	return func(obj T) bool {
		if !labels.Matches(obj.GetObjectMeta().Labels) {
			return false
		}
		if len(terms) == 0 {
			return true
		}
		var extra map[string]string
		if s.kind.fields != nil && s.kind.field == nil {
			extra = s.kind.fields(obj)
		}
		m := obj.GetObjectMeta()
		for _, t := range terms {
			var v string
			switch t.field {
			case "metadata.name":
				v = m.Name
			case "metadata.namespace":
				v = m.Namespace
			default:
				if s.kind.field != nil {
					v = s.kind.field(obj, t.field)
				} else {
					v = extra[t.field]
				}
			}
			if (v == t.value) == t.not {
				return false
			}
		}
		return true
	}, nil
}

func (s *Store[T]) supportsField(f string) bool {
	if f == "metadata.name" || f == "metadata.namespace" {
		return true
	}
	for _, n := range s.kind.fieldNames {
		if n == f {
			return true
		}
	}
	return false
}

// fieldTerm is one term of a field selector.
type fieldTerm struct {
	field, value string
	not          bool
}

// parseFieldSelector parses "a=b,c==d,e!=f".
func parseFieldSelector(sel string) ([]fieldTerm, error) {
	sel = strings.TrimSpace(sel)
	if sel == "" {
		return nil, nil
	}
	var terms []fieldTerm
	for _, part := range strings.Split(sel, ",") {
		part = strings.TrimSpace(part)
		var t fieldTerm
		var ok bool
		if t.field, t.value, ok = strings.Cut(part, "!="); ok {
			t.not = true
		} else if t.field, t.value, ok = strings.Cut(part, "=="); ok {
		} else if t.field, t.value, ok = strings.Cut(part, "="); !ok {
			return nil, fmt.Errorf("invalid term %q: want field=value, field==value or field!=value", part)
		}
		t.field = strings.TrimSpace(t.field)
		t.value = strings.TrimSpace(t.value)
		if t.field == "" {
			return nil, fmt.Errorf("invalid term %q: empty field", part)
		}
		terms = append(terms, t)
	}
	return terms, nil
}

package sourcetest

import (
	"context"
	"time"

	"github.com/ctrlkit/ctrlkit/source"
)

// Object is the value the suite stores: a key, a value, and the
// resourceVersion the source stamps into it. Its JSON form is
// {"key":..., "value":..., "resourceVersion":...}.
type Object struct {
	Key             string `json:"key"`
	Value           string `json:"value"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

// GetResourceVersion implements source.Versioned.
func (o *Object) GetResourceVersion() string { return o.ResourceVersion }

// SetResourceVersion implements source.VersionSetter.
func (o *Object) SetResourceVersion(rv string) { o.ResourceVersion = rv }

// ObjectKey is the key function of Object: its Key.
func ObjectKey(o *Object) string { return o.Key }

// Source is what the suite drives: a list-watcher of *Object with ordered
// versions, the write methods every ctrlkit source offers, and a hook to
// force expiry.
//
// The suite never changes an object after passing it to a write, and
// never changes an object it has read.
type Source interface {
	source.ListWatcher[*Object]
	source.VersionComparer

	// Get returns the object under key and the version of its last write,
	// or an error wrapping source.ErrNotFound.
	Get(ctx context.Context, key string) (*Object, string, error)
	// Create stores a new object and returns the version of the write.
	Create(ctx context.Context, obj *Object) (string, error)
	// Update replaces an object; ifVersion "" is unconditional, otherwise
	// it must be the version of the object's last write.
	Update(ctx context.Context, obj *Object, ifVersion string) (string, error)
	// Delete removes an object; ifVersion as for Update.
	Delete(ctx context.Context, key, ifVersion string) (string, error)
	// Compact discards the source's history before its current version,
	// as etcd's compaction at the current revision does. Afterwards the
	// suite expects source.ErrExpired from a List at any older version,
	// from a continue token pinned to one, and from a Watch from a version
	// at least two writes older than the current one (etcd keeps the
	// writes of the compaction revision itself, so it may still serve a
	// watch from the version just before); the current version stays
	// usable.
	Compact(ctx context.Context) error
}

// Capabilities declares what a source supports, so that the suite checks
// the right behaviour instead of skipping anything.
type Capabilities struct {
	// WatchList: the source supports WatchOptions.SendInitialEvents. When
	// false the suite checks that asking for it fails with an error
	// wrapping source.ErrUnsupported.
	WatchList bool
	// Bookmarks: a watch opened with AllowBookmarks receives a Bookmark
	// within Timeout of going idle (configure the source's progress
	// interval well below Timeout). When false the suite only checks that
	// no Bookmark arrives unasked.
	Bookmarks bool
	// Timeout bounds every wait for an expected event or a closed
	// channel. Default 5s.
	Timeout time.Duration
}

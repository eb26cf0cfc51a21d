package fake_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/source/sourcetest"
)

// conformant adapts fake.Source to sourcetest.Source: only Compact's
// signature differs.
type conformant struct {
	*fake.Source[*sourcetest.Object]
}

func (c conformant) Compact(context.Context) error {
	c.Source.Compact()
	return nil
}

func TestConformance(t *testing.T) {
	caps := sourcetest.Capabilities{WatchList: true, Bookmarks: true, Timeout: 5 * time.Second}
	for _, tc := range []struct {
		name string
		copy func(*sourcetest.Object) *sourcetest.Object
		size func(*sourcetest.Object) int
	}{
		{"SharedObjects", nil, nil},
		{"CopiedObjects", func(o *sourcetest.Object) *sourcetest.Object { c := *o; return &c }, nil},
		// Measured objects, with the default byte bound on the history.
		{"SizedObjects", nil, func(o *sourcetest.Object) int { return len(o.Key) + len(o.Value) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sourcetest.Run(t, func(t *testing.T) sourcetest.Source {
				src, err := fake.NewSource(sourcetest.ObjectKey, fake.Options[*sourcetest.Object]{
					BookmarkInterval: 10 * time.Millisecond,
					Copy:             tc.copy,
					Size:             tc.size,
					Logger:           slog.New(slog.NewTextHandler(io.Discard, nil)),
				})
				if err != nil {
					t.Fatal(err)
				}
				return conformant{src}
			}, caps)
		})
	}
}

package deltafifo

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestLastResourceVersion(t *testing.T) {
	f := newFIFO(t, Options[*obj]{KnownObjects: newStore()})
	assert.Equal(t, "", f.LastResourceVersion())
	require.NoError(t, f.Add(o("a", 1), "1"))
	assert.Equal(t, "1", f.LastResourceVersion())
	f.Bookmark("2")
	assert.Equal(t, "2", f.LastResourceVersion())
	require.NoError(t, f.Replace(nil, "3"))
	assert.Equal(t, "3", f.LastResourceVersion())
	require.NoError(t, f.Delete(o("nope", 1), "4")) // ignored, still recorded
	assert.Equal(t, "4", f.LastResourceVersion())
	require.NoError(t, f.Update(o("a", 2), "")) // no version: nothing recorded
	require.NoError(t, f.Resync())
	f.Bookmark("")
	assert.Equal(t, "4", f.LastResourceVersion())
}

// ProcessedResourceVersion moves only over prefixes of fully processed
// changes: a change whose delta was processed does not count while an
// older change is still queued.
func TestProcessedResourceVersionStepByStep(t *testing.T) {
	f := newFIFO(t, Options[*obj]{})
	rv, changed := f.ProcessedResourceVersion()
	assert.Equal(t, "", rv)

	require.NoError(t, f.Add(o("a", 1), "1"))
	require.NoError(t, f.Add(o("b", 1), "2"))
	require.NoError(t, f.Update(o("a", 2), "3"))
	f.Bookmark("4")
	assert.False(t, isClosed(changed))

	err := f.Pop(context.Background(), func(ds Deltas[*obj], _ bool) error {
		rv, _ := f.ProcessedResourceVersion()
		assert.Equal(t, "", rv, "nothing counts while process runs")
		return nil
	})
	require.NoError(t, err)
	assert.True(t, isClosed(changed))
	rv, changed = f.ProcessedResourceVersion()
	assert.Equal(t, "1", rv, "a's deltas 1 and 3 are processed, but b's 2 is not")

	assert.Equal(t, "Added:b=1@2", popOne(t, f, nil))
	assert.True(t, isClosed(changed))
	rv, changed = f.ProcessedResourceVersion()
	assert.Equal(t, "4", rv, "the bookmark counts once everything before it is processed")

	// With nothing pending a bookmark and an ignored delete count at once.
	f.Bookmark("5")
	assert.True(t, isClosed(changed))
	rv, changed = f.ProcessedResourceVersion()
	assert.Equal(t, "5", rv)
	require.NoError(t, f.Delete(o("unknown", 1), "6"))
	assert.True(t, isClosed(changed))
	rv, changed = f.ProcessedResourceVersion()
	assert.Equal(t, "6", rv)

	// A call without a version moves nothing; a channel is not closed
	// when the value does not change.
	require.NoError(t, f.Add(o("c", 1), ""))
	assert.Equal(t, "Added:c=1@", popOne(t, f, nil))
	assert.False(t, isClosed(changed))
	rv, _ = f.ProcessedResourceVersion()
	assert.Equal(t, "6", rv)
}

func TestProcessedResourceVersionOfReplace(t *testing.T) {
	known := newStore(o("gone", 1))
	f := newFIFO(t, Options[*obj]{KnownObjects: known})
	require.NoError(t, f.Replace([]*obj{o("a", 1), o("b", 1)}, "10"))
	require.NoError(t, f.Add(o("c", 1), "11"))
	for _, want := range []string{"", "", "10", "11"} {
		popOne(t, f, known)
		rv, _ := f.ProcessedResourceVersion()
		assert.Equal(t, want, rv)
	}
}

// A change appended to a queued key counts as processed only when that
// key is, even if keys queued after it are processed first.
func TestProcessedResourceVersionWithConcurrentPops(t *testing.T) {
	f := newFIFO(t, Options[*obj]{})
	require.NoError(t, f.Add(o("a", 1), "1"))
	require.NoError(t, f.Add(o("b", 1), "2"))
	require.NoError(t, f.Update(o("a", 2), "3")) // while a is in flight: queued behind it

	err := f.Pop(context.Background(), func(Deltas[*obj], bool) error {
		// a is in flight; b can be popped by a second Pop meanwhile.
		assert.Equal(t, "Added:b=1@2", popOne(t, f, nil))
		rv, _ := f.ProcessedResourceVersion()
		assert.Equal(t, "", rv, "a (1) is still in flight")
		return nil
	})
	require.NoError(t, err)
	rv, _ := f.ProcessedResourceVersion()
	assert.Equal(t, "3", rv, "a's 1 and 3 and b's 2 are processed")

	require.NoError(t, f.Add(o("x", 1), "4"))
	err = f.Pop(context.Background(), func(Deltas[*obj], bool) error {
		require.NoError(t, f.Update(o("x", 2), "5")) // x in flight: new entry for x
		require.NoError(t, f.Add(o("y", 1), "6"))
		assert.Equal(t, "Added:y=1@6", popOne(t, f, nil), "y is popped, x is skipped")
		rv, _ := f.ProcessedResourceVersion()
		assert.Equal(t, "3", rv)
		return nil
	})
	require.NoError(t, err)
	rv, _ = f.ProcessedResourceVersion()
	assert.Equal(t, "4", rv, "x's second entry (5) is still queued")
	assert.Equal(t, "Updated:x=2@5", popOne(t, f, nil))
	rv, _ = f.ProcessedResourceVersion()
	assert.Equal(t, "6", rv)
}

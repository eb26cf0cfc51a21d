package kube_test

import (
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/source/sourcetest"
)

// caps are what the test server offers: watch-list (sendInitialEvents
// with the initial-events-end bookmark) but no periodic bookmarks, which
// only the watch cache sends and the test server runs without one.
var caps = sourcetest.Capabilities{WatchList: true, Bookmarks: false, Timeout: 10 * time.Second}

// TestConformance runs the source conformance suite against a typed
// kube.Source of Flunders on the real API server; every subtest gets a
// namespace of its own.
func TestConformance(t *testing.T) {
	sourcetest.Run(t, func(t *testing.T) sourcetest.Source {
		return typedObjects(t, newNamespace("typed"))
	}, caps)
}

// TestConformanceUnstructured runs the suite against the dynamic
// (unstructured) kube.Source of the same resource.
func TestConformanceUnstructured(t *testing.T) {
	sourcetest.Run(t, func(t *testing.T) sourcetest.Source {
		return unstructuredObjects(t, newNamespace("unstructured"))
	}, caps)
}

package sourcetest

import (
	"errors"
	"strconv"

	"github.com/ctrlkit/ctrlkit/source"
)

func testStartsEmpty(h *harness) {
	l := h.list(source.ListOptions{})
	if len(l.Items) != 0 || l.Continue != "" {
		h.t.Fatalf("a new source lists %d items (continue %q), want none", len(l.Items), l.Continue)
	}
}

func testWrites(h *harness) {
	t := h.t
	get := func(key string) (*Object, string, error) {
		t.Helper()
		return h.src.Get(h.ctx, key)
	}
	wantGet := func(key, value, rv string) {
		t.Helper()
		o, got, err := get(key)
		if err != nil {
			t.Fatalf("Get %q: %v", key, err)
		}
		if got != rv || o == nil || o.Key != key || o.Value != value || o.ResourceVersion != rv {
			t.Fatalf("Get %q = %+v at %q, want value %q stamped and at %q", key, o, got, value, rv)
		}
	}
	wantErr := func(what string, err, target error) {
		t.Helper()
		if !errors.Is(err, target) {
			t.Fatalf("%s: got error %v, want %v", what, err, target)
		}
	}

	rv1 := h.mustCreate("a", "1")
	wantGet("a", "1", rv1)
	_, err := h.create("a", "other")
	wantErr("Create of a taken key", err, source.ErrAlreadyExists)
	wantGet("a", "1", rv1)

	_, _, err = get("missing")
	wantErr("Get of a missing key", err, source.ErrNotFound)
	_, err = h.update("missing", "x", "")
	wantErr("Update of a missing key", err, source.ErrNotFound)
	_, err = h.update("missing", "x", rv1)
	wantErr("conditional Update of a missing key", err, source.ErrNotFound)
	_, err = h.remove("missing", "", "")
	wantErr("Delete of a missing key", err, source.ErrNotFound)
	_, err = h.remove("missing", "", rv1)
	wantErr("conditional Delete of a missing key", err, source.ErrNotFound)

	rv2 := h.mustUpdate("a", "2")
	wantGet("a", "2", rv2)
	_, err = h.update("a", "stale", rv1)
	wantErr("Update with a stale version", err, source.ErrConflict)
	wantGet("a", "2", rv2)
	rv3, err := h.update("a", "3", rv2)
	if err != nil {
		t.Fatalf("Update with the current version: %v", err)
	}
	wantGet("a", "3", rv3)

	_, err = h.remove("a", "3", rv2)
	wantErr("Delete with a stale version", err, source.ErrConflict)
	wantGet("a", "3", rv3)
	rv4, err := h.remove("a", "3", rv3)
	if err != nil {
		t.Fatalf("Delete with the current version: %v", err)
	}
	_, _, err = get("a")
	wantErr("Get after Delete", err, source.ErrNotFound)
	_, err = h.update("a", "x", "")
	wantErr("Update after Delete", err, source.ErrNotFound)

	rv5 := h.mustCreate("a", "again")
	wantGet("a", "again", rv5)
	for i, pair := range [][2]string{{rv1, rv2}, {rv2, rv3}, {rv3, rv4}, {rv4, rv5}} {
		if h.cmp(pair[0], pair[1]) >= 0 {
			t.Fatalf("write %d at %s, write %d at %s: versions must increase", i+1, pair[0], i+2, pair[1])
		}
	}
	h.checkItems("List after the writes", h.list(source.ListOptions{}).Items, rv5)
}

func testVersionOrder(h *harness) {
	var rvs []string
	for i := range 5 {
		rvs = append(rvs, h.mustCreate("k"+strconv.Itoa(i), "v"))
	}
	for i, a := range rvs {
		for j, b := range rvs {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := h.cmp(a, b); got != want {
				h.t.Fatalf("CompareResourceVersions(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
	for _, bad := range []string{"", "not-a-version"} {
		if _, err := h.src.CompareResourceVersions(bad, rvs[0]); err == nil {
			h.t.Errorf("CompareResourceVersions(%q, %q) succeeded, want an error", bad, rvs[0])
		}
		if _, err := h.src.CompareResourceVersions(rvs[0], bad); err == nil {
			h.t.Errorf("CompareResourceVersions(%q, %q) succeeded, want an error", rvs[0], bad)
		}
	}
}

// futureVersion returns a version far newer than rv, if the source's
// versions are decimal integers (the suite cannot invent opaque ones).
func (h *harness) futureVersion(rv string) (string, bool) {
	n, err := strconv.ParseUint(rv, 10, 63)
	if err != nil {
		h.t.Logf("versions are not decimal integers (%q); cannot construct a future version", rv)
		return "", false
	}
	return strconv.FormatUint(n+1000, 10), true
}

func testFutureVersion(h *harness) {
	rv := h.mustCreate("a", "1")
	future, ok := h.futureVersion(rv)
	if !ok {
		return
	}
	if _, err := h.src.List(h.ctx, source.ListOptions{ResourceVersion: future}); !errors.Is(err, source.ErrFutureVersion) {
		h.t.Errorf("List at future version %s: got %v, want ErrFutureVersion", future, err)
	}
	if err := h.watchErr(source.WatchOptions{ResourceVersion: future}); !errors.Is(err, source.ErrFutureVersion) {
		h.t.Errorf("Watch from future version %s: got %v, want ErrFutureVersion", future, err)
	}
}

func testMalformedVersion(h *harness) {
	rv := h.mustCreate("a", "1")
	const bad = "not-a-version"
	if _, err := h.src.List(h.ctx, source.ListOptions{ResourceVersion: bad}); err == nil {
		h.t.Errorf("List at %q succeeded, want an error", bad)
	}
	if _, err := h.src.List(h.ctx, source.ListOptions{Limit: 1, Continue: bad}); err == nil {
		h.t.Errorf("List with continue token %q succeeded, want an error", bad)
	}
	if err := h.watchErr(source.WatchOptions{ResourceVersion: bad}); err == nil {
		h.t.Errorf("Watch from %q: no error", bad)
	}
	if _, err := h.update("a", "2", bad); err == nil {
		h.t.Errorf("Update with precondition %q succeeded, want an error", bad)
	}
	if _, err := h.remove("a", "1", bad); err == nil {
		h.t.Errorf("Delete with precondition %q succeeded, want an error", bad)
	}
	h.checkItems("List after the failed writes", h.list(source.ListOptions{}).Items, rv)
}

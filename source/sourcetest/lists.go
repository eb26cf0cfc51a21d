package sourcetest

import (
	"errors"
	"fmt"

	"github.com/ctrlkit/ctrlkit/source"
)

func testListConsistent(h *harness) {
	var rvs []string
	for i := range 6 {
		rvs = append(rvs, h.mustCreate(fmt.Sprintf("k%d", i), "v0"))
	}
	rvs = append(rvs,
		h.mustUpdate("k1", "v1"),
		h.mustDelete("k2", "v0"),
		h.mustUpdate("k3", "v1"),
		h.mustCreate("k2", "v2"),
		h.mustDelete("k0", "v0"),
		h.mustUpdate("k3", "v2"),
	)
	last := rvs[len(rvs)-1]

	l := h.list(source.ListOptions{})
	if h.cmp(l.ResourceVersion, last) < 0 {
		h.t.Fatalf(`List "" is at %s, older than the last write %s`, l.ResourceVersion, last)
	}
	h.checkItems(`List ""`, l.Items, l.ResourceVersion)

	for _, rv := range rvs {
		l := h.list(source.ListOptions{ResourceVersionMatch: source.Exact, ResourceVersion: rv})
		if h.cmp(l.ResourceVersion, rv) < 0 {
			h.t.Fatalf("List at %s is at the older %s", rv, l.ResourceVersion)
		}
		if l.Continue != "" {
			h.t.Errorf("List at %s without a limit returned continue token %q", rv, l.Continue)
		}
		h.checkItems("List at "+rv, l.Items, l.ResourceVersion)
	}
}

// listAll follows continue tokens from a first page listed with limit and
// checks that every page is at the first page's version; between pages it
// calls between (if not nil) with the page number.
func (h *harness) listAll(limit int64, between func(page int)) (items []*Object, rv string, pages int) {
	h.t.Helper()
	l := h.list(source.ListOptions{Limit: limit})
	rv = l.ResourceVersion
	for pages = 1; ; pages++ {
		if int64(len(l.Items)) > limit {
			h.t.Fatalf("page %d has %d items, limit %d", pages, len(l.Items), limit)
		}
		items = append(items, l.Items...)
		if l.Continue == "" {
			return items, rv, pages
		}
		if len(l.Items) == 0 {
			h.t.Fatalf("page %d is empty but has a continue token", pages)
		}
		if pages > 1000 {
			h.t.Fatal("more than 1000 pages: the continue tokens do not advance")
		}
		if between != nil {
			between(pages)
		}
		l = h.list(source.ListOptions{Limit: limit, Continue: l.Continue})
		if h.cmp(l.ResourceVersion, rv) != 0 {
			h.t.Fatalf("page %d is at %s, the first page at %s", pages+1, l.ResourceVersion, rv)
		}
	}
}

func testPagination(h *harness) {
	for i := range 25 {
		h.mustCreate(fmt.Sprintf("k%02d", i), "v0")
	}
	// Writes between pages land before, inside and after the pages still
	// to come; none of them may show.
	writes := map[int]func(){
		1: func() {
			h.mustUpdate("k15", "v1")
			h.mustDelete("k20", "v0")
			h.mustCreate("k125", "new") // sorts between k12 and k13
			h.mustCreate("k99", "new")
			h.mustDelete("k03", "v0")
		},
		2: func() {
			h.mustUpdate("k24", "v1")
			h.mustCreate("k00a", "new")
		},
	}
	items, rv, pages := h.listAll(10, func(page int) {
		if f := writes[page]; f != nil {
			f()
		}
	})
	if pages != 3 {
		h.t.Errorf("25 items in pages of 10 took %d pages, want 3", pages)
	}
	h.checkItems("paginated List", items, rv)

	// Pages of one, and one page holding exactly everything.
	items, rv, _ = h.listAll(1, nil)
	h.checkItems("List in pages of 1", items, rv)
	n := int64(len(items))
	l := h.list(source.ListOptions{Limit: n})
	if l.Continue != "" {
		h.t.Errorf("List with limit %d of %d items returned continue token %q", n, n, l.Continue)
	}
	h.checkItems(fmt.Sprintf("List with limit %d", n), l.Items, l.ResourceVersion)
}

func (h *harness) compact() {
	h.t.Helper()
	if err := h.src.Compact(h.ctx); err != nil {
		h.t.Fatalf("Compact: %v", err)
	}
}

func testExpiredContinue(h *harness) {
	for i := range 5 {
		h.mustCreate(fmt.Sprintf("k%d", i), "v0")
	}
	first := h.list(source.ListOptions{Limit: 2})
	if first.Continue == "" {
		h.t.Fatal("List of 5 items with limit 2 returned no continue token")
	}
	h.mustUpdate("k4", "v1")
	h.mustUpdate("k4", "v2")
	h.compact()
	_, err := h.src.List(h.ctx, source.ListOptions{Limit: 2, Continue: first.Continue})
	if !errors.Is(err, source.ErrExpired) {
		h.t.Fatalf("List with a continue token of a compacted version: got %v, want ErrExpired", err)
	}
	// A fresh list still works, in pages too.
	items, rv, _ := h.listAll(2, nil)
	h.checkItems("paginated List after compaction", items, rv)
}

func testExpiredList(h *harness) {
	old := h.mustCreate("a", "1")
	h.mustUpdate("a", "2")
	cur := h.mustUpdate("a", "3")
	h.compact()
	if _, err := h.src.List(h.ctx, source.ListOptions{ResourceVersionMatch: source.Exact, ResourceVersion: old}); !errors.Is(err, source.ErrExpired) {
		h.t.Fatalf("List at compacted version %s: got %v, want ErrExpired", old, err)
	}
	l := h.list(source.ListOptions{ResourceVersionMatch: source.Exact, ResourceVersion: cur})
	h.checkItems("List at the compaction version", l.Items, l.ResourceVersion)
	l = h.list(source.ListOptions{})
	h.checkItems(`List "" after compaction`, l.Items, l.ResourceVersion)
}

func testExpiredWatch(h *harness) {
	old := h.mustCreate("a", "1")
	h.mustUpdate("a", "2")
	cur := h.mustUpdate("a", "3")
	h.compact()
	if err := h.watchErr(source.WatchOptions{ResourceVersion: old}); !errors.Is(err, source.ErrExpired) {
		h.t.Fatalf("Watch from compacted version %s: got %v, want ErrExpired", old, err)
	}
	// The current version stays usable.
	ch := h.watch(h.ctx, source.WatchOptions{ResourceVersion: cur})
	h.mustUpdate("a", "4")
	h.expect(ch, h.after(cur), false, cur)
}

// testListNotOlderThan: a not-older-than list at an old version serves a
// state at least as new as every write made before it — the latest — and
// is never expired, even after compaction. A source that served the old
// snapshot would let a relist repair nothing that a watch lost.
func testListNotOlderThan(h *harness) {
	first := h.mustCreate("a", "1")
	h.mustCreate("b", "1")
	last := h.mustUpdate("a", "2")
	for _, when := range []string{"", " after compaction"} {
		if when != "" {
			h.compact()
		}
		l := h.list(source.ListOptions{ResourceVersion: first, ResourceVersionMatch: source.NotOlderThan})
		if h.cmp(l.ResourceVersion, last) < 0 {
			h.t.Fatalf("List not older than %s%s is at %s, older than the last write %s before it",
				first, when, l.ResourceVersion, last)
		}
		h.checkItems("List not older than "+first+when, l.Items, l.ResourceVersion)
	}
	// Paginated, the first page sets the snapshot the later pages follow.
	l := h.list(source.ListOptions{ResourceVersion: first, Limit: 1})
	if h.cmp(l.ResourceVersion, last) < 0 {
		h.t.Fatalf("paginated List not older than %s is at %s, older than %s", first, l.ResourceVersion, last)
	}
	items := l.Items
	for l.Continue != "" && len(items) < 10 {
		l = h.list(source.ListOptions{Limit: 1, Continue: l.Continue})
		items = append(items, l.Items...)
	}
	h.checkItems("paginated List not older than "+first, items, l.ResourceVersion)
}

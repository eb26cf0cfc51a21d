// Package indexer is the cache at the end of an informer: a thread-safe
// store of objects of type T, ordered by key, with named secondary indexes
// and cheap, consistent snapshots.
//
// # Usage
//
//	pods, err := indexer.New(podKey, indexer.Indexers[*Pod]{
//		"namespace": func(p *Pod) ([]string, error) { return []string{p.Namespace}, nil },
//	})
//	err = pods.Add(p)                           // Add and Update are the same upsert
//	old, replaced, err := pods.Upsert(p)        // Add, returning what it replaced
//	p, ok := pods.Get("prod/web-1")
//	inProd, err := pods.ByIndex("namespace", "prod") // ordered by key
//	for key, p := range pods.Range("prod/") { ... }  // iterates a snapshot
//	snap := pods.Snapshot()                          // immutable view, copy-on-write
//
// The informer feeds an Indexer from its delta FIFO (Add, Update, Delete,
// Replace for a relist, Bookmark for versions that carry no change) and
// controllers read it through listers. Get plus ListKeys is what the
// deltafifo needs as its KnownObjects.
//
// # Contract
//
//   - Keys come from the key func. A key func that returns "" or panics
//     makes the write fail with an error wrapping ErrKeyFunc.
//   - Everything is ordered by key (byte-wise string order): List,
//     ListKeys, All, Range, and the results of ByIndex, IndexKeys and
//     Index. IndexValues is ordered by value and lists only values that at
//     least one object has: a value whose last object leaves is forgotten.
//     IndexLen is the length of ByIndex's result, counted over the
//     index's leaves without collecting the objects.
//   - Index funcs compute every value of the new object before anything
//     changes. If one returns an error or panics, the write is rejected
//     with an error wrapping ErrIndexFunc (and the func's own error) that
//     names the index and the key, and the store is unchanged. Replace and
//     AddIndexers are all-or-nothing in the same way.
//   - Index funcs must be deterministic: to remove an object's old index
//     entries, the Indexer calls them again on the stored object (storing
//     the values would cost memory on every object). If that call fails,
//     or finds entries missing because the stored object was modified in
//     place, the Indexer finds the key's entries by a scan of the index
//     instead, so no stale entry survives; that scan costs O(leaves).
//   - Delete goes by key: the stored object, not the argument, decides
//     which index entries go. Deleting a missing key is not an error.
//   - Replace swaps in the new contents and rebuilt indexes atomically and
//     records its resourceVersion; Bookmark records a resourceVersion
//     alone; LastSyncResourceVersion returns the latest. Resync does
//     nothing.
//   - Naming an unknown index is an error wrapping ErrUnknownIndex;
//     AddIndexers with a name that exists, one wrapping ErrIndexExists.
//
// # Memory
//
// The Indexer holds the caller's objects (T is usually a pointer), never
// copies: objects in it, in a snapshot or returned by a read must not be
// modified. Per object it keeps one cell (the key, the object and a
// generation: 32 bytes for a pointer T), a slot of nine bytes in a hash
// table, and an eight-byte pointer to the cell in the store and in each
// index value; the pointers are packed in sorted leaves of up to 128.
// The key's string is the one the key func returned when the key was
// first added, shared by everything. Changes not yet applied to the
// ordered structures cost twelve bytes each (see Writes and ordered
// reads). BenchmarkBytesPerObject measures it with 100,000 objects and two
// indexes.
//
// # Writes and ordered reads
//
// Get, Len and every write go through the hash table: a write costs a
// lookup, its index funcs and an append to a log per ordered structure
// (the store's key order and each index). An update that changes no
// index value and whose cell no snapshot shares writes the object into
// the cell and logs nothing. The logs are folded into the ordered
// structures, sorted in one batch (a radix sort of the keys and one pass
// over the leaves), by the first ordered read (List, ListKeys, ByIndex,
// IndexLen, IndexKeys, IndexValues, Index), by Snapshot, All and Range, and by a
// write that finds a log longer than twice the number of objects. So a
// burst of writes costs little each, and the first ordered read after it
// pays for ordering the burst, once: O(k log k) for k changes, with k
// bounded by that limit.
//
// # Concurrency
//
// All methods are safe for concurrent use. Get, Len and ordered reads with
// nothing to fold share a read lock; writes, and an ordered read that
// folds first, hold the write lock, and index funcs run under it, so an
// index func must not call back into its Indexer. Replace computes the new
// contents and indexes without the lock and only swaps them in under it,
// so a large relist does not stall readers; index funcs must therefore be
// safe for concurrent use. A Snapshot is immutable and takes no lock. All
// and Range iterate a snapshot taken when the iteration starts, so no lock
// is held while the loop body runs: it may write to the Indexer, and
// writers never wait for a slow reader.
//
// # Snapshots and layout
//
// The store's key order and each index are B+trees whose inner levels are
// a github.com/google/btree of leaf fences and whose leaves are sorted
// runs of cell pointers. Snapshot folds the logs, then clones the btrees
// (copy-on-write, O(1) each) and marks the current leaves and cells
// shared: it costs O(number of indexes) beyond the fold of the changes
// made since the last ordered read. A later fold copies the leaves and
// the few btree nodes it touches, and a later write to a shared cell puts
// a new cell in its place, so a snapshot costs nothing until writes
// happen. Until the next write, Snapshot returns the same snapshot again.
//
// # Why this design
//
// Each layer is there for a number; measured on a 2-core VM that is shared
// and noisy (wall times moved by ±20 % between rounds), with the bench
// module's W6 and W7 workloads (100,000 pods, a namespace and an app
// index; see bench/README.md), medians of 5 rounds of fresh processes.
//
//   - The hash table (table.go), against a plain map[string]*cell, the
//     same Indexer otherwise (Go's map is itself a Swiss table since Go
//     1.24): retained heap per object in W6 95 B against 119 B (client-go
//     148 B: 0.64× against 0.80×, where the target is 0.7×), in W7's
//     synced informer 82 B against 105 B; Get 62 ns against 77 ns; W6 add
//     980 ns against 1,110 ns per pod; W6 update and the ByIndex rows
//     alike within the noise. A slot costs nine bytes against the map's
//     twenty-five (a 16-byte key header, a pointer, a control byte), and
//     a write hashes once where the map hashes a miss twice (lookup, then
//     insert).
//   - Shared cells: the table, the store and every index entry of a key
//     point at one cell, so the key's string header is stored once and an
//     update that changes no index value writes one word and logs nothing.
//   - Leaf trees (leaftree.go): every result ordered by key without a
//     sort at read time, at an 8-byte pointer per entry, and an O(1)
//     copy-on-write clone for snapshots. W6 ByIndex takes 0.09× (20,000
//     pods) and 0.15× (100 pods) of client-go's time.
//   - Op logs and the fold (oplog.go, fold.go, sort.go): a write costs a
//     hash lookup and an append instead of a descent of every tree it
//     changes; the first ordered read sorts the burst once, by a radix
//     sort. With the table and shared cells, this took W6 add from 1.35×
//     to 0.43× of client-go's time and W6 update from 2.15× to 0.98×
//     (bench/README.md); W6 add is now 0.35–0.54×.
//   - Snapshots: All and Range iterate without holding the lock, and
//     Snapshot costs O(number of indexes) plus the pending fold.
package indexer

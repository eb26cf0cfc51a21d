package expectations

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/metrics"
)

// record is what one controller key still waits for.
type record struct {
	// add and del are the creations and deletions not yet observed. They
	// may go negative when more is observed than was expected.
	add, del int
	// at is when ExpectCreations or ExpectDeletions set the record; the
	// TTL counts from here and Raise/Lower/observations do not move it.
	at time.Time
	// reported is set once the expiry of this record has been logged and
	// counted, so that it is reported once, not at every Satisfied.
	reported bool
	// uids holds the UIDs whose deletion is still expected (UIDTracking
	// only; nil or empty otherwise). Observing a UID removes it, so a
	// second observation of the same deletion is not counted.
	uids map[string]struct{}
}

// verdict is what a record means for the controller at one instant.
type verdict uint8

const (
	// waiting: creations or deletions are outstanding and the record is
	// younger than the TTL; the controller must not act.
	waiting verdict = iota
	// fulfilled: there is no record, or both counts are ≤ 0.
	fulfilled
	// expired: counts are outstanding but the record is older than the
	// TTL; the controller acts anyway, since an event was probably lost.
	expired
)

// decide is the pure decision behind Satisfied: what r means at now. A
// nil r (no record) is fulfilled. A fulfilled record never counts as
// expired, so only expiries that actually unblock a controller are
// reported. The TTL is exclusive: a record exactly ttl old still waits.
func decide(r *record, now time.Time, ttl time.Duration) verdict {
	switch {
	case r == nil || (r.add <= 0 && r.del <= 0):
		return fulfilled
	case now.Sub(r.at) > ttl:
		return expired
	default:
		return waiting
	}
}

// core is the state shared by Expectations and UIDTracking. Its methods
// take the current time as an argument so tests can drive them with
// explicit instants; the exported wrappers pass time.Now().
type core struct {
	ttl     time.Duration
	log     *slog.Logger
	metrics Metrics // filled: no nil fields

	mu sync.Mutex
	// records maps a controller key to its record. Guarded by mu.
	records map[string]*record
}

func newCore(o Options) core {
	var m Metrics
	if o.Metrics != nil {
		m = o.Metrics.ExpectationsMetrics(o.Name)
	}
	m.Expired = metrics.Or(m.Expired)
	return core{ttl: o.TTL, log: o.Logger, metrics: m, records: make(map[string]*record)}
}

// expect replaces key's record by one expecting add creations and del
// deletions, set at now. The record struct (and its uid map) is reused
// when key already has one, so steady-state calls do not allocate.
func (c *core) expect(key string, add, del int, now time.Time) {
	c.mu.Lock()
	r := c.records[key]
	if r == nil {
		r = new(record)
		c.records[key] = r
	}
	set := r.uids // kept, emptied, for a later expectUIDs to reuse
	clear(set)
	*r = record{add: add, del: del, at: now, uids: set}
	c.mu.Unlock()
	c.debug("expectations: set", key, add, del)
}

// expectUIDs replaces key's record by one expecting the deletion of each
// distinct UID in uids (and no creations), set at now.
func (c *core) expectUIDs(key string, uids []string, now time.Time) {
	c.mu.Lock()
	r := c.records[key]
	if r == nil {
		r = new(record)
		c.records[key] = r
	}
	clobbered := len(r.uids)
	set := r.uids
	if set == nil {
		set = make(map[string]struct{}, len(uids))
	}
	clear(set)
	for _, u := range uids {
		set[u] = struct{}{}
	}
	n := len(set)
	*r = record{del: n, at: now, uids: set}
	c.mu.Unlock()
	if clobbered > 0 {
		// Expectations are normally replaced only once satisfied, so
		// pending UIDs here mean the previous record expired or the
		// caller skipped the Satisfied check.
		c.log.Warn("expectations: replacing pending UID deletions", "key", key, "pending", clobbered)
	}
	c.debug("expectations: set", key, 0, n)
}

// adjust adds add and del to key's counts. It does nothing when key has no
// record: there is nothing to wait for, and a late observation (say, of a
// deleted owner's child) must not conjure one up.
func (c *core) adjust(key string, add, del int) {
	c.mu.Lock()
	r := c.records[key]
	if r != nil {
		r.add += add
		r.del += del
		add, del = r.add, r.del
	}
	c.mu.Unlock()
	if r != nil {
		c.debug("expectations: adjusted", key, add, del)
	}
}

// observeUID records the deletion of uid for key. Only a UID that key's
// record still expects lowers the deletion count, and it is then
// forgotten, so each expected deletion counts once however often it is
// observed. It reports whether the observation counted.
func (c *core) observeUID(key, uid string) bool {
	c.mu.Lock()
	r := c.records[key]
	_, ok := r.uidsOrNil()[uid]
	var add, del int
	if ok {
		delete(r.uids, uid)
		r.del--
		add, del = r.add, r.del
	}
	c.mu.Unlock()
	if ok {
		c.debug("expectations: adjusted", key, add, del)
	}
	return ok
}

// uidsOrNil returns r.uids, or nil for a nil r.
func (r *record) uidsOrNil() map[string]struct{} {
	if r == nil {
		return nil
	}
	return r.uids
}

// satisfied reports whether key's controller may act at now. An expired
// record is logged and counted the first time it is seen expired.
func (c *core) satisfied(key string, now time.Time) bool {
	c.mu.Lock()
	r := c.records[key]
	v := decide(r, now, c.ttl)
	report := v == expired && !r.reported
	var add, del int
	var age time.Duration
	if report {
		r.reported = true
		add, del, age = r.add, r.del, now.Sub(r.at)
	}
	c.mu.Unlock()
	if report {
		c.log.Warn("expectations: expired before they were satisfied; the controller proceeds and may act twice",
			"key", key, "add", add, "del", del, "age", age, "ttl", c.ttl)
		c.metrics.Expired.Inc()
	}
	return v != waiting
}

// get returns key's outstanding counts.
func (c *core) get(key string) (add, del int, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.records[key]
	if r == nil {
		return 0, 0, false
	}
	return r.add, r.del, true
}

// pendingUIDs returns the UIDs key still expects to see deleted, sorted.
func (c *core) pendingUIDs(key string) []string {
	c.mu.Lock()
	set := c.records[key].uidsOrNil()
	out := make([]string, 0, len(set))
	for u := range set {
		out = append(out, u)
	}
	c.mu.Unlock()
	slices.Sort(out)
	return out
}

// remove forgets key's record.
func (c *core) remove(key string) {
	c.mu.Lock()
	delete(c.records, key)
	c.mu.Unlock()
}

// debug logs a record's counts at debug level. The Enabled check keeps
// the hot paths free of allocations when debug logging is off.
func (c *core) debug(msg, key string, add, del int) {
	if c.log.Enabled(context.Background(), slog.LevelDebug) {
		c.log.Debug(msg, "key", key, "add", add, "del", del)
	}
}

package expectations

import (
	"context"
	"log/slog"
	"math"
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
	// names holds the names whose creation is still expected (set by
	// ExpectCreationsOf; nil or empty otherwise). Observing a name
	// removes it, so it counts once however often it is observed.
	names map[string]struct{}
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
	r := c.replaceLocked(key, now)
	r.add, r.del = add, del
	c.mu.Unlock()
	c.debug("expectations: set", key, add, del)
}

// replaceLocked replaces key's record by an empty one set at now and
// returns it. The record struct and its sets are reused (emptied), so
// steady-state replacements do not allocate.
func (c *core) replaceLocked(key string, now time.Time) *record {
	r := c.records[key]
	if r == nil {
		r = new(record)
		c.records[key] = r
	}
	uids, names := r.uids, r.names
	clear(uids)
	clear(names)
	*r = record{at: now, uids: uids, names: names}
	return r
}

// expectNames replaces key's record by one expecting the creation of each
// distinct name in names (and no deletions), set at now.
func (c *core) expectNames(key string, names []string, now time.Time) {
	c.mu.Lock()
	r := c.replaceLocked(key, now)
	if r.names == nil {
		r.names = make(map[string]struct{}, len(names))
	}
	for _, n := range names {
		r.names[n] = struct{}{}
	}
	r.add = len(r.names)
	add := r.add
	c.mu.Unlock()
	c.debug("expectations: set", key, add, 0)
}

// observeName records the creation (or the deletion, which implies it)
// of the object named name for key. Only a name that key's record still
// expects lowers the creation count, and it is then forgotten. It reports
// whether the observation counted.
func (c *core) observeName(key, name string) bool {
	c.mu.Lock()
	r := c.records[key]
	var ok bool
	var add, del int
	if r != nil {
		if _, ok = r.names[name]; ok {
			delete(r.names, name)
			r.add = satAdd(r.add, -1)
			add, del = r.add, r.del
		}
	}
	c.mu.Unlock()
	if ok {
		c.debug("expectations: adjusted", key, add, del)
	}
	return ok
}

// expectUIDs replaces key's record by one expecting the deletion of each
// distinct UID in uids (and no creations), set at now.
func (c *core) expectUIDs(key string, uids []string, now time.Time) {
	c.mu.Lock()
	r := c.records[key]
	clobbered := len(r.uidsOrNil())
	r = c.replaceLocked(key, now)
	if r.uids == nil {
		r.uids = make(map[string]struct{}, len(uids))
	}
	for _, u := range uids {
		r.uids[u] = struct{}{}
	}
	n := len(r.uids)
	r.del = n
	c.mu.Unlock()
	if clobbered > 0 {
		// Expectations are normally replaced only once satisfied, so
		// pending UIDs here mean the previous record expired or the
		// caller skipped the Satisfied check.
		c.log.Warn("expectations: replacing pending UID deletions", "key", key, "pending", clobbered)
	}
	c.debug("expectations: set", key, 0, n)
}

// adjust adds add and del to key's counts (sign -1: subtracts them),
// saturating at math.MaxInt and math.MinInt instead of wrapping around. It
// does nothing when key has no record: there is nothing to wait for, and a
// late observation (say, of a deleted owner's child) must not conjure one
// up.
func (c *core) adjust(key string, add, del, sign int) {
	c.mu.Lock()
	r := c.records[key]
	if r != nil {
		if sign < 0 {
			r.add, r.del = satSub(r.add, add), satSub(r.del, del)
		} else {
			r.add, r.del = satAdd(r.add, add), satAdd(r.del, del)
		}
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
		r.del = satAdd(r.del, -1)
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
	_, waiting := c.remaining(key, now)
	return !waiting
}

// remaining reports whether key's controller must still wait at now and,
// if so, how long until the record expires: the first instant it is more
// than the TTL old, so never less than 1ns. An expired record is logged
// and counted the first time it is seen expired.
func (c *core) remaining(key string, now time.Time) (time.Duration, bool) {
	c.mu.Lock()
	r := c.records[key]
	v := decide(r, now, c.ttl)
	var left time.Duration
	if v == waiting {
		left = r.at.Add(c.ttl).Sub(now) + time.Nanosecond
	}
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
	return left, v == waiting
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

// pendingNames returns the names key still expects to see created, sorted.
func (c *core) pendingNames(key string) []string {
	c.mu.Lock()
	var set map[string]struct{}
	if r := c.records[key]; r != nil {
		set = r.names
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	c.mu.Unlock()
	slices.Sort(out)
	return out
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

// satAdd is a + b, saturating at math.MaxInt and math.MinInt.
func satAdd(a, b int) int {
	switch {
	case b > 0 && a > math.MaxInt-b:
		return math.MaxInt
	case b < 0 && a < math.MinInt-b:
		return math.MinInt
	}
	return a + b
}

// satSub is a - b, saturating at math.MaxInt and math.MinInt.
func satSub(a, b int) int {
	switch {
	case b < 0 && a > math.MaxInt+b:
		return math.MaxInt
	case b > 0 && a < math.MinInt+b:
		return math.MinInt
	}
	return a - b
}

// debug logs a record's counts at debug level. The Enabled check keeps
// the hot paths free of allocations when debug logging is off.
func (c *core) debug(msg, key string, add, del int) {
	if c.log.Enabled(context.Background(), slog.LevelDebug) {
		c.log.Debug(msg, "key", key, "add", add, "del", del)
	}
}

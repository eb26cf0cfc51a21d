package events

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"time"
)

// digest is a 128-bit keyed hash standing for a string of parts: the
// Broadcaster's caches are keyed by digests of an event's parts rather
// than by the parts joined into a new string, which would copy every
// part (the message too) into each cache entry. Two random seeds make
// two independent 64-bit hashes: a lookup in a cache of n entries finds
// the digest of different parts with a chance of n in 2^128 (2^-116 at
// the default 4096), so the caches take a digest for the parts it stands
// for.
type digest [2]uint64

// hasher digests an event's parts. Its zero value is not usable: see
// newHasher. Not safe for concurrent use.
type hasher struct {
	h   [2]maphash.Hash
	buf [8 * 7]byte
}

func newHasher() *hasher {
	var h hasher
	h.h[0].SetSeed(maphash.MakeSeed())
	h.h[1].SetSeed(maphash.MakeSeed())
	return &h
}

// event returns the digest of the object ev is about (its host and
// regarding object: what the rate limit counts) and of the event itself
// (the object, type, reason and message: what repeats are counted by).
// Each digest hashes its parts' lengths before the parts, so that no
// two different lists of parts write the same bytes.
func (d *hasher) event(ev *Event) (object, event digest) {
	r := &ev.Regarding
	d.h[0].Reset()
	d.h[1].Reset()
	d.strings(ev.Host, r.APIVersion, r.Kind, r.Namespace, r.Name, r.UID, r.FieldPath)
	object = digest{d.h[0].Sum64(), d.h[1].Sum64()}
	d.strings(string(ev.Type), ev.Reason, ev.Message)
	return object, digest{d.h[0].Sum64(), d.h[1].Sum64()}
}

// strings writes the lengths of parts (at most 7), then the parts, to
// both hashes.
func (d *hasher) strings(parts ...string) {
	b := d.buf[:0]
	for _, p := range parts {
		b = binary.LittleEndian.AppendUint64(b, uint64(len(p)))
	}
	for i := range d.h {
		h := &d.h[i]
		h.Write(b)
		for _, p := range parts {
			h.WriteString(p)
		}
	}
}

// bucket is the token bucket of one object's events: x/time/rate's
// Limiter as the Broadcaster uses it (AllowN(t, 1) at a fixed rate and
// burst), without the Limiter's allocation and lock. A new bucket is
// full: tokens equal to the burst, last zero.
type bucket struct {
	tokens float64
	last   time.Time
}

// allow reports whether an event at t may be written, at limit tokens a
// second up to burst, and takes its token if so; a refused event leaves
// the bucket as it was. The arithmetic is the Limiter's, so that both
// decide alike to the last bit.
func (k *bucket) allow(t time.Time, limit float64, burst int) bool {
	if burst < 1 {
		return false
	}
	last := k.last
	if t.Before(last) {
		last = t
	}
	tokens := k.tokens + t.Sub(last).Seconds()*limit
	if b := float64(burst); tokens > b {
		tokens = b
	}
	tokens--
	if tokens < 0 {
		// The Limiter refuses when the wait for the missing token is
		// a nanosecond or more.
		wait := (-tokens / limit) * float64(time.Second)
		if wait > float64(math.MaxInt64) || time.Duration(wait) > 0 {
			return false
		}
	}
	k.tokens, k.last = tokens, t
	return true
}

// seenEvent is what a Broadcaster remembers of an event it wrote, for
// the next identical one: the rest of the event is the same in both, as
// the digest it is cached under says.
type seenEvent struct {
	name  string
	count int
	first time.Time
}

// internSlots is the size of a Broadcaster's interner; internMax is the
// longest string it keeps.
const (
	internSlots = 512
	internMax   = 256
)

// interner keeps one copy of each recent string, so that the events
// about many objects that share a text — "Container started", the
// field path "spec.containers{web}", each made anew by the recorder for
// every pod — share its bytes in the sink (the cluster store keeps
// them) instead of each holding its own. It is a direct-mapped table
// of internSlots strings: a string takes the slot its hash names, so a
// frequent text keeps its slot while rare ones pass through. A string
// longer than internMax is not kept. Its zero value is ready to use;
// not safe for concurrent use.
type interner struct {
	seed  maphash.Seed
	slots []string // len internSlots once used
}

// intern returns the kept copy of s if there is one, or s, kept.
func (in *interner) intern(s string) string {
	if s == "" || len(s) > internMax {
		return s
	}
	if in.slots == nil {
		in.seed = maphash.MakeSeed()
		in.slots = make([]string, internSlots)
	}
	slot := &in.slots[maphash.String(in.seed, s)%internSlots]
	if *slot == s {
		return *slot
	}
	*slot = s
	return s
}

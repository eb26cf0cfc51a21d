package workqueue

import (
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// model is a deliberately naive restatement of the queue's rules (maps and
// linear scans, no levels, no heaps, no free lists). The core must agree
// with it on every step.
type model struct {
	items map[string]*mItem
	aging int64
	seq   uint64
	lastT int64

	// The clock starts when a second priority shows up.
	clocked   bool
	havePrio  bool
	firstPrio int
}

type mItem struct {
	queued, processing, dirty, waiting bool

	prio    int
	key     int64
	seq     uint64
	readyAt int64
	waitSeq uint64
}

func newModel(aging int64) *model {
	return &model{items: map[string]*mItem{}, aging: aging}
}

func (m *model) stamp(now int64) int64 {
	m.lastT = max(m.lastT, now)
	return m.lastT
}

func (m *model) keyAt(p int, now int64) int64 {
	if m.aging <= 0 {
		return -clampInt64(p)
	}
	if !m.clocked {
		return agedKey(0, p, m.aging)
	}
	return agedKey(m.stamp(now), p, m.aging)
}

func (m *model) notePrio(p int, now int64) {
	switch {
	case m.clocked || m.aging <= 0:
	case !m.havePrio:
		m.havePrio, m.firstPrio = true, p
	case p != m.firstPrio:
		m.clocked = true
		for _, it := range m.items {
			if it.queued {
				it.key = m.keyAt(it.prio, now)
			}
		}
	}
}

func (m *model) push(it *mItem, now int64) {
	m.notePrio(it.prio, now)
	it.queued = true
	it.key = m.keyAt(it.prio, now)
	m.seq++
	it.seq = m.seq
}

func (m *model) wait(it *mItem, at int64) {
	m.seq++
	it.waiting, it.readyAt, it.waitSeq = true, at, m.seq
}

func (m *model) raise(it *mItem, p int, now int64) {
	m.notePrio(p, now)
	key := m.keyAt(p, now)
	if m.aging > 0 && key >= it.key {
		it.prio = p
		return
	}
	it.prio, it.key = p, key
	m.seq++
	it.seq = m.seq
}

func (m *model) add(k string, p int, now int64) {
	it := m.items[k]
	switch {
	case it == nil:
		it = &mItem{prio: p}
		m.items[k] = it
		m.push(it, now)
	case it.queued:
		if p > it.prio {
			m.raise(it, p, now)
		}
	case it.processing && it.dirty:
		it.prio = max(it.prio, p)
	case it.processing && it.waiting:
		it.waiting, it.dirty, it.prio = false, true, max(it.prio, p)
	case it.processing:
		it.dirty, it.prio = true, p
	default: // waiting
		it.waiting, it.prio = false, max(it.prio, p)
		m.push(it, now)
	}
}

func (m *model) addAfter(k string, p int, at, now int64) {
	if at <= now {
		m.add(k, p, now)
		return
	}
	it := m.items[k]
	switch {
	case it == nil:
		it = &mItem{prio: p}
		m.items[k] = it
		m.wait(it, at)
	case it.queued:
		if p > it.prio {
			m.raise(it, p, now)
		}
	case it.dirty:
		it.prio = max(it.prio, p)
	case it.waiting:
		it.prio = max(it.prio, p)
		if at < it.readyAt {
			m.wait(it, at)
		}
	default: // processing
		it.prio = p
		m.wait(it, at)
	}
}

func (m *model) ready() int {
	n := 0
	for _, it := range m.items {
		if it.queued {
			n++
		}
	}
	return n
}

func (m *model) get() (string, int) {
	best := ""
	var b *mItem
	for k, it := range m.items {
		if it.queued && (b == nil || it.key < b.key || it.key == b.key && it.seq < b.seq) {
			best, b = k, it
		}
	}
	b.queued, b.processing = false, true
	return best, b.prio
}

func (m *model) done(k string, now int64) bool {
	it := m.items[k]
	if it == nil || !it.processing {
		return false
	}
	it.processing = false
	switch {
	case it.dirty:
		it.dirty = false
		m.push(it, now)
	case it.waiting:
	default:
		delete(m.items, k)
	}
	return true
}

func (m *model) advance(now int64) {
	var due []string
	for k, it := range m.items {
		if it.waiting && it.readyAt <= now {
			due = append(due, k)
		}
	}
	slices.SortFunc(due, func(a, b string) int {
		x, y := m.items[a], m.items[b]
		if x.readyAt != y.readyAt {
			return int(x.readyAt - y.readyAt)
		}
		return int(x.waitSeq) - int(y.waitSeq)
	})
	for _, k := range due {
		it := m.items[k]
		it.waiting = false
		if it.processing {
			it.dirty = true
		} else {
			m.push(it, now)
		}
	}
}

func (m *model) dropWaiting() {
	for k, it := range m.items {
		if it.waiting {
			it.waiting = false
			if !it.processing {
				delete(m.items, k)
			}
		}
	}
}

// runScript drives a core and the model with the operations encoded in
// script and fails at the first disagreement.
func runScript(t *testing.T, script []byte) {
	t.Helper()
	if len(script) == 0 {
		return
	}
	aging := int64(100)
	if script[0]%2 == 1 {
		aging = 0
	}
	c := &testCore{}
	c.init(aging, nil, func() int64 { return c.t })
	m := newModel(aging)
	next := func(i *int) byte {
		if *i >= len(script) {
			return 0
		}
		*i++
		return script[*i-1]
	}
	names := []string{"a", "b", "c", "d", "e", "f"}
	for i := 1; i < len(script); {
		op := next(&i)
		now := c.t
		if op&0x80 != 0 {
			now = unknownTime // let the core read the clock
		}
		switch op % 8 {
		case 0, 1:
			k, p := names[next(&i)%6], int(next(&i)%5)-2
			c.add(k, p, now)
			m.add(k, p, c.t)
		case 2:
			k, p := names[next(&i)%6], int(next(&i)%5)-2
			at := c.t + int64(next(&i)%8)*50
			c.addAfter(k, p, at, c.t)
			m.addAfter(k, p, at, c.t)
		case 3:
			if m.ready() > 0 {
				k, p := m.get()
				e := c.pop(now)
				require.Equal(t, k, e.item, "get at step %d", i)
				require.Equal(t, p, e.prio, "priority at step %d", i)
			}
		case 4:
			k := names[next(&i)%6]
			require.Equal(t, m.done(k, c.t), c.done(k, now), "done(%s) at step %d", k, i)
		case 5:
			c.t += int64(next(&i)%8) * 40
			c.advance(c.t)
			m.advance(c.t)
		case 6:
			var busy []string
			for k, it := range m.items {
				if it.processing {
					busy = append(busy, k)
				}
			}
			if len(busy) > 0 {
				slices.Sort(busy)
				k := busy[int(next(&i))%len(busy)]
				require.True(t, m.done(k, c.t))
				require.True(t, c.done(k, now))
			}
		case 7:
			if next(&i)%4 == 0 {
				c.dropWaiting()
				m.dropWaiting()
			}
		}
		checkAgainstModel(t, &c.core, m)
	}
}

func checkAgainstModel(t *testing.T, c *core[string], m *model) {
	t.Helper()
	require.Equal(t, m.ready(), c.ready)
	require.Equal(t, len(m.items), c.live())
	for k, e := range c.items {
		if _, ok := m.items[k]; !ok {
			require.Zero(t, e.state, "%s is idle", k)
		}
	}
	busy := 0
	for k, it := range m.items {
		e := c.items[k]
		require.NotNil(t, e, k)
		var want uint8
		if it.queued {
			want |= stQueued
		}
		if it.processing {
			want |= stProcessing
			busy++
		}
		if it.dirty {
			want |= stDirty
		}
		if it.waiting {
			want |= stWaiting
		}
		require.Equal(t, want, e.state, "state of %s", k)
		if it.waiting {
			require.Equal(t, it.readyAt, e.at, k)
		}
	}
	require.Equal(t, busy, c.busy)
	n := 0
	for _, l := range c.active {
		require.Equal(t, l, c.active[l.idx])
		n += l.n
	}
	require.Equal(t, c.ready, n)
}

// FuzzCoreMatchesModel: the core and the naive model agree on every
// operation sequence.
func FuzzCoreMatchesModel(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 0, 2, 3, 3, 3, 6, 0, 6, 0})
	f.Add([]byte{1, 0, 1, 0, 0, 2, 4, 0, 3, 2, 7, 3, 3, 5, 7, 3, 3})
	f.Add([]byte{0, 2, 0, 1, 5, 2, 1, 4, 3, 5, 5, 3, 0, 0, 4, 6, 0, 3, 5, 7, 3, 6, 0})
	f.Add([]byte{0, 3, 0, 0, 1, 3, 2, 0, 1, 3, 0, 1, 0, 3, 130, 3, 131, 134, 0})
	f.Add([]byte{1, 2, 1, 1, 7, 2, 1, 3, 2, 3, 7, 0, 5, 5, 7, 0, 3, 3, 3})
	f.Fuzz(runScript)
}

// TestCoreMatchesModelRandom runs long random scripts with fixed seeds
// (more with CTRLKIT_SOAK=1).
func TestCoreMatchesModelRandom(t *testing.T) {
	seeds := 20
	if os.Getenv("CTRLKIT_SOAK") != "" {
		seeds = 2000
	}
	for seed := range seeds {
		t.Run(strconv.Itoa(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(seed), 5))
			script := make([]byte, 3000)
			for i := range script {
				script[i] = byte(r.Uint32())
			}
			runScript(t, script)
		})
	}
}

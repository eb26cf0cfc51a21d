package reflector_test

import (
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/reflector"
	"github.com/ctrlkit/ctrlkit/source"
)

// byteReader hands out the fuzz input, then zeros.
type byteReader struct{ data []byte }

func (b *byteReader) next() byte {
	if len(b.data) == 0 {
		return 0
	}
	c := b.data[0]
	b.data = b.data[1:]
	return c
}

func (b *byteReader) more() bool { return len(b.data) > 0 }

var fuzzErrs = []error{errBoom, errExpired, source.ErrUnsupported, source.ErrFutureVersion}

// decodeScript turns fuzz input into options, a store and a scripted
// source whose answers include every kind of garbage.
func decodeScript(data []byte) (reflector.Options, *recStore, bool, []listResp, []watchResp) {
	in := &byteReader{data}
	flags := in.next()
	opts := reflector.Options{UseWatchList: flags&1 != 0}
	if flags&4 != 0 {
		opts.PageSize = 2
	}
	if flags&16 != 0 {
		opts.ResyncPeriod = time.Minute
	}
	ordered := flags&2 != 0
	store := newStore()
	var lists []listResp
	var watches []watchResp
	for n := 0; in.more() && n < 40; n++ {
		switch in.next() % 7 {
		case 0:
			l := source.List[item]{ResourceVersion: strconv.Itoa(int(in.next() % 32))}
			for range in.next() % 4 {
				l.Items = append(l.Items, item{Name: string(rune('a' + in.next()%26))})
			}
			switch in.next() % 4 {
			case 0:
				l.Continue = "c" + strconv.Itoa(int(in.next()%3))
			case 1:
				l.ResourceVersion = ""
			}
			lists = append(lists, listResp{list: l})
		case 1:
			lists = append(lists, listResp{err: fuzzErrs[in.next()%4]})
		case 2:
			w := watchResp{open: in.next()&1 != 0, gap: time.Duration(in.next()%3) * 700 * time.Millisecond}
			for range in.next() % 6 {
				tb := in.next()
				e := ev{Type: source.EventType(tb % 7), Object: item{Name: "k" + strconv.Itoa(int(tb>>5))}}
				if tb&0x80 == 0 {
					e.ResourceVersion = strconv.Itoa(int(in.next() % 32))
				}
				e.InitialEventsEnd = tb&0x40 != 0
				if e.Type == source.Error && tb&0x08 != 0 {
					e.Err = fuzzErrs[int(tb>>4)%4]
				}
				w.events = append(w.events, e)
			}
			watches = append(watches, w)
		case 3:
			watches = append(watches, watchResp{err: fuzzErrs[in.next()%4]})
		case 4:
			watches = append(watches, watchResp{nilCh: true})
		case 5:
			lists = append(lists, listResp{block: in.next()%8 == 0, err: errBoom})
		case 6:
			kinds := []string{"add", "update", "delete", "replace", "resync"}
			store.failNext(kinds[in.next()%5], errBoom)
		}
	}
	return opts, store, ordered, lists, watches
}

// FuzzReflector drives a reflector with arbitrary scripted sources and
// stores: it must never panic, must stop on cancel with nothing leaked,
// must hand the store only changes with a resourceVersion, never older
// ones when the source orders them, and must report as last synced
// version the one of its last store call.
func FuzzReflector(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte{2, 0, 10, 2, 1, 2, 1, 0, 3, 65, 4, 1, 200, 3, 9})
	f.Add([]byte{1, 2, 0, 0, 3, 1, 5, 0x44, 7, 2, 1, 0, 1, 3})
	f.Add([]byte{3, 2, 1, 0, 4, 0x01, 12, 0x04, 11, 0x06, 3, 1, 1, 0, 1})
	f.Add([]byte{6, 0, 5, 2, 0, 1, 0, 7, 2, 0, 0, 6, 1, 2, 0, 0, 3, 0x01, 9, 0x82, 0x0e})
	f.Add([]byte{19, 6, 4, 6, 1, 0, 4, 0, 1, 2, 1, 1, 2, 0x02, 12, 0x03, 11, 5, 0})
	f.Add([]byte{17, 4, 3, 0, 2, 1, 1, 0x41, 4, 2, 1, 0, 3, 0x14, 8, 0x0d, 0x46, 6, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		opts, store, ordered, lists, watches := decodeScript(data)
		synctest.Test(t, func(t *testing.T) {
			lw := newLW(lists, watches)
			var src source.ListWatcher[item] = lw
			if ordered {
				src = orderedLW{lw}
			}
			h := start(t, src, store, opts)
			time.Sleep(time.Hour)
			synctest.Wait()
			h.stop(t)
			checkStoreHistory(t, store.Ops(), ordered, h.r.LastSyncResourceVersion())
		})
	})
}

func checkStoreHistory(t *testing.T, ops []string, ordered bool, lastSync string) {
	t.Helper()
	floor, last := -1, ""
	for _, op := range ops {
		if op == "resync" {
			continue
		}
		_, rv, ok := strings.Cut(op, " @")
		require.True(t, ok, op)
		require.NotEmpty(t, rv, "store got a change without resourceVersion: %v", ops)
		last = rv
		n, err := strconv.Atoi(rv)
		require.NoError(t, err)
		if strings.HasPrefix(op, "replace") {
			floor = n // a relist may go back in time only when the old version is gone
			continue
		}
		if ordered {
			assert.GreaterOrEqual(t, n, floor, "time travel in %v", ops)
		}
		floor = max(floor, n)
	}
	assert.Equal(t, last, lastSync, "ops %v", ops)
}

package reflector_test

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"

	"github.com/ctrlkit/ctrlkit/reflector"
)

// ProcessTotals counts a relist after an expired watch, and neither the
// first sync nor a watch that ends cleanly. (No test of this package
// runs in parallel, and each bubble's reflector has stopped before the
// next test starts: the deltas are exact.)
func TestProcessTotalsCountRelistsAndExpiries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		before := reflector.ProcessTotals()
		lw := newLW([]listResp{listOK(10), listOK(12, "a")},
			[]watchResp{{events: []ev{added("a", 11), errEvent(errExpired)}}})
		h := start(t, lw, newStore(), reflector.Options{})
		synctest.Wait()
		after := reflector.ProcessTotals()
		h.stop(t)
		assert.Equal(t, int64(1), after.Relists-before.Relists, "relists")
		assert.Equal(t, int64(1), after.Expired-before.Expired, "expiries")
		assert.Equal(t, 1, h.metrics.Expired.get())
	})
}

func TestProcessTotalsIgnoreTheFirstSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		before := reflector.ProcessTotals()
		lw := newLW([]listResp{listOK(10)}, []watchResp{{events: []ev{added("a", 11)}}})
		h := start(t, lw, newStore(), reflector.Options{})
		synctest.Wait()
		after := reflector.ProcessTotals()
		h.stop(t)
		assert.Equal(t, reflector.Totals{}, reflector.Totals{Relists: after.Relists - before.Relists, Expired: after.Expired - before.Expired})
	})
}

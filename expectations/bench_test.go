package expectations_test

import (
	"fmt"
	"math"
	"sync/atomic"
	"testing"

	"github.com/ctrlkit/ctrlkit/expectations"
)

func benchExpectations(b *testing.B) *expectations.Expectations {
	e, err := expectations.New(expectations.Options{Logger: discard})
	if err != nil {
		b.Fatal(err)
	}
	return e
}

func BenchmarkCreationObserved(b *testing.B) {
	e := benchExpectations(b)
	e.ExpectCreations(rcKey, math.MaxInt32)
	b.ReportAllocs()
	for b.Loop() {
		e.CreationObserved(rcKey)
	}
}

func BenchmarkSatisfied(b *testing.B) {
	e := benchExpectations(b)
	e.ExpectCreations(rcKey, 1)
	b.ReportAllocs()
	for b.Loop() {
		e.Satisfied(rcKey)
	}
}

func BenchmarkExpectCreations(b *testing.B) {
	e := benchExpectations(b)
	b.ReportAllocs()
	for b.Loop() {
		e.ExpectCreations(rcKey, 3)
	}
}

// BenchmarkUIDTrackingRound is one scale-down round of 10 pods: expect
// their deletions, observe each twice (deletion timestamp, then delete),
// check Satisfied.
func BenchmarkUIDTrackingRound(b *testing.B) {
	u, err := expectations.NewUIDTracking(expectations.Options{Logger: discard})
	if err != nil {
		b.Fatal(err)
	}
	uids := make([]string, 10)
	for i := range uids {
		uids[i] = fmt.Sprintf("uid-%d", i)
	}
	b.ReportAllocs()
	for b.Loop() {
		u.ExpectDeletions(rcKey, uids)
		for _, id := range uids {
			u.DeletionObserved(rcKey, id)
			u.DeletionObserved(rcKey, id)
		}
		if !u.Satisfied(rcKey) {
			b.Fatal("not satisfied")
		}
	}
}

// BenchmarkObserveParallel: informer handlers of many owners at once.
func BenchmarkObserveParallel(b *testing.B) {
	e := benchExpectations(b)
	keys := make([]string, 64)
	for i := range keys {
		keys[i] = fmt.Sprintf("default/rs-%d", i)
		e.ExpectCreations(keys[i], math.MaxInt32)
	}
	var next atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := int(next.Add(1))
		for pb.Next() {
			k := keys[i%len(keys)]
			e.CreationObserved(k)
			e.Satisfied(k)
			i++
		}
	})
}

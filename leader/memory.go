package leader

import (
	"context"
	"sync"
)

// Memory is an Elector within one process: every Run (or Campaign) on the
// same Memory competes for one seat. It is a perfect lock: a new term
// starts only after the previous one has been resigned, so two fns given
// to Run on one Memory never run at once. Depose simulates the loss of
// leadership.
//
// A Memory is safe for concurrent use. The zero value is not usable;
// create one with NewMemory.
type Memory struct {
	mu sync.Mutex
	// holder is the term that holds the seat, nil when free. Guarded by mu.
	holder *memoryTerm
	// released is closed (and replaced) when the seat is freed, to wake
	// the campaigners. Guarded by mu.
	released chan struct{}
}

// NewMemory returns a Memory with its seat free.
func NewMemory() *Memory {
	return &Memory{released: make(chan struct{})}
}

// Campaign implements Elector: it takes the seat as soon as it is free,
// or returns ctx.Err() when ctx ends first.
func (m *Memory) Campaign(ctx context.Context) (Term, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m.mu.Lock()
		if m.holder == nil {
			t := &memoryTerm{m: m, done: make(chan struct{})}
			m.holder = t
			m.mu.Unlock()
			return t, nil
		}
		wait := m.released
		m.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Depose ends the current term, as a lost lease would: its Done channel
// closes. The seat stays taken until the term is resigned (leader.Run
// resigns once its fn has returned). Depose reports whether there was a
// term to end.
func (m *Memory) Depose() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.holder == nil {
		return false
	}
	m.holder.endLocked()
	return true
}

// Leading reports whether a term holds the seat (it may already have been
// deposed but not yet resigned).
func (m *Memory) Leading() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.holder != nil
}

// memoryTerm is one term of a Memory.
type memoryTerm struct {
	m *Memory
	// done is closed when the term ends. Closed under m.mu.
	done chan struct{}
	// ended reports that done is closed. Guarded by m.mu.
	ended bool
}

func (t *memoryTerm) Done() <-chan struct{} { return t.done }

// Resign ends the term and frees the seat. It never fails.
func (t *memoryTerm) Resign(context.Context) error {
	m := t.m
	m.mu.Lock()
	defer m.mu.Unlock()
	t.endLocked()
	if m.holder == t {
		m.holder = nil
		close(m.released)
		m.released = make(chan struct{})
	}
	return nil
}

func (t *memoryTerm) endLocked() {
	if !t.ended {
		t.ended = true
		close(t.done)
	}
}

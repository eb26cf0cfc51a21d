package leader

import (
	"context"
	"errors"
	"slices"
	"sync"
)

// Memory is an Elector within one process: every Run (or Campaign) on the
// same Memory competes for one seat. It is a perfect lock: a new term
// starts only after the previous one has been resigned, so two fns given
// to Run on one Memory never run at once. Campaigners get the seat in the
// order they asked for it. Depose simulates the loss of leadership.
//
// A Memory is safe for concurrent use. The zero value is not usable;
// create one with NewMemory.
type Memory struct {
	mu sync.Mutex
	// holder is the term that holds the seat, nil when free. Guarded by mu.
	holder *memoryTerm
	// waiters are the campaigners waiting for the seat, oldest first; a
	// freed seat goes straight to the first. Guarded by mu.
	waiters []chan *memoryTerm
}

// NewMemory returns a Memory with its seat free.
func NewMemory() *Memory {
	return &Memory{}
}

// Campaign implements Elector: it takes the seat as soon as it is free
// and every earlier campaigner has had it, or returns ctx.Err() when ctx
// ends first. A nil ctx is an error.
func (m *Memory) Campaign(ctx context.Context) (Term, error) {
	if ctx == nil {
		return nil, errors.New("leader: Memory.Campaign: context is nil")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	if m.holder == nil && len(m.waiters) == 0 {
		t := m.grantLocked()
		m.mu.Unlock()
		return t, nil
	}
	ch := make(chan *memoryTerm, 1)
	m.waiters = append(m.waiters, ch)
	m.mu.Unlock()
	select {
	case t := <-ch:
		return t, nil
	case <-ctx.Done():
	}
	m.mu.Lock()
	if i := slices.Index(m.waiters, ch); i >= 0 {
		m.waiters = slices.Delete(m.waiters, i, i+1)
		m.mu.Unlock()
		return nil, ctx.Err()
	}
	m.mu.Unlock()
	// The seat was handed over as ctx ended: pass it on.
	_ = (<-ch).Resign(context.Background())
	return nil, ctx.Err()
}

// grantLocked gives the free seat to a new term.
func (m *Memory) grantLocked() *memoryTerm {
	t := &memoryTerm{m: m, done: make(chan struct{})}
	m.holder = t
	return t
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

// Resign ends the term and frees the seat. Its only error is a nil ctx,
// which, as everywhere, changes nothing.
func (t *memoryTerm) Resign(ctx context.Context) error {
	if ctx == nil {
		return errors.New("leader: Resign: context is nil")
	}
	m := t.m
	m.mu.Lock()
	defer m.mu.Unlock()
	t.endLocked()
	if m.holder == t {
		m.holder = nil
		if len(m.waiters) > 0 {
			next := m.waiters[0]
			m.waiters = m.waiters[1:]
			next <- m.grantLocked()
		}
	}
	return nil
}

func (t *memoryTerm) endLocked() {
	if !t.ended {
		t.ended = true
		close(t.done)
	}
}

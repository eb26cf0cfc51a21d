package metrics

// Counter is a metric that only goes up.
type Counter interface {
	// Inc adds one.
	Inc()
}

// Gauge is a metric that is set to a value.
type Gauge interface {
	// Set sets the gauge to v.
	Set(v float64)
}

// Histogram observes a distribution of values (in ctrlkit, always
// seconds).
type Histogram interface {
	// Observe records one value.
	Observe(v float64)
}

// Nop is an instrument that records nothing. Packages put it in place of
// nil fields, so that their hot paths need no nil checks.
type Nop struct{}

// Inc does nothing.
func (Nop) Inc() {}

// Set does nothing.
func (Nop) Set(float64) {}

// Observe does nothing.
func (Nop) Observe(float64) {}

// Or returns c, or Nop when c is nil and I is an interface Nop
// implements (Counter, Gauge, Histogram); otherwise c unchanged.
func Or[I any](c I) I {
	if any(c) != nil {
		return c
	}
	if n, ok := any(Nop{}).(I); ok {
		return n
	}
	return c
}

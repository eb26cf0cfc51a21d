package events

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Type says whether an event is routine or calls for attention.
type Type string

// The event types, as in Kubernetes.
const (
	// Normal is routine: an action the controller took.
	Normal Type = "Normal"
	// Warning is something a person may want to look at.
	Warning Type = "Warning"
)

// Ref names the object an event is about: the fields of Kubernetes'
// ObjectReference that identify it.
type Ref struct {
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
	UID        string
	// FieldPath names the part of the object the event is about, as an
	// ObjectReference's fieldPath: the kubelet's container events carry
	// "spec.containers{web}". Empty for the whole object.
	FieldPath string
}

// Event is one recorded event, as a Sink receives it.
type Event struct {
	// Name is the event's own name, unique per regarding object and
	// first occurrence ("<object name>.<hex nanoseconds>", as client-go
	// names them). One recorder never makes a name twice (a suffix is
	// one more than the last when time has not moved); a Broadcaster
	// whose sink finds a name taken by another recorder takes the next.
	// Namespace is the regarding object's ("default" for a cluster-scoped
	// one).
	Name, Namespace string
	// Regarding is the object the event is about.
	Regarding Ref
	// Type is Normal or Warning.
	Type Type
	// Reason is a short UpperCamelCase word: why the event happened.
	Reason string
	// Message is what happened, for a person.
	Message string
	// Component is the reporting component (Options.Component).
	Component string
	// Host is the host the component runs on (Options.Host); "" for none.
	Host string
	// Count is how many times this very event happened.
	Count int
	// First and Last are when it happened first and last.
	First, Last time.Time
}

// String returns the event as client-go's FakeRecorder prints it:
// "<type> <reason> <message>".
func (e Event) String() string { return string(e.Type) + " " + e.Reason + " " + e.Message }

// Recorder records events about objects.
type Recorder interface {
	// Event records an event about regarding.
	Event(regarding Ref, typ Type, reason, message string)
	// Eventf is Event with a fmt.Sprintf message.
	Eventf(regarding Ref, typ Type, reason, format string, args ...any)
}

// Memory is a Recorder that keeps every event, in order, for tests to
// assert. Its zero value is ready to use.
type Memory struct {
	names  namer
	mu     sync.Mutex
	events []Event // guarded by mu
}

// NewMemory returns an empty Memory.
func NewMemory() *Memory { return &Memory{} }

// Event implements Recorder.
func (m *Memory) Event(regarding Ref, typ Type, reason, message string) {
	now := time.Now()
	ev := newEvent(regarding, typ, reason, message, "", now, m.names.suffix(now))
	m.mu.Lock()
	defer m.mu.Unlock()
	m.events = append(m.events, ev)
}

// Eventf implements Recorder.
func (m *Memory) Eventf(regarding Ref, typ Type, reason, format string, args ...any) {
	m.Event(regarding, typ, reason, fmt.Sprintf(format, args...))
}

// Events returns a copy of the events recorded so far.
func (m *Memory) Events() []Event {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.events)
}

// Strings returns the events recorded so far as Event.String prints
// them.
func (m *Memory) Strings() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, len(m.events))
	for i, e := range m.events {
		out[i] = e.String()
	}
	return out
}

// NewLog returns a Recorder that writes every event to logger (at info
// level for Normal, warning for Warning), attributed to component, and
// keeps nothing. A nil logger is slog.Default().
func NewLog(logger *slog.Logger, component string) Recorder {
	if logger == nil {
		logger = slog.Default()
	}
	return logRecorder{logger: logger, component: component}
}

type logRecorder struct {
	logger    *slog.Logger
	component string
}

func (l logRecorder) Event(regarding Ref, typ Type, reason, message string) {
	level := slog.LevelInfo
	if typ == Warning {
		level = slog.LevelWarn
	}
	l.logger.Log(context.Background(), level, "events: "+reason+": "+message,
		"component", l.component, "type", string(typ), "kind", regarding.Kind,
		"namespace", regarding.Namespace, "name", regarding.Name)
}

func (l logRecorder) Eventf(regarding Ref, typ Type, reason, format string, args ...any) {
	l.Event(regarding, typ, reason, fmt.Sprintf(format, args...))
}

// namer makes the suffixes of one recorder's event names strictly
// increasing, so that two events about one object recorded at the same
// instant — common in a testing/synctest bubble, where time stands
// still — still get distinct names. Each recorder has its own: what one
// recorder names never depends on another (two recorders writing to one
// sink resolve a taken name there; see Broadcaster). Its zero value is
// ready to use and it is safe for concurrent use.
type namer struct {
	last atomic.Int64
}

// suffix returns the suffix of a name made at now: now's nanoseconds, or
// one more than the last suffix this namer made if that is not smaller.
func (n *namer) suffix(now time.Time) int64 {
	ns := now.UnixNano()
	for {
		last := n.last.Load()
		next := max(ns, last+1)
		if n.last.CompareAndSwap(last, next) {
			return next
		}
	}
}

// newEvent builds the first occurrence of an event at now, named as
// client-go names it: "<object>.<hex nanoseconds>".
func newEvent(regarding Ref, typ Type, reason, message, component string, now time.Time, suffix int64) Event {
	ns := regarding.Namespace
	if ns == "" {
		ns = "default"
	}
	return Event{
		Name:      eventName(regarding.Name, suffix),
		Namespace: ns,
		Regarding: regarding, Type: typ, Reason: reason, Message: message,
		Component: component, Count: 1, First: now, Last: now,
	}
}

// eventName is client-go's name of an event: "<object>.<hex suffix>",
// built in one allocation.
func eventName(object string, suffix int64) string {
	var buf [17]byte // a sign and 16 hex digits
	return object + "." + string(strconv.AppendInt(buf[:0], suffix, 16))
}

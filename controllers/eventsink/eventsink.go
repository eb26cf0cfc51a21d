package eventsink

import (
	"context"
	"errors"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/source"
)

// Sink is an events.Sink over a writer of Event objects.
type Sink struct {
	w source.Writer[*api.Event]
}

// New returns a Sink that writes through w.
func New(w source.Writer[*api.Event]) *Sink { return &Sink{w: w} }

var _ events.Sink = (*Sink)(nil)

// Create implements events.Sink: it creates the Event object of ev.
func (s *Sink) Create(ctx context.Context, ev events.Event) error {
	_, err := s.w.Create(ctx, Object(ev))
	return err
}

// Update implements events.Sink: it writes ev's count and last time into
// the Event object created for it, unconditionally (a repeated event
// wins over a concurrent writer, as client-go's patch does), and creates
// it again if it is gone.
func (s *Sink) Update(ctx context.Context, ev events.Event) error {
	_, err := s.w.Update(ctx, Object(ev), "")
	if errors.Is(err, source.ErrNotFound) {
		_, err = s.w.Create(ctx, Object(ev))
	}
	return err
}

// Object returns the Event object that records ev.
func Object(ev events.Event) *api.Event {
	r := ev.Regarding
	return &api.Event{
		TypeMeta:   api.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta: api.ObjectMeta{Name: ev.Name, Namespace: ev.Namespace},
		InvolvedObject: api.ObjectReference{
			APIVersion: r.APIVersion, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name, UID: api.UID(r.UID),
			FieldPath: r.FieldPath,
		},
		Reason:              ev.Reason,
		Message:             ev.Message,
		Source:              api.EventSource{Component: ev.Component, Host: ev.Host},
		FirstTimestamp:      api.NewTime(ev.First),
		LastTimestamp:       api.NewTime(ev.Last),
		Count:               int32(ev.Count),
		Type:                string(ev.Type),
		ReportingController: ev.Component,
		ReportingInstance:   ev.Host,
	}
}

package cronjob

import (
	"context"
	"fmt"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
)

// ValidateSchedule reports whether a cron job's schedule and time zone
// are valid, as kube-apiserver's validation does: the schedule parses
// (ParseSchedule) and spec.timeZone, when set, names a zone the time
// zone database knows. Errors wrap ErrInvalidSchedule.
//
// kube-apiserver (1.27 and later) also rejects a TZ= or CRON_TZ= prefix
// in a new cron job's schedule in favour of spec.timeZone; this function
// accepts it, as the controller still honours it.
func ValidateSchedule(schedule string, timeZone *string) error {
	if _, err := ParseSchedule(schedule); err != nil {
		return err
	}
	if timeZone != nil {
		if _, err := time.LoadLocation(*timeZone); err != nil {
			return fmt.Errorf("cronjob: %w: unknown time zone %q: %v", ErrInvalidSchedule, *timeZone, err)
		}
	}
	return nil
}

// Admission is a validating admission plugin (admission.ValidatingFunc)
// that rejects cron jobs whose
// schedule or time zone is invalid (ValidateSchedule) on create and on
// spec updates:
//
//	c, err := cluster.New(ctx, cluster.Options{Admission: []admission.ValidatingFunc{cronjob.Admission}})
//
// Its error is a *client.InvalidError with the field spec.schedule (or
// spec.timeZone), as kube-apiserver's 422 Invalid, that also wraps
// ErrInvalidSchedule.
func Admission(_ context.Context, a admission.Attributes) error {
	cj, ok := a.Object.(*api.CronJob)
	if !ok || a.Subresource != "" {
		return nil
	}
	field, value := "spec.schedule", cj.Spec.Schedule
	err := ValidateSchedule(cj.Spec.Schedule, nil)
	if err == nil && cj.Spec.TimeZone != nil {
		field, value = "spec.timeZone", *cj.Spec.TimeZone
		err = ValidateSchedule(cj.Spec.Schedule, cj.Spec.TimeZone)
	}
	if err != nil {
		inv := &client.InvalidError{Resource: a.Resource, Name: cj.Name,
			Errors: []client.FieldError{{Type: client.FieldInvalid, Field: field, Value: value, Detail: err.Error()}}}
		return invalidSchedule{inv, err}
	}
	return nil
}

// invalidSchedule is Admission's error: the field error, and the
// schedule's error for errors.Is(err, ErrInvalidSchedule).
type invalidSchedule struct {
	inv   *client.InvalidError
	cause error
}

func (e invalidSchedule) Error() string   { return e.inv.Error() }
func (e invalidSchedule) Unwrap() []error { return []error{e.inv, e.cause} }

var _ admission.ValidatingFunc = Admission

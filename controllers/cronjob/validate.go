package cronjob

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
)

// ValidateSchedule reports whether a cron job's schedule and time zone
// are valid, as kube-apiserver's validation does: it is
// api.ValidateCronSchedule, which the in-process cluster's validation
// also runs. Errors wrap ErrInvalidSchedule and an *api.CronScheduleError
// naming the field at fault.
func ValidateSchedule(schedule string, timeZone *string) error {
	if err := api.ValidateCronSchedule(schedule, timeZone); err != nil {
		return fmt.Errorf("cronjob: %w", err)
	}
	return nil
}

// Admission is a validating admission plugin (admission.ValidatingFunc)
// that rejects cron jobs whose schedule or time zone is invalid
// (ValidateSchedule) on create and on spec updates, for a server whose
// own validation does not check schedules (the in-process cluster's
// does, so there it only repeats it). As kube-apiserver since 1.27, it
// also refuses a TZ= or CRON_TZ= prefix in a new cron job's schedule ("use
// timeZone field instead"); an update may keep a prefix the stored
// schedule already had, but not add spec.timeZone beside it:
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
	err := ValidateSchedule(cj.Spec.Schedule, cj.Spec.TimeZone)
	if err == nil {
		old, _ := a.OldObject.(*api.CronJob)
		err = tzInSchedule(cj, old)
	}
	if err == nil {
		return nil
	}
	field, value := "spec.schedule", cj.Spec.Schedule
	if se := (*api.CronScheduleError)(nil); errors.As(err, &se) {
		field, value = se.Field, se.Value
	}
	inv := &client.InvalidError{Resource: a.Resource, Name: cj.Name,
		Errors: []client.FieldError{{Type: client.FieldInvalid, Field: field, Value: value, Detail: err.Error()}}}
	return invalidSchedule{inv, err}
}

// tzInSchedule is kube-apiserver's rule for a TZ= or CRON_TZ= prefix
// (pkg/apis/batch/validation, validateScheduleFormat): refused in a new
// cron job, and in an update unless the stored schedule had one already
// (then only together with spec.timeZone is it refused).
func tzInSchedule(cj, old *api.CronJob) error {
	if !strings.Contains(cj.Spec.Schedule, "TZ") {
		return nil
	}
	allow := old != nil && strings.Contains(old.Spec.Schedule, "TZ")
	var msg string
	switch {
	case allow && cj.Spec.TimeZone != nil:
		msg = "cannot use both timeZone field and TZ or CRON_TZ in schedule"
	case !allow:
		msg = "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"
	default:
		return nil
	}
	return &api.CronScheduleError{Field: "spec.schedule", Value: cj.Spec.Schedule,
		Err: fmt.Errorf("%w: %s", ErrInvalidSchedule, msg)}
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

package api

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// CronSchedule is a parsed cron schedule (a CronJob's spec.schedule):
// the five fields minute, hour, day of month, month and day of week, a
// descriptor (@hourly …) or a constant delay (@every 90m), optionally in
// the time zone a CRON_TZ= or TZ= prefix names. It follows the standard parser kube-controller-manager
// uses (robfig/cron v3's ParseStandard); the code is our own.
//
// A CronSchedule is immutable and safe for concurrent use.
type CronSchedule struct {
	minute, hour, dom, month, dow uint64 // bit i set: value i matches
	domStar, dowStar              bool   // the field was * or ? (without a step > 1)
	every                         time.Duration
	loc                           *time.Location // from CRON_TZ=; nil: the caller's
}

// ErrInvalidCronSchedule is wrapped by every error ParseCronSchedule and
// ValidateCronSchedule return.
var ErrInvalidCronSchedule = errors.New("invalid schedule")

// CronScheduleError is the error of ValidateCronSchedule: the field of
// the CronJob at fault ("spec.schedule" or "spec.timeZone") and its
// value, for a field error, and the reason, which wraps
// ErrInvalidCronSchedule.
type CronScheduleError struct {
	// Field is "spec.schedule" or "spec.timeZone".
	Field string
	// Value is the field's value.
	Value string
	// Err says why; errors.Is(Err, ErrInvalidCronSchedule) is true.
	Err error
}

// Error returns the reason.
func (e *CronScheduleError) Error() string { return e.Err.Error() }

// Unwrap returns the reason.
func (e *CronScheduleError) Unwrap() error { return e.Err }

// ValidateCronSchedule reports whether a CronJob's spec.schedule and
// spec.timeZone are valid, as kube-apiserver's validation does: the
// schedule parses (ParseCronSchedule) and timeZone, when set, names a
// zone the time zone database knows (time.LoadLocation). Its error is a
// *CronScheduleError naming the first field at fault — the schedule is
// checked first — and wraps ErrInvalidCronSchedule.
//
// kube-apiserver (1.27 and later) also rejects a TZ= or CRON_TZ= prefix
// in a new cron job's schedule in favour of spec.timeZone; this function
// accepts it, as the CronJob controller still honours it.
func ValidateCronSchedule(schedule string, timeZone *string) error {
	if _, err := ParseCronSchedule(schedule); err != nil {
		return &CronScheduleError{Field: "spec.schedule", Value: schedule, Err: err}
	}
	if timeZone != nil {
		if _, err := time.LoadLocation(*timeZone); err != nil {
			return &CronScheduleError{Field: "spec.timeZone", Value: *timeZone,
				Err: fmt.Errorf("%w: unknown time zone %q: %v", ErrInvalidCronSchedule, *timeZone, err)}
		}
	}
	return nil
}

type cronBounds struct {
	min, max int
	names    map[string]int
}

var (
	cronMinutes = cronBounds{0, 59, nil}
	cronHours   = cronBounds{0, 23, nil}
	cronDoms    = cronBounds{1, 31, nil}
	cronMonths  = cronBounds{1, 12, map[string]int{
		"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
		"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
	}}
	cronDows = cronBounds{0, 6, map[string]int{
		"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6,
	}}
)

// cronDescriptors are the @-shorthands of the standard parser.
var cronDescriptors = map[string]string{
	"@yearly":   "0 0 1 1 *",
	"@annually": "0 0 1 1 *",
	"@monthly":  "0 0 1 * *",
	"@weekly":   "0 0 * * 0",
	"@daily":    "0 0 * * *",
	"@midnight": "0 0 * * *",
	"@hourly":   "0 * * * *",
}

// ParseCronSchedule parses a standard cron schedule: "*/1 * * * *",
// "0 9-17 * * MON-FRI", "@hourly", "@every 1h30m", "CRON_TZ=Asia/Tokyo 0 9 * * *".
// Each field is a comma-separated list of "*", "?", "n", "a-b", with an
// optional "/step" ("n/step" means n to the field's maximum); months and
// days of week also take three-letter English names, case-insensitively.
// When both day of month and day of week are restricted, a day matching
// either matches (cron's rule); when either is "*", both must match.
// Errors wrap ErrInvalidCronSchedule.
func ParseCronSchedule(spec string) (*CronSchedule, error) {
	s, err := parseCron(spec)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %s", ErrInvalidCronSchedule, spec, err)
	}
	return s, nil
}

func parseCron(spec string) (*CronSchedule, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, errors.New("empty spec string")
	}
	var loc *time.Location
	if strings.HasPrefix(spec, "TZ=") || strings.HasPrefix(spec, "CRON_TZ=") {
		eq, sp := strings.Index(spec, "="), strings.Index(spec, " ")
		if sp < 0 {
			return nil, errors.New("time zone without a schedule")
		}
		var err error
		if loc, err = time.LoadLocation(spec[eq+1 : sp]); err != nil {
			return nil, fmt.Errorf("provided bad location %s: %v", spec[eq+1:sp], err)
		}
		spec = strings.TrimSpace(spec[sp:])
	}
	if d, ok := strings.CutPrefix(spec, "@every "); ok {
		every, err := time.ParseDuration(strings.TrimSpace(d))
		if err != nil {
			return nil, fmt.Errorf("failed to parse duration %s: %v", d, err)
		}
		if every < time.Second { // robfig rounds up to a second
			every = time.Second
		}
		return &CronSchedule{every: every.Truncate(time.Second), loc: loc}, nil
	}
	if strings.HasPrefix(spec, "@") {
		d, ok := cronDescriptors[strings.ToLower(spec)]
		if !ok {
			return nil, fmt.Errorf("unrecognized descriptor: %s", spec)
		}
		spec = d
	}
	fields := strings.Fields(spec)
	if len(fields) != 5 {
		return nil, fmt.Errorf("expected exactly 5 fields, found %d: %s", len(fields), spec)
	}
	s := &CronSchedule{loc: loc}
	var err error
	if s.minute, _, err = parseCronField(fields[0], cronMinutes); err != nil {
		return nil, err
	}
	if s.hour, _, err = parseCronField(fields[1], cronHours); err != nil {
		return nil, err
	}
	if s.dom, s.domStar, err = parseCronField(fields[2], cronDoms); err != nil {
		return nil, err
	}
	if s.month, _, err = parseCronField(fields[3], cronMonths); err != nil {
		return nil, err
	}
	if s.dow, s.dowStar, err = parseCronField(fields[4], cronDows); err != nil {
		return nil, err
	}
	return s, nil
}

// parseCronField returns the bit set of a comma-separated field and whether
// one of its ranges was a star without a step > 1.
func parseCronField(field string, b cronBounds) (uint64, bool, error) {
	var set uint64
	star := false
	for r := range strings.SplitSeq(field, ",") {
		bitsOf, st, err := parseCronRange(r, b)
		if err != nil {
			return 0, false, err
		}
		set |= bitsOf
		star = star || st
	}
	return set, star, nil
}

func parseCronRange(expr string, b cronBounds) (uint64, bool, error) {
	rangeAndStep := strings.Split(expr, "/")
	lowAndHigh := strings.Split(rangeAndStep[0], "-")
	single := len(lowAndHigh) == 1
	var start, end int
	star := false
	var err error
	if lowAndHigh[0] == "*" || lowAndHigh[0] == "?" {
		if !single {
			return 0, false, fmt.Errorf("invalid range: %s", expr)
		}
		start, end, star = b.min, b.max, true
	} else {
		if start, err = parseCronValue(lowAndHigh[0], b); err != nil {
			return 0, false, err
		}
		switch len(lowAndHigh) {
		case 1:
			end = start
		case 2:
			if end, err = parseCronValue(lowAndHigh[1], b); err != nil {
				return 0, false, err
			}
		default:
			return 0, false, fmt.Errorf("too many hyphens: %s", expr)
		}
	}
	step := 1
	switch len(rangeAndStep) {
	case 1:
	case 2:
		if step, err = strconv.Atoi(rangeAndStep[1]); err != nil {
			return 0, false, fmt.Errorf("failed to parse int from %s: %v", rangeAndStep[1], err)
		}
		if single { // "n/step" is "n-max/step"
			end = b.max
		}
		if step > 1 {
			star = false
		}
	default:
		return 0, false, fmt.Errorf("too many slashes: %s", expr)
	}
	switch {
	case start < b.min:
		return 0, false, fmt.Errorf("beginning of range (%d) below minimum (%d): %s", start, b.min, expr)
	case end > b.max:
		return 0, false, fmt.Errorf("end of range (%d) above maximum (%d): %s", end, b.max, expr)
	case start > end:
		return 0, false, fmt.Errorf("beginning of range (%d) beyond end of range (%d): %s", start, end, expr)
	case step <= 0:
		return 0, false, fmt.Errorf("step of range should be a positive number: %s", expr)
	}
	var set uint64
	for i := start; i <= end; i += step {
		set |= 1 << uint(i)
	}
	return set, star, nil
}

func parseCronValue(v string, b cronBounds) (int, error) {
	if n, ok := b.names[strings.ToLower(v)]; ok {
		return n, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("failed to parse int from %s: %v", v, err)
	}
	if n < 0 {
		return 0, fmt.Errorf("negative number (%d) not allowed: %s", n, v)
	}
	return n, nil
}

// Location returns the time zone of a CRON_TZ= or TZ= prefix, or nil.
func (s *CronSchedule) Location() *time.Location { return s.loc }

// Next returns the first activation strictly after t, in t's location
// (the schedule is evaluated in its CRON_TZ= zone, else in t's), or the
// zero time if none comes within five years (30 February). Activations
// fall on whole minutes; a daylight-saving gap skips the times it
// swallows and an ambiguous hour activates once.
func (s *CronSchedule) Next(t time.Time) time.Time {
	if s.every > 0 {
		return t.Add(s.every - time.Duration(t.Nanosecond())).Truncate(time.Second)
	}
	orig := t.Location()
	loc := orig
	if s.loc != nil {
		loc = s.loc
	}
	t = t.In(loc)
	// The next whole minute after t.
	t = t.Truncate(time.Minute).Add(time.Minute)
	added := false
	yearLimit := t.Year() + 5

wrap:
	if t.Year() > yearLimit {
		return time.Time{}
	}
	for s.month&(1<<uint(t.Month())) == 0 {
		if !added {
			added = true
			t = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, loc)
		}
		t = t.AddDate(0, 1, 0)
		if t.Month() == time.January {
			goto wrap
		}
	}
	for !s.dayMatches(t) {
		if !added {
			added = true
			t = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
		}
		t = t.AddDate(0, 0, 1)
		// Midnight may not exist (a DST gap at 00:00): normalise.
		if t.Hour() != 0 {
			if t.Hour() > 12 {
				t = t.Add(time.Duration(24-t.Hour()) * time.Hour)
			} else {
				t = t.Add(-time.Duration(t.Hour()) * time.Hour)
			}
		}
		if t.Day() == 1 {
			goto wrap
		}
	}
	for s.hour&(1<<uint(t.Hour())) == 0 {
		if !added {
			added = true
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), 0, 0, 0, loc)
		}
		t = t.Add(time.Hour)
		if t.Hour() == 0 {
			goto wrap
		}
	}
	for s.minute&(1<<uint(t.Minute())) == 0 {
		if !added {
			added = true
			t = t.Truncate(time.Minute)
		}
		t = t.Add(time.Minute)
		if t.Minute() == 0 {
			goto wrap
		}
	}
	return t.In(orig)
}

// dayMatches applies cron's day rule: restricted day-of-month and
// day-of-week fields are ORed, otherwise ANDed.
func (s *CronSchedule) dayMatches(t time.Time) bool {
	domMatch := s.dom&(1<<uint(t.Day())) != 0
	dowMatch := s.dow&(1<<uint(t.Weekday())) != 0
	if s.domStar || s.dowStar {
		return domMatch && dowMatch
	}
	return domMatch || dowMatch
}

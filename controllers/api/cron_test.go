package api

import (
	"errors"
	"testing"
	"time"
)

// Ported from robfig/cron v3 spec_test.go (TestActivation), the parser
// kube-controller-manager's cronjob controller uses.
func TestCronScheduleActivation(t *testing.T) {
	tests := []struct {
		time, spec string
		expected   bool
	}{
		// Every fifteen minutes.
		{"Mon Jul 9 15:00 2012", "0/15 * * * *", true},
		{"Mon Jul 9 15:45 2012", "0/15 * * * *", true},
		{"Mon Jul 9 15:40 2012", "0/15 * * * *", false},

		// Every fifteen minutes, starting at 5 minutes.
		{"Mon Jul 9 15:05 2012", "5/15 * * * *", true},
		{"Mon Jul 9 15:20 2012", "5/15 * * * *", true},
		{"Mon Jul 9 15:50 2012", "5/15 * * * *", true},

		// Named months
		{"Sun Jul 15 15:00 2012", "0/15 * * Jul *", true},
		{"Sun Jul 15 15:00 2012", "0/15 * * Jun *", false},

		// Everything set.
		{"Sun Jul 15 08:30 2012", "30 08 ? Jul Sun", true},
		{"Sun Jul 15 08:30 2012", "30 08 15 Jul ?", true},
		{"Mon Jul 16 08:30 2012", "30 08 ? Jul Sun", false},
		{"Mon Jul 16 08:30 2012", "30 08 15 Jul ?", false},

		// Predefined schedules
		{"Mon Jul 9 15:00 2012", "@hourly", true},
		{"Mon Jul 9 15:04 2012", "@hourly", false},
		{"Mon Jul 9 15:00 2012", "@daily", false},
		{"Mon Jul 9 00:00 2012", "@daily", true},
		{"Mon Jul 9 00:00 2012", "@weekly", false},
		{"Sun Jul 8 00:00 2012", "@weekly", true},
		{"Sun Jul 8 01:00 2012", "@weekly", false},
		{"Sun Jul 8 00:00 2012", "@monthly", false},
		{"Sun Jul 1 00:00 2012", "@monthly", true},

		// Test interaction of DOW and DOM.
		// If both are restricted, then only one needs to match.
		{"Sun Jul 15 00:00 2012", "* * 1,15 * Sun", true},
		{"Fri Jun 15 00:00 2012", "* * 1,15 * Sun", true},
		{"Wed Aug 1 00:00 2012", "* * 1,15 * Sun", true},
		{"Sun Jul 15 00:00 2012", "* * */10 * Sun", true}, // verifies #70

		// However, if one has a star, then both need to match.
		{"Sun Jul 15 00:00 2012", "* * * * Mon", false},
		{"Mon Jul 9 00:00 2012", "* * 1,15 * *", false},
		{"Sun Jul 15 00:00 2012", "* * 1,15 * *", true},
		{"Sun Jul 15 00:00 2012", "* * */2 * Sun", true},
	}
	for _, test := range tests {
		sched, err := ParseCronSchedule(test.spec)
		if err != nil {
			t.Fatal(err)
		}
		at := getTime(t, test.time)
		actual := sched.Next(at.Add(-time.Minute))
		if test.expected != actual.Equal(at) {
			t.Errorf("%s, %q: expected %v, got next %v", test.time, test.spec, test.expected, actual)
		}
	}
}

// Ported from robfig/cron v3 spec_test.go (TestNext); its six-field specs
// with a zero seconds field are written here in five fields, the cases
// that need seconds are left out.
func TestCronScheduleNext(t *testing.T) {
	runs := []struct {
		time, spec string
		expected   string
	}{
		// Simple cases
		{"Mon Jul 9 14:45 2012", "0/15 * * * *", "Mon Jul 9 15:00 2012"},
		{"Mon Jul 9 14:59 2012", "0/15 * * * *", "Mon Jul 9 15:00 2012"},
		{"Mon Jul 9 14:59:59 2012", "0/15 * * * *", "Mon Jul 9 15:00 2012"},

		// Wrap around hours
		{"Mon Jul 9 15:45 2012", "20-35/15 * * * *", "Mon Jul 9 16:20 2012"},

		// Wrap around days
		{"Mon Jul 9 23:46 2012", "*/15 * * * *", "Tue Jul 10 00:00 2012"},
		{"Mon Jul 9 23:45 2012", "20-35/15 * * * *", "Tue Jul 10 00:20 2012"},
		{"Mon Jul 9 23:35:51 2012", "20-35/15 * * * *", "Tue Jul 10 00:20 2012"},
		{"Mon Jul 9 23:35:51 2012", "20-35/15 1/2 * * *", "Tue Jul 10 01:20 2012"},
		{"Mon Jul 9 23:35:51 2012", "20-35/15 10-12 * * *", "Tue Jul 10 10:20 2012"},

		{"Mon Jul 9 23:35:51 2012", "20-35/15 1/2 */2 * *", "Thu Jul 11 01:20 2012"},
		{"Mon Jul 9 23:35:51 2012", "20-35/15 * 9-20 * *", "Tue Jul 10 00:20 2012"},
		{"Mon Jul 9 23:35:51 2012", "20-35/15 * 9-20 Jul *", "Tue Jul 10 00:20 2012"},

		// Wrap around months
		{"Mon Jul 9 23:35 2012", "0 0 9 Apr-Oct ?", "Thu Aug 9 00:00 2012"},
		{"Mon Jul 9 23:35 2012", "0 0 */5 Apr,Aug,Oct Mon", "Wed Aug 1 00:00 2012"},
		{"Mon Jul 9 23:35 2012", "0 0 */5 Oct Mon", "Mon Oct 1 00:00 2012"},

		// Wrap around years
		{"Mon Jul 9 23:35 2012", "0 0 * Feb Mon", "Mon Feb 4 00:00 2013"},
		{"Mon Jul 9 23:35 2012", "0 0 * Feb Mon/2", "Fri Feb 1 00:00 2013"},

		// Wrap around minute, hour, day, month, and year
		{"Mon Dec 31 23:59:45 2012", "* * * * *", "Tue Jan 1 00:00:00 2013"},

		// Leap year
		{"Mon Jul 9 23:35 2012", "0 0 29 Feb ?", "Mon Feb 29 00:00 2016"},

		// Daylight savings time 2am EST (-5) -> 3am EDT (-4)
		{"2012-03-11T00:00:00-0500", "30 2 11 Mar ?", "2013-03-11T02:30:00-0400"},

		// hourly job
		{"2012-03-11T00:00:00-0500", "0 * * * ?", "2012-03-11T01:00:00-0500"},
		{"2012-03-11T01:00:00-0500", "0 * * * ?", "2012-03-11T03:00:00-0400"},
		{"2012-03-11T03:00:00-0400", "0 * * * ?", "2012-03-11T04:00:00-0400"},
		{"2012-03-11T04:00:00-0400", "0 * * * ?", "2012-03-11T05:00:00-0400"},

		// hourly job using CRON_TZ
		{"2012-03-11T00:00:00-0500", "CRON_TZ=America/New_York 0 * * * ?", "2012-03-11T01:00:00-0500"},
		{"2012-03-11T01:00:00-0500", "CRON_TZ=America/New_York 0 * * * ?", "2012-03-11T03:00:00-0400"},
		{"2012-03-11T03:00:00-0400", "CRON_TZ=America/New_York 0 * * * ?", "2012-03-11T04:00:00-0400"},
		{"2012-03-11T04:00:00-0400", "CRON_TZ=America/New_York 0 * * * ?", "2012-03-11T05:00:00-0400"},

		// 1am nightly job
		{"2012-03-11T00:00:00-0500", "0 1 * * ?", "2012-03-11T01:00:00-0500"},
		{"2012-03-11T01:00:00-0500", "0 1 * * ?", "2012-03-12T01:00:00-0400"},

		// 2am nightly job (skipped)
		{"2012-03-11T00:00:00-0500", "0 2 * * ?", "2012-03-12T02:00:00-0400"},

		// Daylight savings time 2am EDT (-4) => 1am EST (-5)
		{"2012-11-04T00:00:00-0400", "30 2 04 Nov ?", "2012-11-04T02:30:00-0500"},
		{"2012-11-04T01:45:00-0400", "30 1 04 Nov ?", "2012-11-04T01:30:00-0500"},

		// hourly job
		{"2012-11-04T00:00:00-0400", "0 * * * ?", "2012-11-04T01:00:00-0400"},
		{"2012-11-04T01:00:00-0400", "0 * * * ?", "2012-11-04T01:00:00-0500"},
		{"2012-11-04T01:00:00-0500", "0 * * * ?", "2012-11-04T02:00:00-0500"},

		// 1am nightly job (runs twice)
		{"2012-11-04T00:00:00-0400", "0 1 * * ?", "2012-11-04T01:00:00-0400"},
		{"2012-11-04T01:00:00-0400", "0 1 * * ?", "2012-11-04T01:00:00-0500"},
		{"2012-11-04T01:00:00-0500", "0 1 * * ?", "2012-11-05T01:00:00-0500"},

		// 2am nightly job
		{"2012-11-04T00:00:00-0400", "0 2 * * ?", "2012-11-04T02:00:00-0500"},
		{"2012-11-04T02:00:00-0500", "0 2 * * ?", "2012-11-05T02:00:00-0500"},

		// 3am nightly job
		{"2012-11-04T00:00:00-0400", "0 3 * * ?", "2012-11-04T03:00:00-0500"},
		{"2012-11-04T03:00:00-0500", "0 3 * * ?", "2012-11-05T03:00:00-0500"},

		// Unsatisfiable
		{"Mon Jul 9 23:35 2012", "0 0 30 Feb ?", ""},
		{"Mon Jul 9 23:35 2012", "0 0 31 Apr ?", ""},

		// Monthly job
		{"TZ=America/New_York 2012-11-04T00:00:00-0400", "0 3 3 * ?", "2012-12-03T03:00:00-0500"},
	}
	for _, c := range runs {
		sched, err := ParseCronSchedule(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		actual := sched.Next(getTime(t, c.time))
		expected := getTime(t, c.expected)
		if !actual.Equal(expected) {
			t.Errorf("%s, %q: (expected) %v != %v (actual)", c.time, c.spec, expected, actual)
		}
	}
}

func TestCronScheduleEvery(t *testing.T) {
	s, err := ParseCronSchedule("@every 90m")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2012, 7, 9, 14, 45, 0, 500, time.UTC)
	if got, want := s.Next(at), time.Date(2012, 7, 9, 16, 15, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("Next = %v, want %v", got, want)
	}
}

// Ported from robfig/cron v3 parser_test.go (TestParseScheduleErrors,
// TestStandardSpecSchedule's error cases) and kcm's validation cases.
func TestParseCronScheduleErrors(t *testing.T) {
	tests := []struct{ expr, err string }{
		{"xyz", "expected exactly 5 fields"},
		{"60 0 * * *", "above maximum"},
		{"0 60 * * *", "above maximum"},
		{"0 24 * * *", "above maximum"},
		{"0 0 0 * *", "below minimum"},
		{"0 0 32 * *", "above maximum"},
		{"0 0 * 13 *", "above maximum"},
		{"0 0 * * 7", "above maximum"},
		{"0-3-4 * * * *", "too many hyphens"},
		{"*/0 * * * *", "should be a positive number"},
		{"*/-1 * * * *", "should be a positive number"},
		{"5-1 * * * *", "beyond end of range"},
		{"a * * * *", "failed to parse int from"},
		{"* * * jan-foo *", "failed to parse int from"},
		{"@unrecognized", "unrecognized descriptor"},
		{"* * * *", "expected exactly 5 fields"},
		{"* * * * * *", "expected exactly 5 fields"},
		{"", "empty spec string"},
		{"CRON_TZ=Nowhere/Atlantis * * * * *", "provided bad location"},
		{"@every 5", "failed to parse duration"},
	}
	for _, c := range tests {
		_, err := ParseCronSchedule(c.expr)
		if err == nil || !errors.Is(err, ErrInvalidCronSchedule) || !contains(err.Error(), c.err) {
			t.Errorf("%q: got %v, want an ErrInvalidCronSchedule with %q", c.expr, err, c.err)
		}
	}
	for _, ok := range []string{"*/1 * * * *", "0 9-17 * * MON-FRI", "0 0 1,15 * sun", "@yearly", "@annually",
		"@monthly", "@weekly", "@daily", "@midnight", "@hourly", "TZ=UTC 0 0 * * *", "@every 1h"} {
		if _, err := ParseCronSchedule(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

func contains(s, sub string) bool { return len(sub) == 0 || indexOf(s, sub) >= 0 }

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// getTime is robfig/cron's test helper: "Mon Jul 9 15:00 2012" style
// times in UTC, RFC 3339-like times in America/New_York, an optional
// "TZ=zone " prefix.
func getTime(t *testing.T, value string) time.Time {
	t.Helper()
	if value == "" {
		return time.Time{}
	}
	loc := time.UTC
	if len(value) > 3 && value[:3] == "TZ=" {
		i := indexOf(value, " ")
		var err error
		if loc, err = time.LoadLocation(value[3:i]); err != nil {
			t.Fatalf("location %q: %v", value[3:i], err)
		}
		value = value[i+1:]
	}
	for _, layout := range []string{"Mon Jan 2 15:04 2006", "Mon Jan 2 15:04:05 2006"} {
		if tm, err := time.ParseInLocation(layout, value, loc); err == nil {
			return tm
		}
	}
	if loc == time.UTC {
		var err error
		if loc, err = time.LoadLocation("America/New_York"); err != nil {
			t.Fatal(err)
		}
	}
	for _, layout := range []string{"2006-01-02T15:04:05-0700", "2006-01-02T15:04:05"} {
		if tm, err := time.ParseInLocation(layout, value, loc); err == nil {
			return tm.In(loc)
		}
	}
	t.Fatalf("could not parse time %q", value)
	return time.Time{}
}

// ValidateCronSchedule names the field at fault, the schedule first, as
// kube-apiserver's ValidateCronJobSpec reports spec.schedule and
// spec.timeZone.
func TestValidateCronSchedule(t *testing.T) {
	zone := func(z string) *string { return &z }
	tests := []struct {
		schedule string
		timeZone *string
		field    string // "" for valid
	}{
		{"*/1 * * * *", nil, ""},
		{"0 9 * * *", zone("Asia/Tokyo"), ""},
		{"TZ=UTC 0 0 * * *", nil, ""}, // accepted: the controller honours it
		{"*/1 * * *", nil, "spec.schedule"},
		{"0 25 * * *", zone("Asia/Tokyo"), "spec.schedule"},
		{"0 25 * * *", zone("Mars/Olympus_Mons"), "spec.schedule"},
		{"* * * * *", zone("Mars/Olympus_Mons"), "spec.timeZone"},
	}
	for _, tc := range tests {
		err := ValidateCronSchedule(tc.schedule, tc.timeZone)
		if tc.field == "" {
			if err != nil {
				t.Errorf("%q %v: %v", tc.schedule, tc.timeZone, err)
			}
			continue
		}
		var se *CronScheduleError
		if !errors.As(err, &se) || !errors.Is(err, ErrInvalidCronSchedule) {
			t.Fatalf("%q: got %v, want a *CronScheduleError wrapping ErrInvalidCronSchedule", tc.schedule, err)
		}
		want := tc.schedule
		if tc.field == "spec.timeZone" {
			want = *tc.timeZone
		}
		if se.Field != tc.field || se.Value != want {
			t.Errorf("%q %v: field %q value %q, want %q %q", tc.schedule, *tc.timeZone, se.Field, se.Value, tc.field, want)
		}
	}
}

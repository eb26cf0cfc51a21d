package cronjob_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/cronjob"
)

// The next activations of the every-minute schedule of Kubernetes'
// CronJob example and of a working-hours one, and the names of the jobs they create.
func ExampleParseSchedule() {
	at := time.Date(2026, 12, 4, 16, 58, 30, 0, time.UTC) // a Friday
	for _, spec := range []string{"*/1 * * * *", "0 9-17 * * MON-FRI", "@weekly", "CRON_TZ=Asia/Tokyo 0 9 * * *"} {
		s, err := cronjob.ParseSchedule(spec)
		if err != nil {
			panic(err)
		}
		t1 := s.Next(at)
		t2 := s.Next(t1)
		fmt.Printf("%-30s %s  %s  %s\n", spec, t1.Format(time.RFC3339), t2.Format(time.RFC3339), cronjob.JobName("hello", t1))
	}
	// Output:
	// */1 * * * *                    2026-12-04T16:59:00Z  2026-12-04T17:00:00Z  hello-29940059
	// 0 9-17 * * MON-FRI             2026-12-04T17:00:00Z  2026-12-07T09:00:00Z  hello-29940060
	// @weekly                        2026-12-06T00:00:00Z  2026-12-13T00:00:00Z  hello-29941920
	// CRON_TZ=Asia/Tokyo 0 9 * * *   2026-12-05T00:00:00Z  2026-12-06T00:00:00Z  hello-29940480
}

// ValidateSchedule is what Admission checks on every cron job write.
func ExampleValidateSchedule() {
	for _, spec := range []string{"*/1 * * * *", "*/1 * * *", "0 25 * * *"} {
		err := cronjob.ValidateSchedule(spec, nil)
		fmt.Println(errors.Is(err, cronjob.ErrInvalidSchedule), err)
	}
	// Output:
	// false <nil>
	// true cronjob: invalid schedule "*/1 * * *": expected exactly 5 fields, found 4: */1 * * *
	// true cronjob: invalid schedule "0 25 * * *": end of range (25) above maximum (23): 25
}

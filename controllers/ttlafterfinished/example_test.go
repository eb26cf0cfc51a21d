package ttlafterfinished_test

import (
	"fmt"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/ttlafterfinished"
)

// When a finished job with a TTL expires.
func Example() {
	done := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	ttl := int32(100)
	j := &api.Job{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "pi"},
		Spec: api.JobSpec{TTLSecondsAfterFinished: &ttl},
		Status: api.JobStatus{Conditions: []api.JobCondition{{Type: api.JobComplete, Status: api.ConditionTrue,
			LastTransitionTime: api.NewTime(done)}}}}
	at, err := ttlafterfinished.ExpireAt(j)
	fmt.Println(ttlafterfinished.NeedsCleanup(j), at.Format(time.TimeOnly), err)
	// Output:
	// true 12:01:40 <nil>
}

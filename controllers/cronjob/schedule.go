package cronjob

import (
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Schedule is a parsed cron schedule. The parser lives in controllers/api
// (api.CronSchedule), so that the API server's validation and this
// controller read schedules alike.
type Schedule = api.CronSchedule

// ErrInvalidSchedule is wrapped by every error ParseSchedule and
// ValidateSchedule return; it is api.ErrInvalidCronSchedule.
var ErrInvalidSchedule = api.ErrInvalidCronSchedule

// ParseSchedule parses a standard cron schedule (api.ParseCronSchedule
// says which): "*/1 * * * *", "0 9-17 * * MON-FRI", "@hourly",
// "@every 1h30m", "CRON_TZ=Asia/Tokyo 0 9 * * *". Errors wrap
// ErrInvalidSchedule.
func ParseSchedule(spec string) (*Schedule, error) {
	s, err := api.ParseCronSchedule(spec)
	if err != nil {
		return nil, fmt.Errorf("cronjob: %w", err)
	}
	return s, nil
}

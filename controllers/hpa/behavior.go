package hpa

import (
	"math"
	"slices"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// The scaling policy types and select policies of autoscaling/v2.
const (
	PodsPolicy    = "Pods"
	PercentPolicy = "Percent"
	SelectMax     = "Max"
	SelectMin     = "Min"
	SelectDisable = "Disabled"
)

// DefaultBehavior returns b with autoscaling/v2's defaults filled in
// (SetDefaults_HorizontalPodAutoscalerBehavior): scale up with no
// stabilization, by the larger of 4 pods or 100% per 15 s; scale down
// with a 300 s stabilization window, by 100% per 15 s. b is not changed.
func DefaultBehavior(b *api.HorizontalPodAutoscalerBehavior) api.HorizontalPodAutoscalerBehavior {
	var out api.HorizontalPodAutoscalerBehavior
	if b != nil {
		out = *b.DeepCopy()
	}
	out.ScaleUp = defaultRules(out.ScaleUp, 0, []api.HPAScalingPolicy{
		{Type: PodsPolicy, Value: 4, PeriodSeconds: 15}, {Type: PercentPolicy, Value: 100, PeriodSeconds: 15}})
	out.ScaleDown = defaultRules(out.ScaleDown, 300, []api.HPAScalingPolicy{{Type: PercentPolicy, Value: 100, PeriodSeconds: 15}})
	return out
}

func defaultRules(r *api.HPAScalingRules, window int32, policies []api.HPAScalingPolicy) *api.HPAScalingRules {
	if r == nil {
		r = &api.HPAScalingRules{}
	}
	if r.StabilizationWindowSeconds == nil {
		r.StabilizationWindowSeconds = &window
	}
	if r.SelectPolicy == nil {
		p := SelectMax
		r.SelectPolicy = &p
	}
	if len(r.Policies) == 0 {
		r.Policies = policies
	}
	return r
}

type recommendation struct {
	replicas int32
	at       time.Time
}

type scaleEvent struct {
	change   int32
	at       time.Time
	outdated bool
}

// State is what the controller remembers of one autoscaler between
// syncs (kcm's recommendations, scaleUpEvents and scaleDownEvents maps):
// its recent recommendations, for the stabilization windows, and its
// recent scale events, for the rate policies. The zero value is an
// autoscaler never seen. Not safe for concurrent use: one sync at a
// time owns it.
type State struct {
	recommendations []recommendation
	initialized     bool
	up, down        []scaleEvent
}

// Limit is the outcome of Normalize for the conditions: the
// AbleToScale reason and message of the stabilization, and the
// ScalingLimited status, reason and message of the rate and bounds.
type Limit struct {
	// StabilizedReason and StabilizedMessage are AbleToScale's.
	StabilizedReason, StabilizedMessage string
	// Limited is ScalingLimited's status: the rate or the bounds
	// changed the stabilized count.
	Limited bool
	// LimitedReason and LimitedMessage are ScalingLimited's.
	LimitedReason, LimitedMessage string
}

// Normalize is kcm's normalizeDesiredReplicasWithBehaviors at now: the
// desired count proposed by the metrics is first stabilized — on the way
// up, the lowest recommendation of the scale-up window; on the way down,
// the highest of the scale-down window (the window starts filled with
// the current count on first sight, so a restart never scales down at
// once) — and then bounded by the rate policies over the recent scale
// events and by min and max. It records the recommendation.
func (s *State) Normalize(now time.Time, b api.HorizontalPodAutoscalerBehavior, current, desired, minReplicas, maxReplicas int32) (int32, Limit) {
	if !s.initialized {
		s.initialized = true
		if *b.ScaleDown.StabilizationWindowSeconds > 0 {
			s.recommendations = append(s.recommendations, recommendation{current, now})
		}
	}
	var l Limit
	stabilized := s.stabilize(now, b, current, desired, &l)
	if stabilized == desired {
		l.StabilizedReason, l.StabilizedMessage = "ReadyForNewScale", "recommended size matches current size"
	}
	out, reason, msg := rateLimit(now, b, s.up, s.down, current, stabilized, minReplicas, maxReplicas)
	l.Limited, l.LimitedReason, l.LimitedMessage = out != stabilized, reason, msg
	return out, l
}

func (s *State) stabilize(now time.Time, b api.HorizontalPodAutoscalerBehavior, current, desired int32, l *Limit) int32 {
	rec := desired
	var window int32
	better := min32
	if desired >= current {
		window = *b.ScaleUp.StabilizationWindowSeconds
		l.StabilizedReason = "ScaleUpStabilized"
		l.StabilizedMessage = "recent recommendations were lower than current one, applying the lowest recent recommendation"
	} else {
		window = *b.ScaleDown.StabilizationWindowSeconds
		better = max32
		l.StabilizedReason = "ScaleDownStabilized"
		l.StabilizedMessage = "recent recommendations were higher than current one, applying the highest recent recommendation"
	}
	longest := max(*b.ScaleUp.StabilizationWindowSeconds, *b.ScaleDown.StabilizationWindowSeconds)
	obsolete := now.Add(-time.Duration(longest) * time.Second)
	cutoff := now.Add(-time.Duration(window) * time.Second)
	old := -1
	for i, r := range s.recommendations {
		if r.at.After(cutoff) {
			rec = better(r.replicas, rec)
		}
		if r.at.Before(obsolete) {
			old = i
		}
	}
	if old >= 0 {
		s.recommendations[old] = recommendation{desired, now}
	} else {
		s.recommendations = append(s.recommendations, recommendation{desired, now})
	}
	return rec
}

// rateLimit is kcm's convertDesiredReplicasWithBehaviorRate.
func rateLimit(now time.Time, b api.HorizontalPodAutoscalerBehavior, up, down []scaleEvent, current, desired, minReplicas, maxReplicas int32) (int32, string, string) {
	switch {
	case desired > current:
		limit := max(scaleUpLimit(now, current, up, b.ScaleUp), current)
		allowed, reason, msg := maxReplicas, "TooManyReplicas", "the desired replica count is more than the maximum replica count"
		if allowed > limit {
			allowed, reason, msg = limit, "ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate"
		}
		if desired > allowed {
			return allowed, reason, msg
		}
	case desired < current:
		limit := min(scaleDownLimit(now, current, down, b.ScaleDown), current)
		allowed, reason, msg := minReplicas, "TooFewReplicas", "the desired replica count is less than the minimum replica count"
		if allowed < limit {
			allowed, reason, msg = limit, "ScaleDownLimit", "the desired replica count is decreasing faster than the maximum scale rate"
		}
		if desired < allowed {
			return allowed, reason, msg
		}
	}
	return desired, "DesiredWithinRange", "the desired count is within the acceptable range"
}

// changeInPeriod sums the changes of the events of the last period
// (kcm's getReplicasChangePerPeriod).
func changeInPeriod(now time.Time, period int32, events []scaleEvent) int32 {
	cutoff := now.Add(-time.Duration(period) * time.Second)
	var n int32
	for _, e := range events {
		if e.at.After(cutoff) {
			n += e.change
		}
	}
	return n
}

// scaleUpLimit is kcm's calculateScaleUpLimitWithScalingRules.
func scaleUpLimit(now time.Time, current int32, events []scaleEvent, r *api.HPAScalingRules) int32 {
	if *r.SelectPolicy == SelectDisable {
		return current
	}
	result, pick := int32(math.MinInt32), max32
	if *r.SelectPolicy == SelectMin {
		result, pick = math.MaxInt32, min32
	}
	for _, p := range r.Policies {
		start := current - changeInPeriod(now, p.PeriodSeconds, events)
		var proposed int32
		switch p.Type {
		case PodsPolicy:
			proposed = start + p.Value
		case PercentPolicy:
			proposed = int32(math.Ceil(float64(start) * (1 + float64(p.Value)/100)))
		}
		result = pick(result, proposed)
	}
	return result
}

// scaleDownLimit is kcm's calculateScaleDownLimitWithBehaviors.
func scaleDownLimit(now time.Time, current int32, events []scaleEvent, r *api.HPAScalingRules) int32 {
	if *r.SelectPolicy == SelectDisable {
		return current
	}
	result, pick := int32(math.MaxInt32), min32
	if *r.SelectPolicy == SelectMin {
		result, pick = math.MinInt32, max32
	}
	for _, p := range r.Policies {
		start := current + changeInPeriod(now, p.PeriodSeconds, events)
		var proposed int32
		switch p.Type {
		case PodsPolicy:
			proposed = start - p.Value
		case PercentPolicy:
			proposed = int32(float64(start) * (1 - float64(p.Value)/100))
		}
		result = pick(result, proposed)
	}
	return result
}

// RecordScale remembers a scale from prev to next at now for the rate
// policies (kcm's storeScaleEvent): events older than the longest
// policy period of their direction are reused.
func (s *State) RecordScale(now time.Time, b api.HorizontalPodAutoscalerBehavior, prev, next int32) {
	store := func(events []scaleEvent, r *api.HPAScalingRules, change int32) []scaleEvent {
		var longest int32
		for _, p := range r.Policies {
			longest = max(longest, p.PeriodSeconds)
		}
		cutoff := now.Add(-time.Duration(longest) * time.Second)
		old := -1
		for i := range events {
			if events[i].at.Before(cutoff) {
				events[i].outdated = true
			}
			if events[i].outdated {
				old = i
			}
		}
		e := scaleEvent{change: change, at: now}
		if old >= 0 {
			events[old] = e
			return events
		}
		return append(slices.Clip(events), e)
	}
	switch {
	case next > prev:
		s.up = store(s.up, b.ScaleUp, next-prev)
	case next < prev:
		s.down = store(s.down, b.ScaleDown, prev-next)
	}
}

func min32(a, b int32) int32 { return min(a, b) }
func max32(a, b int32) int32 { return max(a, b) }

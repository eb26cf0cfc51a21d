package api

import "time"

// FindCondition returns the condition of type t in conds, or nil
// (apimachinery's meta.FindStatusCondition).
func FindCondition(conds []Condition, t string) *Condition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

// SetCondition sets c in *conds, adding it or replacing the condition of
// its type, as apimachinery's meta.SetStatusCondition does: the
// LastTransitionTime is now when the status changes (or c's own when
// set), kept otherwise. It reports whether anything changed, so that a
// controller writes its status only then.
func SetCondition(conds *[]Condition, c Condition, now time.Time) bool {
	old := FindCondition(*conds, c.Type)
	if old == nil {
		if c.LastTransitionTime.IsZero() {
			c.LastTransitionTime = Time{now.UTC().Truncate(time.Second)}
		}
		*conds = append(*conds, c)
		return true
	}
	changed := false
	if old.Status != c.Status {
		old.Status = c.Status
		old.LastTransitionTime = c.LastTransitionTime
		if old.LastTransitionTime.IsZero() {
			old.LastTransitionTime = Time{now.UTC().Truncate(time.Second)}
		}
		changed = true
	}
	if old.Reason != c.Reason || old.Message != c.Message || old.ObservedGeneration != c.ObservedGeneration {
		old.Reason, old.Message, old.ObservedGeneration = c.Reason, c.Message, c.ObservedGeneration
		changed = true
	}
	return changed
}

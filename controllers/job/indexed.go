package job

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// completionIndex returns the pod's completion index, or -1.
func completionIndex(p *api.Pod) int {
	v, ok := p.Annotations[api.LabelJobCompletionIndex]
	if !ok {
		return -1
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 {
		return -1
	}
	return i
}

// parseIndexes parses a completedIndexes string ("1,3-5") into a sorted
// set of indexes below completions; malformed parts are skipped, as kcm
// does.
func parseIndexes(s string, completions int) map[int]bool {
	out := map[int]bool{}
	if s == "" {
		return out
	}
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			continue
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				continue
			}
		}
		for i := a; i <= b && i < completions; i++ {
			out[i] = true
		}
	}
	return out
}

// formatIndexes writes a set of indexes as kcm's orderedIntervals.String
// does: ascending, every run of three or more consecutive indexes as a
// range, a run of two as two indexes ("1,3-5,7,8").
func formatIndexes(set map[int]bool) string {
	ix := make([]int, 0, len(set))
	for i := range set {
		ix = append(ix, i)
	}
	slices.Sort(ix)
	var b strings.Builder
	for i := 0; i < len(ix); {
		j := i
		for j+1 < len(ix) && ix[j+1] == ix[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		switch j {
		case i:
			fmt.Fprintf(&b, "%d", ix[i])
		case i + 1:
			fmt.Fprintf(&b, "%d,%d", ix[i], ix[j])
		default:
			fmt.Fprintf(&b, "%d-%d", ix[i], ix[j])
		}
		i = j + 1
	}
	return b.String()
}

// The annotations kcm keeps an index's failures in (backoffLimitPerIndex):
// a pod carries the failures of its index before it.
const (
	AnnotationIndexFailureCount        = "batch.kubernetes.io/job-index-failure-count"
	AnnotationIndexIgnoredFailureCount = "batch.kubernetes.io/job-index-ignored-failure-count"
)

// annotationInt32 is kcm's parseInt32 of an annotation: 0 when absent,
// malformed, negative or above MaxInt32.
func annotationInt32(p *api.Pod, key string) int32 {
	v, ok := p.Annotations[key]
	if !ok {
		return 0
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 || i > math.MaxInt32 {
		return 0
	}
	return int32(i)
}

// absoluteFailureCount is kcm's getIndexAbsoluteFailureCount: the counted
// and the ignored failures of the pod's index before it.
func absoluteFailureCount(p *api.Pod) int32 {
	return annotationInt32(p, AnnotationIndexFailureCount) + annotationInt32(p, AnnotationIndexIgnoredFailureCount)
}

// isIndexFailed is kcm's isIndexFailed: the failed pod p fails its index
// when a FailIndex rule matches it, or when it counts and its index had
// already failed backoffLimitPerIndex times before it.
func isIndexFailed(job *api.Job, p *api.Pod, onlyFailed bool) bool {
	if !podFailed(p, onlyFailed) {
		return false
	}
	counted := true
	if job.Spec.PodFailurePolicy != nil {
		_, c, action := matchPodFailurePolicy(job.Spec.PodFailurePolicy, p)
		if action == ActionFailIndex {
			return true
		}
		counted = c
	}
	return counted && annotationInt32(p, AnnotationIndexFailureCount) >= deref(job.Spec.BackoffLimitPerIndex, 0)
}

// podFailed is kcm's isPodFailed: Failed, or — unless only failed pods
// are replaced — being deleted while not Succeeded.
func podFailed(p *api.Pod, onlyFailed bool) bool {
	if p.Status.Phase == api.PodFailed {
		return true
	}
	return !onlyFailed && p.DeletionTimestamp != nil && p.Status.Phase != api.PodSucceeded
}

// newIndexFailureCounts is kcm's getNewIndexFailureCounts: the failure
// annotations of the pod replacing failed (nil: the index's first pod).
func newIndexFailureCounts(job *api.Job, failed *api.Pod) (count, ignored int32) {
	if failed == nil {
		return 0, 0
	}
	count, ignored = annotationInt32(failed, AnnotationIndexFailureCount), annotationInt32(failed, AnnotationIndexIgnoredFailureCount)
	if _, counted, _ := matchPodFailurePolicy(job.Spec.PodFailurePolicy, failed); counted {
		count++
	} else {
		ignored++
	}
	return count, ignored
}

// matchSuccessPolicy is kcm's matchSuccessPolicy (success_policy.go): the
// first rule the succeeded indexes satisfy, as the message "Matched rules
// at index <i>". A rule with succeededIndexes is met when every index it
// lists succeeded or, with succeededCount, that many of them did (a
// succeededIndexes that parses to nothing is passed over); a rule with
// only succeededCount when that many indexes succeeded.
func matchSuccessPolicy(policy *api.SuccessPolicy, completions int, succeeded map[int]bool) (string, bool) {
	if policy == nil || len(succeeded) == 0 {
		return "", false
	}
	for i, rule := range policy.Rules {
		if rule.SucceededIndexes != nil {
			required := parseIndexes(*rule.SucceededIndexes, completions)
			if len(required) == 0 {
				continue
			}
			contains := 0
			for ix := range required {
				if succeeded[ix] {
					contains++
				}
			}
			if contains == len(required) || (rule.SucceededCount != nil && contains >= int(*rule.SucceededCount)) {
				return fmt.Sprintf("Matched rules at index %d", i), true
			}
		} else if rule.SucceededCount != nil && len(succeeded) >= int(*rule.SucceededCount) {
			return fmt.Sprintf("Matched rules at index %d", i), true
		}
	}
	return "", false
}

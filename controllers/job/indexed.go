package job

import (
	"fmt"
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

// formatIndexes writes a set of indexes as kcm's orderedIntervals do:
// ascending, every run of two or more consecutive indexes as a range
// ("1,3-5,7-8").
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
		if j == i {
			fmt.Fprintf(&b, "%d", ix[i])
		} else {
			fmt.Fprintf(&b, "%d-%d", ix[i], ix[j])
		}
		i = j + 1
	}
	return b.String()
}

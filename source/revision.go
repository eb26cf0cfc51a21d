package source

import (
	"cmp"
	"fmt"
	"strconv"
)

// FormatRevision returns the resourceVersion of revision rev: its decimal
// form. It is the format of sources built on one int64 revision per write,
// as etcd is.
func FormatRevision(rev int64) string { return strconv.FormatInt(rev, 10) }

// ParseRevision parses a resourceVersion made by FormatRevision. A value
// that is not a non-negative decimal integer is an error that quotes it.
func ParseRevision(rv string) (int64, error) {
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("source: malformed resource version %q: want a revision (a non-negative decimal integer)", rv)
	}
	return n, nil
}

// CompareRevisions compares two resourceVersions made by FormatRevision:
// -1, 0 or +1 as a is older than, equal to or newer than b. A source built
// on revisions implements VersionComparer with it.
func CompareRevisions(a, b string) (int, error) {
	x, err := ParseRevision(a)
	if err != nil {
		return 0, err
	}
	y, err := ParseRevision(b)
	if err != nil {
		return 0, err
	}
	return cmp.Compare(x, y), nil
}

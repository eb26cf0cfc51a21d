package patch

import "fmt"

func strategicMerge(kind string, doc object, p []byte) (value, error) {
	return nil, fmt.Errorf("%w %q (not yet)", ErrUnsupportedType, StrategicMerge)
}

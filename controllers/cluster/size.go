package cluster

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/fake"
)

// DefaultMaxObjectBytes is the default Options.MaxObjectBytes: 1.5 MiB,
// etcd's default --max-request-bytes, the largest value kube-apiserver
// can store in a default etcd.
const DefaultMaxObjectBytes = 3 << 19

// ErrTooLarge is wrapped by the error of a create or update whose object,
// encoded as JSON, is larger than Options.MaxObjectBytes (Kubernetes' 413
// RequestEntityTooLarge). Nothing is written.
var ErrTooLarge = client.ErrTooLarge

// countWriter counts the bytes written to it.
type countWriter int

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}

// encodedSize is the length of obj's JSON encoding (as json.Marshal's),
// without keeping the encoding: the in-memory backend's fake.Options.Size.
// An object that does not encode counts as 0; the write then fails as
// it would with a Backend.
func encodedSize[T api.Object](obj T) int {
	var n countWriter
	if err := json.NewEncoder(&n).Encode(obj); err != nil {
		return 0
	}
	return int(n) - 1 // Encode ends with a newline
}

// tooLarge adds ErrTooLarge to an error of the in-memory backend that
// refused an object for its size.
func tooLarge(err error) error {
	if errors.Is(err, fake.ErrTooLarge) {
		return fmt.Errorf("%w: %w", ErrTooLarge, err)
	}
	return err
}

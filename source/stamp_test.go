package source_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/source"
)

type stamped struct{ rv string }

func (s *stamped) SetResourceVersion(rv string) { s.rv = rv }

type explosive struct{}

func (explosive) SetResourceVersion(string) { panic("boom") }

func TestStampResourceVersion(t *testing.T) {
	obj := &stamped{}
	require.NoError(t, source.StampResourceVersion(obj, "7"))
	require.Equal(t, "7", obj.rv)

	// Objects without a setter are left alone.
	require.NoError(t, source.StampResourceVersion("plain string", "8"))

	// A panicking setter becomes an error.
	err := source.StampResourceVersion(explosive{}, "9")
	require.ErrorContains(t, err, "SetResourceVersion panicked: boom")
}

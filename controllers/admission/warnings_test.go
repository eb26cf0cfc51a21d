package admission_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
)

func TestWarnReachesTheRequestsRecorder(t *testing.T) {
	var got []string
	ctx := admission.WithWarnings(context.Background(), func(w string) { got = append(got, w) })
	admission.Warn(ctx, "first")
	admission.Warn(ctx, "")
	admission.Warn(context.Background(), "nobody listens")
	admission.Warn(ctx, "second")
	require.Equal(t, []string{"first", "second"}, got)
}

package kube

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/ctrlkit/ctrlkit/source"
)

// convertError maps an error from the Kubernetes API onto the source
// sentinels, keeping the original in the chain (errors.As still finds
// the *apierrors.StatusError). op names the request for the message.
//
//   - 410 Gone and reason Expired: source.ErrExpired;
//   - "Too large resource version" (a 504 with cause
//     ResourceVersionTooLarge): source.ErrFutureVersion and
//     source.ErrExpired both, so that a reflector relists from the latest;
//   - 409 Conflict: source.ErrConflict; 404 NotFound: source.ErrNotFound;
//     409 AlreadyExists: source.ErrAlreadyExists;
//   - 429 TooManyRequests, 503 ServiceUnavailable ("storage is
//     (re)initializing"), 500 ServerTimeout, other 504 timeouts, a
//     refused or reset connection and a stream cut by EOF:
//     source.ErrTransient.
//
// Any other error is wrapped as it is.
func convertError(op string, err error) error {
	if err == nil {
		return nil
	}
	var sentinel []error
	switch {
	case apierrors.IsTimeout(err) && apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge):
		// k8s.io/apiserver's storage.IsTooLargeResourceVersion, which
		// client-go's reflector answers by relisting from the latest.
		sentinel = []error{source.ErrFutureVersion, source.ErrExpired}
	case apierrors.IsGone(err), apierrors.IsResourceExpired(err):
		sentinel = []error{source.ErrExpired}
	case apierrors.IsAlreadyExists(err):
		sentinel = []error{source.ErrAlreadyExists}
	case apierrors.IsConflict(err):
		sentinel = []error{source.ErrConflict}
	case apierrors.IsNotFound(err):
		sentinel = []error{source.ErrNotFound}
	case apierrors.IsTooManyRequests(err), apierrors.IsServiceUnavailable(err),
		apierrors.IsServerTimeout(err), apierrors.IsTimeout(err),
		utilnet.IsConnectionRefused(err), utilnet.IsConnectionReset(err),
		utilnet.IsProbableEOF(err):
		sentinel = []error{source.ErrTransient}
	}
	switch len(sentinel) {
	case 0:
		return fmt.Errorf("kube: %s: %w", op, err)
	case 1:
		return fmt.Errorf("kube: %s: %w: %w", op, sentinel[0], err)
	}
	return fmt.Errorf("kube: %s: %w, %w: %w", op, sentinel[0], sentinel[1], err)
}

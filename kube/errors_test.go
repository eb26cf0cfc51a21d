package kube

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlkit/ctrlkit/source"
)

func tooLarge() error {
	// As k8s.io/apiserver/pkg/storage.NewTooLargeResourceVersionError builds it.
	err := apierrors.NewTimeoutError("Too large resource version: 1001, current: 1", 1)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}
	return err
}

func TestConvertError(t *testing.T) {
	gr := schema.GroupResource{Group: "wardle.example.com", Resource: "flunders"}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	for _, tc := range []struct {
		name string
		err  error
		want []error // sentinels that must match; none of the others may
	}{
		{"gone", apierrors.NewGone("too old resource version: 1 (5)"), []error{source.ErrExpired}},
		{"expired", apierrors.NewResourceExpired("The provided continue parameter is too old"), []error{source.ErrExpired}},
		{"too large resource version", tooLarge(), []error{source.ErrExpired, source.ErrFutureVersion}},
		{"conflict", apierrors.NewConflict(gr, "a", errors.New("the object has been modified")), []error{source.ErrConflict}},
		{"not found", apierrors.NewNotFound(gr, "a"), []error{source.ErrNotFound}},
		{"already exists", apierrors.NewAlreadyExists(gr, "a"), []error{source.ErrAlreadyExists}},
		{"too many requests", apierrors.NewTooManyRequests("slow down", 1), []error{source.ErrTransient}},
		{"storage is (re)initializing", apierrors.NewServiceUnavailable("storage is (re)initializing"), []error{source.ErrTransient}},
		{"server timeout", apierrors.NewServerTimeout(gr, "list", 1), []error{source.ErrTransient}},
		{"gateway timeout", apierrors.NewTimeoutError("request timed out", 1), []error{source.ErrTransient}},
		{"connection refused", fmt.Errorf("Get \"https://127.0.0.1:1\": %w", refused), []error{source.ErrTransient}},
		{"unexpected EOF", io.ErrUnexpectedEOF, []error{source.ErrTransient}},
		{"bad request", apierrors.NewBadRequest("invalid resourceVersion"), nil},
		{"internal error", apierrors.NewInternalError(errors.New("boom")), nil},
		{"forbidden", apierrors.NewForbidden(gr, "a", errors.New("no")), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := convertError("list flunders", tc.err)
			if !errors.Is(got, tc.err) {
				t.Errorf("convertError(%v) = %v, which does not wrap the original", tc.err, got)
			}
			all := []error{source.ErrExpired, source.ErrFutureVersion, source.ErrConflict, source.ErrNotFound,
				source.ErrAlreadyExists, source.ErrTransient, source.ErrUnsupported}
			for _, s := range all {
				want := false
				for _, w := range tc.want {
					want = want || w == s
				}
				if errors.Is(got, s) != want {
					t.Errorf("errors.Is(convertError(%v), %v) = %v, want %v", tc.err, s, !want, want)
				}
			}
		})
	}
	if convertError("get", nil) != nil {
		t.Error("convertError(nil) is not nil")
	}
}

// TestConvertEvent checks the mapping of single watch events: an ERROR
// event's *metav1.Status becomes the same error as the response it
// stands for; bookmarks keep their version, the initial-events-end
// annotation sets InitialEventsEnd, and a bookmark nobody asked for is
// dropped unless it ends the initial events.
func TestConvertEvent(t *testing.T) {
	bookmark := func(rv string, end bool) *metav1.PartialObjectMetadata {
		o := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{ResourceVersion: rv}}
		if end {
			o.Annotations = map[string]string{InitialEventsEndAnnotation: "true"}
		}
		return o
	}
	obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "7"}}
	s := &Source[*metav1.PartialObjectMetadata]{resource: "flunders"}
	for _, tc := range []struct {
		name      string
		in        watch.Event
		bookmarks bool
		keep      bool
		want      source.Event[*metav1.PartialObjectMetadata]
		wantErr   error
	}{
		{"added", watch.Event{Type: watch.Added, Object: obj}, false, true, source.Event[*metav1.PartialObjectMetadata]{Type: source.Added, Object: obj, ResourceVersion: "7"}, nil},
		{"modified", watch.Event{Type: watch.Modified, Object: obj}, false, true, source.Event[*metav1.PartialObjectMetadata]{Type: source.Modified, Object: obj, ResourceVersion: "7"}, nil},
		{"deleted", watch.Event{Type: watch.Deleted, Object: obj}, false, true, source.Event[*metav1.PartialObjectMetadata]{Type: source.Deleted, Object: obj, ResourceVersion: "7"}, nil},
		{"bookmark", watch.Event{Type: watch.Bookmark, Object: bookmark("9", false)}, true, true, source.Event[*metav1.PartialObjectMetadata]{Type: source.Bookmark, ResourceVersion: "9"}, nil},
		{"unasked bookmark", watch.Event{Type: watch.Bookmark, Object: bookmark("9", false)}, false, false, source.Event[*metav1.PartialObjectMetadata]{Type: source.Bookmark, ResourceVersion: "9"}, nil},
		{"initial events end", watch.Event{Type: watch.Bookmark, Object: bookmark("9", true)}, false, true, source.Event[*metav1.PartialObjectMetadata]{Type: source.Bookmark, ResourceVersion: "9", InitialEventsEnd: true}, nil},
		{"410", watch.Event{Type: watch.Error, Object: &apierrors.NewGone("too old resource version: 1 (5)").ErrStatus}, false, true, source.Event[*metav1.PartialObjectMetadata]{Type: source.Error}, source.ErrExpired},
		{"expired", watch.Event{Type: watch.Error, Object: &apierrors.NewResourceExpired("too old").ErrStatus}, false, true, source.Event[*metav1.PartialObjectMetadata]{Type: source.Error}, source.ErrExpired},
		{"429", watch.Event{Type: watch.Error, Object: &apierrors.NewTooManyRequests("slow down", 1).ErrStatus}, false, true, source.Event[*metav1.PartialObjectMetadata]{Type: source.Error}, source.ErrTransient},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, keep := s.convertEvent(tc.in, tc.bookmarks)
			if keep != tc.keep {
				t.Fatalf("keep = %v, want %v", keep, tc.keep)
			}
			if tc.wantErr != nil {
				if got.Type != source.Error || !errors.Is(got.Err, tc.wantErr) {
					t.Fatalf("got %+v, want an Error event wrapping %v", got, tc.wantErr)
				}
				return
			}
			if got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestDeletedUID reads the UID out of the Status a DELETE answers with,
// typed and unstructured.
func TestDeletedUID(t *testing.T) {
	st := &metav1.Status{Status: metav1.StatusSuccess, Details: &metav1.StatusDetails{Name: "a", UID: "u-1"}}
	u := &unstructured.Unstructured{Object: map[string]any{"kind": "Status", "apiVersion": "v1", "details": map[string]any{"name": "a", "uid": "u-2"}}}
	for _, tc := range []struct {
		out  runtime.Object
		want types.UID
	}{
		{st, "u-1"},
		{&metav1.Status{}, ""},
		{u, "u-2"},
		{&unstructured.Unstructured{Object: map[string]any{"kind": "Flunder"}}, ""},
		{&metav1.PartialObjectMetadata{}, ""},
	} {
		if got := deletedUID(tc.out); got != tc.want {
			t.Errorf("deletedUID(%#v) = %q, want %q", tc.out, got, tc.want)
		}
	}
}

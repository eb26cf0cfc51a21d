package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// ValidateFunc decides a validating webhook's answer to one request for
// objects of type T: obj is the object of a CREATE or UPDATE (nil on
// DELETE), old the stored object of an UPDATE or DELETE (nil on CREATE).
// nil admits the request; an error refuses it (see Validating).
type ValidateFunc[T api.Object] func(ctx context.Context, req *AdmissionRequest, obj, old T) error

// Validating returns the http.Handler of a validating admission webhook
// for kind T, the server side of what the Dispatcher calls (serve it over
// HTTPS): it reads each AdmissionReview (admission.k8s.io/v1 or v1beta1),
// decodes its object and oldObject into T, calls validate, and answers an
// AdmissionReview of the same version with the request's uid. An error
// refuses the request: a *DeniedError gives its Code, Reason and Message
// (so a webhook answers 403 with &DeniedError{Code: 403, Reason:
// "Forbidden", Message: ...}); any other error is refused with code 400
// and its text. A body that is not an AdmissionReview with a request, or
// whose objects do not decode into T, is answered 400 Bad Request
// without a review (a call error for the API server).
func Validating[T api.Object](validate ValidateFunc[T]) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 3<<20))
		var review AdmissionReview
		if err == nil {
			err = json.Unmarshal(body, &review)
		}
		if err == nil && review.Request == nil {
			err = errors.New("the review has no request")
		}
		var obj, old T
		if err == nil {
			obj, err = decodeAs[T](review.Request.Object)
		}
		if err == nil {
			old, err = decodeAs[T](review.Request.OldObject)
		}
		if err != nil {
			http.Error(w, "webhook: "+err.Error(), http.StatusBadRequest)
			return
		}
		resp := &AdmissionResponse{UID: review.Request.UID, Allowed: true}
		if err := validate(r.Context(), review.Request, obj, old); err != nil {
			resp.Allowed = false
			resp.Result = &Status{Status: "Failure", Code: http.StatusBadRequest, Message: err.Error()}
			if d := (*DeniedError)(nil); errors.As(err, &d) {
				resp.Result.Code, resp.Result.Reason, resp.Result.Message = d.Code, d.Reason, d.Message
			}
		}
		out, err := json.Marshal(AdmissionReview{TypeMeta: review.TypeMeta, Response: resp})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	})
}

// decodeAs decodes raw into a new T; absent or null is T's nil.
func decodeAs[T api.Object](raw json.RawMessage) (T, error) {
	var zero T
	if len(raw) == 0 || string(raw) == "null" {
		return zero, nil
	}
	obj := reflect.New(reflect.TypeFor[T]().Elem()).Interface().(T)
	if err := json.Unmarshal(raw, obj); err != nil {
		return zero, err
	}
	return obj, nil
}

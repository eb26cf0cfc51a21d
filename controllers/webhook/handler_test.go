package webhook_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/webhook"
)

// Validating serves a typed validating webhook: the dispatcher's
// requests reach validate with the object and the old one decoded, its
// plain error is a 400 refusal, its *DeniedError keeps its code.
func TestValidatingHandler(t *testing.T) {
	type call struct {
		op       string
		obj, old string
	}
	var calls []call
	name := func(p *api.Pod) string {
		if p == nil {
			return ""
		}
		return p.Name
	}
	h := webhook.Validating(func(_ context.Context, req *webhook.AdmissionRequest, obj, old *api.Pod) error {
		calls = append(calls, call{req.Operation, name(obj), name(old)})
		switch {
		case obj != nil && obj.Labels["team"] == "":
			return errors.New("pods need a team label")
		case req.Operation == "DELETE" && old.Labels["keep"] == "true":
			return &webhook.DeniedError{Code: http.StatusForbidden, Reason: "Forbidden", Message: "pod " + old.Name + " is kept"}
		}
		return nil
	})
	s, ca := tlsServer(t, h)
	c := newCluster(t, webhook.Options{})
	createValidating(t, c, "teams", validating("teams.example.com", s.URL, ca, func(w *api.ValidatingWebhook) {
		w.Rules = podRule(api.OperationAll)
	}))
	ctx := t.Context()

	_, err := c.Pods().Create(ctx, pod("default", "web", nil))
	require.ErrorContains(t, err, `admission webhook "teams.example.com" denied the request: pods need a team label`)
	require.True(t, client.IsBadRequest(err), "%v", err)
	p := pod("default", "web", map[string]string{"team": "a", "keep": "true"})
	_, err = c.Pods().Create(ctx, p)
	require.NoError(t, err)
	p.Labels["v"] = "2"
	_, err = c.Pods().Update(ctx, p, "")
	require.NoError(t, err)
	_, err = c.Pods().Delete(ctx, "default/web", "")
	require.ErrorContains(t, err, `admission webhook "teams.example.com" denied the request: pod web is kept`)
	require.True(t, client.IsForbidden(err), "%v", err)
	require.Equal(t, []call{{"CREATE", "web", ""}, {"CREATE", "web", ""}, {"UPDATE", "web", "web"}, {"DELETE", "", "web"}}, calls)

	// Garbage is a 400 without a review.
	resp, err := s.Client().Post(s.URL, "application/json", strings.NewReader(`{"request": {"object": [1]}}`))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
}

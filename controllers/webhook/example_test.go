package webhook_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/webhook"
)

// A validating webhook, served over HTTPS, refuses pods without a team
// label; the cluster calls it on each create.
func Example() {
	server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review webhook.AdmissionReview
		json.NewDecoder(r.Body).Decode(&review)
		var pod api.Pod
		json.Unmarshal(review.Request.Object, &pod)
		resp := &webhook.AdmissionResponse{UID: review.Request.UID, Allowed: pod.Labels["team"] != ""}
		if !resp.Allowed {
			resp.Result = &webhook.Status{Code: http.StatusForbidden, Message: "pods need a team label"}
		}
		json.NewEncoder(w).Encode(webhook.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp})
	}))
	defer server.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Certificate().Raw})

	ctx := context.Background()
	d := webhook.New(webhook.Options{})
	c, err := cluster.New(ctx, cluster.Options{Mutating: []cluster.MutatingFunc{d.Mutate}, Admission: []cluster.AdmissionFunc{d.Validate}})
	if err != nil {
		panic(err)
	}
	d.SetClient(c)

	configs, _ := client.For[*api.ValidatingWebhookConfiguration](c)
	none := api.SideEffectClassNone
	_, err = configs.Create(ctx, &api.ValidatingWebhookConfiguration{ObjectMeta: api.ObjectMeta{Name: "teams"},
		Webhooks: []api.ValidatingWebhook{{
			Name:         "teams.example.com",
			ClientConfig: api.WebhookClientConfig{URL: &server.URL, CABundle: ca},
			Rules: []api.RuleWithOperations{{Operations: []api.OperationType{api.OperationCreate},
				Rule: api.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}},
			SideEffects:             &none,
			AdmissionReviewVersions: []string{"v1"},
		}}})
	if err != nil {
		panic(err)
	}

	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx"}}}}
	_, err = c.Pods().Create(ctx, pod)
	var denied *webhook.DeniedError
	fmt.Println(errors.As(err, &denied), client.IsForbidden(err))
	fmt.Println(denied)
	pod.Labels = map[string]string{"team": "storage"}
	_, err = c.Pods().Create(ctx, pod)
	fmt.Println(err)
	// Output:
	// true true
	// admission webhook "teams.example.com" denied the request: pods need a team label
	// <nil>
}

package admission_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// A validating plugin that refuses pods without a team label.
func Example() {
	requireTeam := admission.ValidatingFunc(func(_ context.Context, a admission.Attributes) error {
		if a.Resource == "pods" && a.Operation == admission.Create && a.Object.GetObjectMeta().Labels["team"] == "" {
			return errors.New("pods need a team label")
		}
		return nil
	})
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"}}
	fmt.Println(requireTeam(context.Background(), admission.Attributes{Operation: admission.Create, Resource: "pods", Object: pod}))
	pod.Labels = map[string]string{"team": "storage"}
	fmt.Println(requireTeam(context.Background(), admission.Attributes{Operation: admission.Create, Resource: "pods", Object: pod}))
	// Output:
	// pods need a team label
	// <nil>
}

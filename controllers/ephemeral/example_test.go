package ephemeral_test

import (
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/ephemeral"
)

// The claim made for a pod's ephemeral volume: named after the pod and
// the volume, controlled by the pod; a claim of that name the pod does
// not control is refused.
func Example() {
	pod := podWithEphemeral("db-0", "scratch")
	pod.UID = "uid-db-0"
	claim := ephemeral.NewClaim(pod, &pod.Spec.Volumes[0])
	ref := claim.OwnerReferences[0]
	fmt.Println(claim.Namespace+"/"+claim.Name, ref.Kind, ref.Name, *ref.Controller, *ref.BlockOwnerDeletion)
	fmt.Println(ephemeral.IsForPod(pod, claim))
	foreign := &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: claim.Name, Namespace: "default"}}
	fmt.Println(ephemeral.IsForPod(pod, foreign))
	// Output:
	// default/db-0-scratch Pod db-0 true true
	// <nil>
	// PVC default/db-0-scratch was not created for pod default/db-0 (pod is not owner)
}

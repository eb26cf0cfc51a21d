package patch_test

import (
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver/patch"
)

func Example() {
	pod := []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web","tier":"fe"}},` +
		`"spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}`)

	// kubectl patch --type=merge: null deletes a label.
	out, err := patch.Apply(patch.Merge, "Pod", pod, []byte(`{"metadata":{"labels":{"tier":null}}}`))
	fmt.Println(string(out), err)

	// kubectl patch --type=json: a test guards a replace.
	out, err = patch.Apply(patch.JSON, "Pod", pod, []byte(`[
		{"op":"test","path":"/spec/containers/0/image","value":"nginx:1.27"},
		{"op":"replace","path":"/spec/containers/0/image","value":"nginx:1.28"}]`))
	fmt.Println(string(out), err)

	_, err = patch.Apply("application/apply-patch+yaml", "Pod", pod, []byte(`{}`))
	fmt.Println(err)
	// Output:
	// {"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"app":"web"},"name":"web"},"spec":{"containers":[{"image":"nginx:1.27","name":"app"}]}} <nil>
	// {"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"app":"web","tier":"fe"},"name":"web"},"spec":{"containers":[{"image":"nginx:1.28","name":"app"}]}} <nil>
	// patch: unsupported patch type "application/apply-patch+yaml"
}

// A strategic merge patch as `kubectl apply` sends it after the manifest
// dropped the env var B and changed the image: env merges by name, so only
// B is deleted; the server's own container "proxy" stays.
func ExampleApply_strategicMerge() {
	live := []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"template":{"spec":{"containers":[` +
		`{"name":"app","image":"nginx:1.27","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]},` +
		`{"name":"proxy","image":"envoy:1"}]}}}}`)
	p := []byte(`{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"app"}],"containers":[` +
		`{"$setElementOrder/env":[{"name":"A"}],"name":"app","image":"nginx:1.28","env":[{"$patch":"delete","name":"B"}]}]}}}}`)
	out, err := patch.Apply(patch.StrategicMerge, "Deployment", live, p)
	fmt.Println(string(out), err)
	// Output:
	// {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"template":{"spec":{"containers":[{"env":[{"name":"A","value":"1"}],"image":"nginx:1.28","name":"app"},{"image":"envoy:1","name":"proxy"}]}}}} <nil>
}

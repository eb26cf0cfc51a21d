package operator_test

import (
	"fmt"

	"github.com/ctrlkit/ctrlkit/examples/operator"
)

// The Website kind as the cluster serves it, and its validation.
func Example() {
	fmt.Println(operator.Kind.QualifiedResource(), operator.Kind.ShortNames, operator.Kind.Scale)
	for _, e := range operator.Kind.Validate(&operator.Website{Spec: operator.WebsiteSpec{Host: "blog"}}) {
		fmt.Println(e)
	}
	// Output:
	// websites.sites.example.com [ws] true
	// spec.host: Invalid value: "blog": must be a domain name
	// spec.image: Required value
}

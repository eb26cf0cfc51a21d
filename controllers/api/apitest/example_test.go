package apitest_test

import (
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/api/apitest"
)

// Importing the package registers its kinds.
func Example() {
	info, ok := api.InfoFor[*apitest.Widget]()
	fmt.Println(ok, info.QualifiedResource(), info.Namespaced, info.Status, info.Scale)
	w := info.New().(*apitest.Widget)
	info.Default(w)
	fmt.Println(*w.Spec.Replicas, info.Validate(w))
	// Output:
	// true widgets.example.ctrlkit.dev true true true
	// 1 [spec.color: Required value]
}

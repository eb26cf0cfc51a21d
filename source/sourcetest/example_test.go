package sourcetest_test

import (
	"fmt"

	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/source/sourcetest"
)

// Object is what the suite stores; a source stamps the version of each
// write into it through source.VersionSetter.
func ExampleObject() {
	o := &sourcetest.Object{Key: "a", Value: "1"}
	var setter source.VersionSetter = o
	setter.SetResourceVersion("7")
	fmt.Println(sourcetest.ObjectKey(o), o.Value, o.GetResourceVersion())
	// Output: a 1 7
}

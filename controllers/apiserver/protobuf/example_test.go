package protobuf_test

import (
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver/protobuf"
)

// A ConfigMap travels as protobuf and back to JSON.
func Example() {
	pb, err := protobuf.Marshal([]byte(`{"apiVersion":"v1","kind":"ConfigMap",
		"metadata":{"name":"cm","namespace":"default"},"data":{"k":"v"}}`))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q\n", pb[:4])
	j, err := protobuf.Unmarshal(pb, "", "")
	if err != nil {
		panic(err)
	}
	fmt.Println(string(j))
	// Output:
	// "k8s\x00"
	// {"apiVersion":"v1","data":{"k":"v"},"kind":"ConfigMap","metadata":{"name":"cm","namespace":"default"}}
}

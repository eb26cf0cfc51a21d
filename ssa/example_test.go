package ssa_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/ssa"
)

func Example() {
	fm, err := ssa.New()
	if err != nil {
		panic(err)
	}
	cm := api.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	applied := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: default\ndata:\n  color: blue\n")
	out, err := fm.Apply(context.Background(), cm, nil, applied, "kubectl", "", false)
	if err != nil {
		panic(err)
	}
	var obj api.ConfigMap
	if err := json.Unmarshal(out, &obj); err != nil {
		panic(err)
	}
	e := obj.ManagedFields[0]
	fmt.Println(e.Manager, e.Operation, e.APIVersion, string(e.FieldsV1.Raw))
	// Output: kubectl Apply v1 {"f:data":{"f:color":{}}}
}

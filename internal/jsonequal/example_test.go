package jsonequal_test

import (
	"fmt"

	"github.com/ctrlkit/ctrlkit/internal/jsonequal"
)

type status struct {
	Phase      string   `json:"phase,omitempty"`
	Conditions []string `json:"conditions,omitempty"`
	Hosts      []string `json:"hosts"`
}

func ExampleEqual() {
	// Both omit conditions: the same encoding.
	fmt.Println(jsonequal.Equal(status{Conditions: nil}, status{Conditions: []string{}}))
	// hosts is null against []: not the same.
	fmt.Println(jsonequal.Equal(status{Hosts: nil}, status{Hosts: []string{}}))
	fmt.Println(jsonequal.Equal(status{Phase: "Running"}, status{Phase: "Pending"}))
	// Output:
	// true
	// false
	// false
}

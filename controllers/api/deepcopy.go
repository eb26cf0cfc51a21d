package api

// The DeepCopyInto, DeepCopy and DeepCopyObject methods of every API type
// are generated into the *_deepcopy.go files, one beside each file that
// declares types, by internal/deepcopygen. Quantity, Time, MicroTime and
// IntOrString hold no shared mutable state and are copied by assignment.

//go:generate go run ./internal/deepcopygen

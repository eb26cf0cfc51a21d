// Package badlist declares types whose list markers kube-apiserver
// rejects, for crdgen's tests.
package badlist

// Item is an element of the lists.
type Item struct {
	// Name is optional, so it cannot key a map list.
	Name string `json:"name,omitempty"`
	// Port is required.
	Port int32 `json:"port"`
	// Sub is an object.
	Sub *Item2 `json:"sub,omitempty"`
}

// Item2 is a nested object.
type Item2 struct {
	// A is a string.
	A string `json:"a,omitempty"`
}

// OptionalKey keys a map list by an optional field.
type OptionalKey struct {
	// +listType=map
	// +listMapKey=name
	Items []Item `json:"items"`
}

// ObjectSet is a set of objects.
type ObjectSet struct {
	// +listType=set
	Items []Item `json:"items"`
}

// NoKeys is a map list without keys.
type NoKeys struct {
	// +listType=map
	Items []Item `json:"items"`
}

// BadType is a list of an unknown type.
type BadType struct {
	// +listType=bag
	Items []Item `json:"items"`
}

// KeyWithoutMap has a key but no list type.
type KeyWithoutMap struct {
	// +listMapKey=port
	Items []Item `json:"items"`
}

// NotAList has a list type on a string.
type NotAList struct {
	// +listType=set
	Name string `json:"name"`
}

// Good keys a map list by a required field.
type Good struct {
	// +listType=map
	// +listMapKey=port
	Items []Item `json:"items"`
}

// UnknownMarker misspells a marker.
type UnknownMarker struct {
	// +kubebuilder:validation:Minimun=1
	N int32 `json:"n"`
}

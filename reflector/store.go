package reflector

// Store is what a Reflector writes into. deltafifo.DeltaFIFO implements it.
// Every call carries the resourceVersion of the change so that the store
// always knows how far it has caught up.
type Store[T any] interface {
	// Add records a new object seen at rv.
	Add(obj T, rv string) error
	// Update records a changed object seen at rv.
	Update(obj T, rv string) error
	// Delete records that obj (its last state) was deleted at rv.
	Delete(obj T, rv string) error
	// Replace replaces the whole contents with items, consistent at rv.
	Replace(items []T, rv string) error
	// Resync asks the store to re-deliver what it knows (periodic resync).
	Resync() error
}

// BookmarkStore is implemented by stores that want to hear about versions
// that carry no change (Bookmark events).
type BookmarkStore interface {
	Bookmark(rv string)
}

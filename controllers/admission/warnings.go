package admission

import "context"

type warningsKey struct{}

// WithWarnings returns a copy of ctx whose writes pass the warnings of
// their admission plugins to record: the API server records them for the
// request in flight and sends them to the client as Warning headers,
// which kubectl prints as "Warning: ...", as kube-apiserver does with an
// admission webhook's warnings. record must be safe for concurrent use.
func WithWarnings(ctx context.Context, record func(warning string)) context.Context {
	return context.WithValue(ctx, warningsKey{}, record)
}

// Warn records warning for the request of ctx; it does nothing when the
// request has no recorder (an in-process write, where nobody would read
// it) or the warning is empty.
func Warn(ctx context.Context, warning string) {
	if warning == "" {
		return
	}
	if record, ok := ctx.Value(warningsKey{}).(func(string)); ok {
		record(warning)
	}
}

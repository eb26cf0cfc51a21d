package fakeclient

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/source"
)

// ErrInjected is the error of FailNth and LoseReplyNth when they are
// given none.
var ErrInjected = errors.New("fakeclient: injected failure")

// Action is one call a Client saw: what was asked and the error that came
// back. It is what a test asserts a controller's calls with, as
// client-go's testing.Action.
type Action struct {
	// Verb is the Kubernetes verb: "get", "list", "watch", "create",
	// "update", "delete" or "patch" (see client.Call).
	Verb string
	// Resource is the plural resource name ("pods").
	Resource string
	// Subresource is "status", "scale", "binding" or "".
	Subresource string
	// Namespace and Name are the object's ("" for a cluster-scoped kind;
	// Name "" for list and watch, and for a create with generateName).
	// A list's or watch's Namespace is its SelectOptions'.
	Namespace, Name string
	// Object is a deep copy of what a create, update or update-status
	// sent; nil for the other verbs.
	Object api.Object
	// IfVersion is Update's precondition argument.
	IfVersion string
	// PatchType and Patch (a copy) are a patch's.
	PatchType client.PatchType
	Patch     []byte
	// DeleteOptions are a delete's; Delete's ifVersion is
	// Preconditions.ResourceVersion.
	DeleteOptions client.DeleteOptions
	// SelectOptions are the Select's of a list or watch (client-go's
	// ListRestrictions); zero for a resource's own List and Watch.
	SelectOptions client.SelectOptions
	// ListOptions and WatchOptions are a list's and a watch's.
	ListOptions  source.ListOptions
	WatchOptions source.WatchOptions
	// Scale is a copy of the scale UpdateScale sent.
	Scale *api.Scale
	// NodeName is the node a binding assigns the pod to.
	NodeName string
	// Err is the error the call returned; it is set when the call
	// returns (reactors see nil).
	Err error
}

// Matches reports whether the action has the verb and resource, as
// client-go's Action.Matches. resource "pods/status" names a
// subresource; "pods" matches the object and its subresources.
func (a Action) Matches(verb, resource string) bool {
	return a.Verb == verb && matchResource(resource, a.Resource, a.Subresource)
}

// IsRead reports whether the action is a get, list or watch.
func (a Action) IsRead() bool {
	return a.Verb == "get" || a.Verb == "list" || a.Verb == "watch"
}

// String describes the action as "verb resource[/subresource]
// [namespace/]name", with " (error)" when it failed.
func (a Action) String() string {
	var b strings.Builder
	b.WriteString(a.Verb)
	b.WriteByte(' ')
	b.WriteString(a.Resource)
	if a.Subresource != "" {
		b.WriteByte('/')
		b.WriteString(a.Subresource)
	}
	if k := api.NamespacedKey(a.Namespace, a.Name); k != "" {
		b.WriteByte(' ')
		b.WriteString(k)
	}
	if a.Err != nil {
		fmt.Fprintf(&b, " (%v)", a.Err)
	}
	return b.String()
}

// ReactionFunc decides a call before it reaches the inner client, as
// client-go's testing.ReactionFunc: handled false passes the call on (to
// the next reactor, then to the inner client); handled true with an
// error fails the call with it, and with nil makes it succeed with zero
// results (a write dropped, a read of nothing), in both cases without
// reaching the inner client. It runs on the caller's goroutine, with no
// lock held, and must be safe for concurrent use.
type ReactionFunc func(action Action) (handled bool, err error)

// reactor is one entry of the chain: before decides the call before the
// inner client; after, if set, replaces the inner call's success with an
// error (a lost reply).
type reactor struct {
	verb, resource string
	before         ReactionFunc
	after          func() error
}

func (r reactor) matches(a Action) bool {
	return (r.verb == "*" || r.verb == a.Verb) &&
		(r.resource == "*" || matchResource(r.resource, a.Resource, a.Subresource))
}

// matchResource reports whether pattern ("pods", "pods/status")
// names the resource and subresource.
func matchResource(pattern, resource, subresource string) bool {
	if pattern == resource {
		return true
	}
	return subresource != "" && pattern == resource+"/"+subresource
}

// Client is a client.Client over another (normally the in-process
// cluster, which keeps the API server's semantics) that records every
// call as an Action and lets reactors fail calls before they reach it.
// It is also a client.Binder: Bind is the inner client's, recorded as
// the create of pods/binding (an error wrapping source.ErrUnsupported
// when the inner client has none). It is safe for concurrent use.
type Client struct {
	intercepted client.Client
	binder      client.Binder // nil when the inner client has none

	mu       sync.Mutex
	actions  []*Action // guarded by mu; an Action's Err is set under mu
	reactors []reactor // guarded by mu; copied on write
}

var (
	_ client.Client = (*Client)(nil)
	_ client.Binder = (*Client)(nil)
)

// New returns a Client that passes every call to inner, recorded.
func New(inner client.Client) *Client {
	c := &Client{}
	c.intercepted = client.Intercept(inner, c.intercept)
	if b, err := client.BinderFor(c.intercepted); err == nil {
		c.binder = b
	}
	return c
}

// ResourceFor implements client.Client: the inner client's resource with
// every call recorded. Use client.For.
func (c *Client) ResourceFor(gvk api.GroupVersionKind) (client.Untyped, error) {
	return c.intercepted.ResourceFor(gvk)
}

// Bind implements client.Binder with the inner client's binding
// subresource; an error wrapping source.ErrUnsupported, recorded, when
// the inner client has none.
func (c *Client) Bind(ctx context.Context, namespace, name, nodeName string) (string, error) {
	if c.binder != nil {
		return c.binder.Bind(ctx, namespace, name, nodeName)
	}
	call := client.Call{Verb: "create", Resource: "pods", Subresource: "binding", Key: api.NamespacedKey(namespace, name), NodeName: nodeName}
	err := c.intercept(ctx, call, func(context.Context) error {
		return fmt.Errorf("fakeclient: the inner client has no pods/binding subresource: %w", source.ErrUnsupported)
	})
	return "", err
}

// Actions returns the calls recorded since New or Reset, in the order
// they started.
func (c *Client) Actions() []Action {
	return c.filter(func(*Action) bool { return true })
}

// Writes returns the recorded calls that are not reads (create, update,
// delete, patch), successful or not, in the order they started: what a
// controller tried to change. Filter on Err for what succeeded.
func (c *Client) Writes() []Action {
	return c.filter(func(a *Action) bool { return !a.IsRead() })
}

func (c *Client) filter(keep func(*Action) bool) []Action {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Action
	for _, a := range c.actions {
		if keep(a) {
			out = append(out, *a)
		}
	}
	return out
}

// Reset forgets the recorded actions (client-go's ClearActions); the
// reactors stay. A call under way when Reset is called is not recorded.
func (c *Client) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.actions = nil
}

// PrependReactor puts fn first in the chain of reactors, for the calls
// with the verb and the resource ("*" for any; "pods" covers the pods'
// subresources, "pods/status" names one).
func (c *Client) PrependReactor(verb, resource string, fn ReactionFunc) {
	c.prepend(reactor{verb: verb, resource: resource, before: fn})
}

// AddReactor puts fn last in the chain of reactors (see PrependReactor).
func (c *Client) AddReactor(verb, resource string, fn ReactionFunc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reactors = append(c.reactors[:len(c.reactors):len(c.reactors)], reactor{verb: verb, resource: resource, before: fn})
}

func (c *Client) prepend(r reactor) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reactors = append([]reactor{r}, c.reactors...)
}

// FailNth makes the nth call (1 for the next one) with the verb and the
// resource that reaches this reactor, counted from now, fail with err
// (ErrInjected when nil) without reaching the inner client. It is
// prepended to the chain.
func (c *Client) FailNth(verb, resource string, n int, err error) {
	if err == nil {
		err = ErrInjected
	}
	nth := nthCounter(n)
	c.prepend(reactor{verb: verb, resource: resource, before: func(Action) (bool, error) {
		if nth() {
			return true, err
		}
		return false, nil
	}})
}

// LoseReplyNth makes the nth call (1 for the next one) with the verb and
// the resource that reaches this reactor, counted from now, reach the
// inner client and then, if it succeeded, fail with err
// (client.ErrServerTimeout when nil): the write happened but the
// controller does not know. It is prepended to the chain.
func (c *Client) LoseReplyNth(verb, resource string, n int, err error) {
	if err == nil {
		err = fmt.Errorf("fakeclient: the reply was lost: %w", client.ErrServerTimeout)
	}
	nth := nthCounter(n)
	c.prepend(reactor{verb: verb, resource: resource, after: func() error {
		if nth() {
			return err
		}
		return nil
	}})
}

// nthCounter returns a function that reports true on its nth call only.
func nthCounter(n int) func() bool {
	var (
		mu    sync.Mutex
		count int
	)
	return func() bool {
		mu.Lock()
		defer mu.Unlock()
		count++
		return count == n
	}
}

// intercept is the client.InterceptFunc of a Client: it records the call,
// runs the reactors, and calls next unless one handled the call.
func (c *Client) intercept(ctx context.Context, call client.Call, next func(context.Context) error) error {
	a := newAction(call)
	c.mu.Lock()
	c.actions = append(c.actions, a)
	chain := c.reactors
	c.mu.Unlock()

	err := c.run(ctx, *a, chain, next)
	c.mu.Lock()
	a.Err = err
	c.mu.Unlock()
	return err
}

// run runs the chain on a, then next, then the lost replies.
func (c *Client) run(ctx context.Context, a Action, chain []reactor, next func(context.Context) error) error {
	var after []func() error
	for _, r := range chain {
		if !r.matches(a) {
			continue
		}
		if r.after != nil {
			after = append(after, r.after)
			continue
		}
		if handled, err := r.before(a); handled {
			return err
		}
	}
	if err := next(ctx); err != nil {
		return err
	}
	var lost error
	for _, f := range after {
		if err := f(); err != nil && lost == nil {
			lost = err
		}
	}
	return lost
}

// newAction records call, copying what the caller may change later.
func newAction(call client.Call) *Action {
	a := &Action{
		Verb:          call.Verb,
		Resource:      call.Resource,
		Subresource:   call.Subresource,
		Namespace:     call.Namespace(),
		Name:          call.Name(),
		IfVersion:     call.IfVersion,
		PatchType:     call.PatchType,
		DeleteOptions: call.DeleteOptions,
		SelectOptions: call.SelectOptions,
		ListOptions:   call.ListOptions,
		WatchOptions:  call.WatchOptions,
		NodeName:      call.NodeName,
	}
	if call.Object != nil {
		a.Object = call.Object.DeepCopyObject()
	}
	if call.Patch != nil {
		a.Patch = append([]byte(nil), call.Patch...)
	}
	if g := call.DeleteOptions.GracePeriodSeconds; g != nil {
		v := *g
		a.DeleteOptions.GracePeriodSeconds = &v
	}
	if call.Scale != nil {
		a.Scale = call.Scale.DeepCopy()
	}
	return a
}

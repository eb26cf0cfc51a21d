package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
)

// The defaults of ClientOptions: kube-controller-manager's --kube-api-qps
// and --kube-api-burst, and the raw cache's bound.
const (
	DefaultQPS           = 20
	DefaultBurst         = 30
	DefaultRawCacheBytes = 64 << 20
)

// ClientOptions configure a Client. The zero value is kube-controller-
// manager's client: 20 requests per second, bursts of 30.
type ClientOptions struct {
	// QPS and Burst rate-limit every request of the Client, all kinds
	// together, with client-go's token bucket (rest.Config.QPS and
	// Burst). Defaults DefaultQPS and DefaultBurst; negative QPS turns
	// the limit off. A rest.Config with its own RateLimiter keeps it.
	QPS   float32
	Burst int
	// UserAgent is the User-Agent header; default client-go's
	// (rest.DefaultKubernetesUserAgent), or the rest.Config's.
	UserAgent string
	// RawCacheBytes bounds the memory of the server's JSON kept for the
	// objects read, so that writing one back loses none of the fields
	// ctrlkit's types do not model (see the package documentation).
	// Default DefaultRawCacheBytes; negative keeps nothing, and every
	// Update and UpdateStatus then reads the object first.
	RawCacheBytes int64
	// MaxUpdateRetries bounds how often an unconditional Update or
	// UpdateStatus (no resourceVersion to go by) reads the object again
	// after a conflict. Default 5.
	MaxUpdateRetries int
	// OrderedVersions makes every Resource the Client hands out, and
	// every ListWatcher their Select returns, a source.VersionComparer
	// that reads resourceVersions as unsigned decimal integers, as
	// Ordered does for a Source. The Kubernetes API conventions call
	// resourceVersions opaque, so a Client does not order them by
	// default; every etcd-backed server (kube-apiserver, the servers
	// built on k8s.io/apiserver, ctrlkit's own) issues etcd revisions,
	// which are ordered. Set it to let informers refuse to travel back
	// in time and wait for a version (informer.WaitForResourceVersion),
	// which read-your-writes gates (reconcile.NewConsistency) need.
	OrderedVersions bool
}

// Client is a client.Client and a client.Binder over a Kubernetes API
// server: one Resource per kind of package controllers/api, speaking
// Kubernetes JSON through client-go's REST machinery (so kubeconfig
// authentication, TLS, rate limits and retries of Retry-After responses
// are client-go's). It is safe for concurrent use and starts no
// goroutine but one per open watch.
type Client struct {
	rest  *rest.RESTClient
	raw   *rawCache
	opts  ClientOptions
	kinds map[api.GroupVersionKind]client.Untyped // the built-in kinds; read-only after NewClient
	pods  *Resource[*api.Pod]
	// dynamic holds the Resources of the kinds added with api.Register,
	// made at their first use; dynMu guards it.
	dynMu   sync.Mutex
	dynamic map[api.GroupVersionKind]client.Untyped
}

var (
	_ client.Client             = (*Client)(nil)
	_ client.Binder             = (*Client)(nil)
	_ client.Resource[*api.Pod] = (*Resource[*api.Pod])(nil)
)

// NewClient returns a Client of the API server cfg points at (a
// *rest.Config from clientcmd.BuildConfigFromFlags, rest.InClusterConfig,
// …). cfg is copied; requests and responses are JSON whatever its
// ContentConfig says.
func NewClient(cfg *rest.Config, opts ClientOptions) (*Client, error) {
	if cfg == nil {
		return nil, errors.New("kube: NewClient: nil config")
	}
	switch {
	case opts.Burst < 0:
		return nil, fmt.Errorf("kube: NewClient: ClientOptions.Burst is negative (%d)", opts.Burst)
	case opts.MaxUpdateRetries < 0:
		return nil, fmt.Errorf("kube: NewClient: ClientOptions.MaxUpdateRetries is negative (%d)", opts.MaxUpdateRetries)
	}
	if opts.QPS == 0 {
		opts.QPS = DefaultQPS
	}
	if opts.Burst == 0 {
		opts.Burst = DefaultBurst
	}
	if opts.RawCacheBytes == 0 {
		opts.RawCacheBytes = DefaultRawCacheBytes
	}
	if opts.MaxUpdateRetries == 0 {
		opts.MaxUpdateRetries = 5
	}
	c := rest.CopyConfig(cfg)
	c.QPS, c.Burst = opts.QPS, opts.Burst
	if opts.UserAgent != "" {
		c.UserAgent = opts.UserAgent
	}
	if c.UserAgent == "" {
		c.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	// JSON both ways, and a decoder of metav1.Status for the errors, as
	// the dynamic client configures itself.
	rc, err := rest.UnversionedRESTClientFor(dynamic.ConfigFor(c))
	if err != nil {
		return nil, fmt.Errorf("kube: NewClient: %w", err)
	}
	cl := &Client{rest: rc, raw: newRawCache(opts.RawCacheBytes), opts: opts, kinds: map[api.GroupVersionKind]client.Untyped{},
		dynamic: map[api.GroupVersionKind]client.Untyped{}}
	for _, info := range api.Registered() {
		if !api.IsBuiltin(info.GroupVersionKind) {
			continue // ResourceFor makes them at their first use
		}
		i := slices.IndexFunc(kindInstances, func(i kindInstance) bool { return i.typ == info.GoType() })
		if i < 0 {
			return nil, fmt.Errorf("kube: NewClient: no resource for %s (%v): run go generate in controllers/api", info.GroupVersionKind, info.GoType())
		}
		cl.kinds[info.GroupVersionKind] = kindInstances[i].new(cl, info.GroupVersionKind)
	}
	cl.pods = newResource[*api.Pod](cl, (&api.Pod{}).GroupVersionKind())
	return cl, nil
}

// kindInstance makes the Resource of one Go type of controllers/api;
// kindInstances (zz_generated_kinds.go, written by go generate in
// controllers/api) holds one per built-in kind, and NewClient serves
// every built-in kind through it. The kinds added with api.Register are
// served by a Resource[api.Object] that decodes into the kind's Go type
// (see ResourceFor).
type kindInstance struct {
	typ reflect.Type
	new func(*Client, api.GroupVersionKind) client.Untyped
}

func instantiate[T api.Object]() kindInstance {
	return kindInstance{reflect.TypeFor[T](), func(c *Client, gvk api.GroupVersionKind) client.Untyped {
		return newUntyped[T](c, gvk)
	}}
}

// newUntyped returns the Resource[T] of kind gvk, ordered when the
// options ask for it.
func newUntyped[T api.Object](c *Client, gvk api.GroupVersionKind) client.Untyped {
	r := newResource[T](c, gvk)
	if c.opts.OrderedVersions {
		return &orderedResource[T]{r}
	}
	return r
}

// PluralOf returns the resource name of kind gvk as the API server's
// discovery names it: the plural of its registration in controllers/api
// (api.KindInfo.Resource: "pods", "endpoints", "storageclasses"); for a
// kind not registered there, apimachinery's guess from the kind.
func PluralOf(gvk api.GroupVersionKind) string {
	if info, ok := api.InfoOf(gvk); ok {
		return info.Resource
	}
	plural, _ := meta.UnsafeGuessKindToResource(schema.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind})
	return plural.Resource
}

// ResourceFor implements client.Client: the *Resource[T] of kind gvk,
// where T is its Go type in controllers/api; for a kind added with
// api.Register (before or after NewClient), a *Resource[api.Object]
// whose objects are of the kind's Go type (client.For types it,
// client.ForKind serves it as is) once the server's discovery lists it
// (until its CustomResourceDefinition is installed it is
// client.ErrUnknownKind, asked again at the next call);
// client.ErrUnknownKind for any other kind, group or version. Use
// client.For.
func (c *Client) ResourceFor(gvk api.GroupVersionKind) (client.Untyped, error) {
	if c == nil {
		return nil, fmt.Errorf("kube: nil client serves no %s: %w", gvk, client.ErrUnknownKind)
	}
	if r, ok := c.kinds[gvk]; ok {
		return r, nil
	}
	if _, ok := api.InfoOf(gvk); !ok || api.IsBuiltin(gvk) {
		return nil, fmt.Errorf("kube: %s is not served: %w", gvk, client.ErrUnknownKind)
	}
	c.dynMu.Lock()
	defer c.dynMu.Unlock()
	r, ok := c.dynamic[gvk]
	if !ok {
		// The program knows the kind; the server may not (its CRD not
		// installed): ask discovery, as kube-controller-manager does
		// before it watches a resource. A kind not served is not
		// remembered, so a later call sees it once it is.
		info, _ := api.InfoOf(gvk)
		if err := c.served(gvk, info.Resource); err != nil {
			return nil, err
		}
		r = newUntyped[api.Object](c, gvk)
		c.dynamic[gvk] = r
	}
	return r, nil
}

// discoveryTimeout bounds the discovery request of served.
const discoveryTimeout = 10 * time.Second

// served asks the server's discovery whether it serves resource in gvk's
// group and version: nil if it does, an error wrapping
// client.ErrUnknownKind if it does not, another error if discovery fails.
func (c *Client) served(gvk api.GroupVersionKind, resource string) error {
	ctx, cancel := context.WithTimeout(context.Background(), discoveryTimeout)
	defer cancel()
	path := []string{"/apis", gvk.Group, gvk.Version}
	if gvk.Group == "" {
		path = []string{"/api", gvk.Version}
	}
	raw, err := c.rest.Get().AbsPath(path...).Do(ctx).Raw()
	if err != nil {
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("kube: the server does not serve %s: %w", gvk.APIVersion(), client.ErrUnknownKind)
		}
		return fmt.Errorf("kube: discovery of %s: %w", gvk.APIVersion(), err)
	}
	var list struct {
		Resources []struct {
			Name string `json:"name"`
			Kind string `json:"kind"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return fmt.Errorf("kube: discovery of %s: %w", gvk.APIVersion(), err)
	}
	for _, r := range list.Resources {
		if r.Name == resource && r.Kind == gvk.Kind {
			return nil
		}
	}
	return fmt.Errorf("kube: the server does not serve %s in %s: %w", resource, gvk.APIVersion(), client.ErrUnknownKind)
}

// RateLimit returns the QPS of the Client's rate limiter and the burst
// ClientOptions asked for (0, 0 when there is no limiter). A rest.Config
// with its own RateLimiter reports that limiter's QPS.
func (c *Client) RateLimit() (qps float32, burst int) {
	if rl := c.rest.GetRateLimiter(); rl != nil {
		return rl.QPS(), c.opts.Burst
	}
	return 0, 0
}

// Bind implements client.Binder: a POST of a v1 Binding to the pod's
// binding subresource, which sets spec.nodeName (and the PodScheduled
// condition). The API server answers with a Status, without the pod's
// new resourceVersion, so Bind returns "".
func (c *Client) Bind(ctx context.Context, namespace, name, nodeName string) (string, error) {
	if ctx == nil {
		return "", errors.New("kube: Bind: nil context")
	}
	if nodeName == "" {
		return "", fmt.Errorf("kube: bind pod %s/%s: empty node name: %w", namespace, name, client.ErrBadRequest)
	}
	type ref struct {
		APIVersion string `json:"apiVersion,omitempty"`
		Kind       string `json:"kind,omitempty"`
		Name       string `json:"name"`
	}
	body, err := json.Marshal(struct {
		APIVersion string         `json:"apiVersion"`
		Kind       string         `json:"kind"`
		Metadata   api.ObjectMeta `json:"metadata"`
		Target     ref            `json:"target"`
	}{"v1", "Binding", api.ObjectMeta{Namespace: namespace, Name: name}, ref{"v1", "Node", nodeName}})
	if err != nil {
		return "", err
	}
	r := c.pods.request("POST", namespace).Name(name).SubResource("binding").SetHeader("Content-Type", "application/json").Body(body)
	if _, err := c.do(ctx, r); err != nil {
		return "", c.pods.fail("bind pod "+api.NamespacedKey(namespace, name), err)
	}
	return "", nil
}

// do runs r and returns the body of its answer, or the error with the
// Status the server sent decoded (an *apierrors.StatusError).
func (c *Client) do(ctx context.Context, r *rest.Request) ([]byte, error) {
	res := r.Do(ctx)
	body, err := res.Raw()
	if err != nil {
		return nil, res.Error()
	}
	return body, nil
}

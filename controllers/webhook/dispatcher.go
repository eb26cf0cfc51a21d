package webhook

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver/patch"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/source"
)

// Options configure a Dispatcher. The zero value is ready to use.
type Options struct {
	// ServiceURL returns the URL a webhook whose clientConfig names a
	// Service is called at. Default DefaultServiceURL:
	// https://NAME.NAMESPACE.svc:PORT/PATH. Whatever the URL, the
	// server's certificate is verified for NAME.NAMESPACE.svc, as
	// kube-apiserver does.
	ServiceURL func(ref api.ServiceReference) (*url.URL, error)
	// DialContext, if set, opens the connections to the webhooks (an
	// in-memory network in tests); default: the system's.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// RootCAs verify a webhook's certificate when its caBundle is empty;
	// nil: the system roots.
	RootCAs *x509.CertPool
	// Warn receives each warning a webhook returns; nil passes them to
	// admission.Warn, so that the API server answers the request with them
	// as Warning headers (kubectl prints "Warning: ..."), as kube-apiserver
	// does.
	Warn func(ctx context.Context, webhook, warning string)
	// MatchConditions, when set, evaluates a webhook's matchConditions
	// (CEL) on the request it would be sent (the crdcel module's
	// crdcel.MatchConditions does, with kube-apiserver's own code). nil:
	// a webhook with matchConditions is called as if they all held.
	MatchConditions MatchConditionsFunc
}

// MatchConditionsFunc evaluates the matchConditions of the webhook named
// webhook for req, the request it would be sent (its object, oldObject,
// options and userInfo set): false when one of them is false; true with
// a nil error when all hold; an error when one could not be evaluated
// (or compiled) and none is false — the webhook's failurePolicy then
// decides: Fail refuses the write with 403 Forbidden, as kube-apiserver
// does, Ignore skips the webhook.
type MatchConditionsFunc func(ctx context.Context, webhook string, conditions []api.MatchCondition, req *AdmissionRequest) (bool, error)

// DefaultServiceURL is the default Options.ServiceURL:
// https://NAME.NAMESPACE.svc:PORT/PATH (port 443 when unset).
func DefaultServiceURL(ref api.ServiceReference) (*url.URL, error) {
	port := int32(443)
	if ref.Port != nil {
		port = *ref.Port
	}
	u := &url.URL{Scheme: "https", Host: net.JoinHostPort(ref.Name+"."+ref.Namespace+".svc", strconv.Itoa(int(port)))}
	if ref.Path != nil {
		u.Path = *ref.Path
	}
	return u, nil
}

// Dispatcher calls the admission webhooks of the cluster's
// ValidatingWebhookConfigurations and MutatingWebhookConfigurations. Its
// Mutate is an admission.MutatingFunc and its Validate an
// admission.ValidatingFunc; a Dispatcher is safe for concurrent use.
type Dispatcher struct {
	opts Options
	c    atomic.Pointer[clientRef]
}

type clientRef struct{ c client.Client }

// New returns a Dispatcher; it calls nothing until SetClient gives it
// the client its configurations are read through.
func New(opts Options) *Dispatcher {
	if opts.ServiceURL == nil {
		opts.ServiceURL = DefaultServiceURL
	}
	return &Dispatcher{opts: opts}
}

// SetClient sets the client the dispatcher reads webhook configurations
// and namespaces through (the cluster whose admission chain it is in,
// which exists only after its Options are built). Until it is called,
// Mutate and Validate admit everything.
func (d *Dispatcher) SetClient(c client.Client) { d.c.Store(&clientRef{c}) }

// hook is one webhook of a configuration, in either kind's shape.
type hook struct {
	config   string
	w        api.ValidatingWebhook
	reinvoke bool // mutating, reinvocationPolicy IfNeeded
}

// exempt reports whether a is a write the webhooks never see: the
// webhook configurations themselves, as kube-apiserver exempts them.
func exempt(a admission.Attributes) bool {
	return a.Kind.Group == "admissionregistration.k8s.io" &&
		(a.Kind.Kind == "ValidatingWebhookConfiguration" || a.Kind.Kind == "MutatingWebhookConfiguration")
}

// hooks lists the webhooks of one kind of configuration, ordered by
// configuration name, then by their order in it.
func (d *Dispatcher) hooks(ctx context.Context, mutating bool) ([]hook, client.Client, error) {
	ref := d.c.Load()
	if ref == nil {
		return nil, nil, nil
	}
	var out []hook
	if mutating {
		res, err := client.For[*api.MutatingWebhookConfiguration](ref.c)
		if err != nil {
			return nil, nil, err
		}
		l, err := res.List(ctx, source.ListOptions{})
		if err != nil {
			return nil, nil, err
		}
		slices.SortStableFunc(l.Items, func(a, b *api.MutatingWebhookConfiguration) int { return cmpString(a.Name, b.Name) })
		for _, cfg := range l.Items {
			for _, w := range cfg.Webhooks {
				out = append(out, hook{config: cfg.Name, reinvoke: w.ReinvocationPolicy != nil && *w.ReinvocationPolicy == api.IfNeededReinvocationPolicy,
					w: api.ValidatingWebhook{Name: w.Name, ClientConfig: w.ClientConfig, Rules: w.Rules, FailurePolicy: w.FailurePolicy,
						MatchPolicy: w.MatchPolicy, NamespaceSelector: w.NamespaceSelector, ObjectSelector: w.ObjectSelector,
						SideEffects: w.SideEffects, TimeoutSeconds: w.TimeoutSeconds, AdmissionReviewVersions: w.AdmissionReviewVersions,
						MatchConditions: w.MatchConditions}})
			}
		}
		return out, ref.c, nil
	}
	res, err := client.For[*api.ValidatingWebhookConfiguration](ref.c)
	if err != nil {
		return nil, nil, err
	}
	l, err := res.List(ctx, source.ListOptions{})
	if err != nil {
		return nil, nil, err
	}
	slices.SortStableFunc(l.Items, func(a, b *api.ValidatingWebhookConfiguration) int { return cmpString(a.Name, b.Name) })
	for _, cfg := range l.Items {
		for _, w := range cfg.Webhooks {
			out = append(out, hook{config: cfg.Name, w: w})
		}
	}
	return out, ref.c, nil
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Mutate is the mutating phase: it calls each matching mutating webhook
// in order (by configuration name, then webhook order), applies the
// JSON patches they return to a.Object, and then calls once more each
// webhook with reinvocationPolicy IfNeeded that a later webhook's change
// followed. The first refusal or failed call (policy Fail) is its error.
func (d *Dispatcher) Mutate(ctx context.Context, a admission.Attributes) error {
	if exempt(a) {
		return nil
	}
	hooks, c, err := d.hooks(ctx, true)
	if err != nil || len(hooks) == 0 {
		return err
	}
	var nsLabels *labelsOnce
	if c != nil {
		nsLabels = &labelsOnce{c: c}
	}
	var invoked, again []int // reinvocable webhooks called, and those to call again
	for i := range hooks {
		ok, err := d.shouldCall(ctx, &hooks[i].w, a, nsLabels)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		changed, err := d.call(ctx, &hooks[i].w, a, true)
		if err != nil {
			return err
		}
		if changed {
			again = append(again, invoked...)
			invoked = invoked[:0]
		}
		if hooks[i].reinvoke {
			invoked = append(invoked, i)
		}
	}
	slices.Sort(again)
	for _, i := range slices.Compact(again) {
		if _, err := d.call(ctx, &hooks[i].w, a, true); err != nil {
			return err
		}
	}
	return nil
}

// Validate is the validating phase: it calls every matching validating
// webhook, in parallel, and returns the refusal or failure of the first
// in order (by configuration name, then webhook order), if any.
func (d *Dispatcher) Validate(ctx context.Context, a admission.Attributes) error {
	if exempt(a) {
		return nil
	}
	hooks, c, err := d.hooks(ctx, false)
	if err != nil || len(hooks) == 0 {
		return err
	}
	nsLabels := &labelsOnce{c: c}
	var calls []int
	for i := range hooks {
		ok, err := d.shouldCall(ctx, &hooks[i].w, a, nsLabels)
		if err != nil {
			return err
		}
		if ok {
			calls = append(calls, i)
		}
	}
	errs := make([]error, len(hooks))
	var wg sync.WaitGroup
	for _, i := range calls {
		wg.Go(func() { _, errs[i] = d.call(ctx, &hooks[i].w, a, false) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// labelsOnce reads the labels of the request's namespace once per
// request.
type labelsOnce struct {
	c      client.Client
	once   sync.Once
	labels map[string]string
	err    error
}

func (l *labelsOnce) get(ctx context.Context, ns string) (map[string]string, error) {
	l.once.Do(func() {
		res, err := client.For[*api.Namespace](l.c)
		if err != nil {
			l.err = err
			return
		}
		n, _, err := res.Get(ctx, ns)
		if err != nil {
			l.err = fmt.Errorf("webhook: namespace %q of the request: %w", ns, err)
			return
		}
		l.labels = n.Labels
	})
	return l.labels, l.err
}

// shouldCall reports whether w is called for a: its rules, its
// namespace selector and its object selector match, its matchConditions
// hold (when Options.MatchConditions evaluates them; else they are taken
// to hold), and, for a dry run, it declares no side effects (else the
// request is refused, as kube-apiserver refuses it).
func (d *Dispatcher) shouldCall(ctx context.Context, w *api.ValidatingWebhook, a admission.Attributes, ns *labelsOnce) (bool, error) {
	if !slices.ContainsFunc(w.Rules, func(r api.RuleWithOperations) bool { return ruleMatches(&r, a) }) {
		return false, nil
	}
	if ok, err := matchNamespace(ctx, w.NamespaceSelector, a, ns); err != nil || !ok {
		return false, err
	}
	if ok, err := matchObject(w.ObjectSelector, a); err != nil || !ok {
		return false, err
	}
	if len(w.MatchConditions) > 0 && d.opts.MatchConditions != nil {
		req, err := request(w, a)
		if err != nil {
			return false, err
		}
		ok, err := d.opts.MatchConditions(ctx, w.Name, w.MatchConditions, req)
		switch {
		case err != nil && (w.FailurePolicy == nil || *w.FailurePolicy != api.Ignore):
			// kube-apiserver fails closed: 403 with the evaluation errors.
			return false, &admission.ForbiddenError{Message: err.Error()}
		case err != nil || !ok:
			return false, nil
		}
	}
	if a.DryRun && (w.SideEffects == nil || *w.SideEffects != api.SideEffectClassNone && *w.SideEffects != api.SideEffectClassNoneOnDryRun) {
		return false, dryRunError(w.Name)
	}
	return true, nil
}

// call calls w for a and applies its answer: nil when it admitted the
// request (or failed with policy Ignore), a *DeniedError when it refused,
// a *CallError when the call failed with policy Fail. A mutating call
// applies the webhook's patch to a.Object and reports whether it changed
// it.
func (d *Dispatcher) call(ctx context.Context, w *api.ValidatingWebhook, a admission.Attributes, mutating bool) (bool, error) {
	resp, object, err := d.post(ctx, w, a, mutating)
	if err != nil {
		if w.FailurePolicy != nil && *w.FailurePolicy == api.Ignore {
			return false, nil
		}
		return false, &CallError{Webhook: w.Name, Err: err}
	}
	for _, warning := range resp.Warnings {
		if d.opts.Warn != nil {
			d.opts.Warn(ctx, w.Name, warning)
		} else {
			admission.Warn(ctx, warning)
		}
	}
	if !resp.Allowed {
		e := &DeniedError{Webhook: w.Name, Code: http.StatusBadRequest}
		if r := resp.Result; r != nil {
			e.Reason, e.Message = r.Reason, r.Message
			if r.Code >= http.StatusBadRequest {
				e.Code = r.Code
			}
		}
		return false, e
	}
	if !mutating || len(resp.Patch) == 0 {
		return false, nil
	}
	if !present(a.Object) {
		return false, fmt.Errorf("webhook: admission webhook %q attempted to modify the object, which is not supported for this operation", w.Name)
	}
	patched, err := patch.Apply(patch.JSON, a.Kind.Kind, object, resp.Patch)
	if err != nil {
		return false, fmt.Errorf("webhook: apply the patch of admission webhook %q: %w", w.Name, err)
	}
	if bytes.Equal(patched, object) {
		return false, nil
	}
	next := reflect.New(reflect.TypeOf(a.Object).Elem()).Interface().(api.Object)
	if err := json.Unmarshal(patched, next); err != nil {
		return false, fmt.Errorf("webhook: decode the object patched by admission webhook %q: %w", w.Name, err)
	}
	if m, n := a.Object.GetObjectMeta(), next.GetObjectMeta(); m.Name != n.Name || m.Namespace != n.Namespace || m.UID != n.UID {
		return false, fmt.Errorf("webhook: admission webhook %q may not change the object's name, namespace or uid", w.Name)
	}
	before, _ := json.Marshal(a.Object)
	reflect.ValueOf(a.Object).Elem().Set(reflect.ValueOf(next).Elem())
	after, _ := json.Marshal(a.Object)
	return !bytes.Equal(before, after), nil
}

// encodeObject returns obj's JSON with its apiVersion and kind.
func encodeObject(obj api.Object, gvk api.GroupVersionKind) (json.RawMessage, error) {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return nil, nil
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["apiVersion"], _ = json.Marshal(gvk.APIVersion())
	m["kind"], _ = json.Marshal(gvk.Kind)
	return json.Marshal(m)
}

// deleteOptions is meta.k8s.io/v1 DeleteOptions as an AdmissionRequest
// carries it.
type deleteOptions struct {
	api.TypeMeta       `json:",inline"`
	GracePeriodSeconds *int64         `json:"gracePeriodSeconds,omitempty"`
	Preconditions      *preconditions `json:"preconditions,omitempty"`
	PropagationPolicy  *string        `json:"propagationPolicy,omitempty"`
	DryRun             []string       `json:"dryRun,omitempty"`
}

type preconditions struct {
	UID             *string `json:"uid,omitempty"`
	ResourceVersion *string `json:"resourceVersion,omitempty"`
}

// encodeOptions returns the request's options: CreateOptions,
// UpdateOptions, or the DeleteOptions of a delete.
func encodeOptions(a admission.Attributes) (json.RawMessage, error) {
	switch a.Operation {
	case admission.Create:
		return json.RawMessage(`{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1"}`), nil
	case admission.Update:
		return json.RawMessage(`{"kind":"UpdateOptions","apiVersion":"meta.k8s.io/v1"}`), nil
	case admission.Delete:
	default:
		return nil, nil
	}
	o := deleteOptions{TypeMeta: api.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "DeleteOptions"}}
	if a.DryRun {
		o.DryRun = []string{"All"}
	}
	if d := a.DeleteOptions; d != nil {
		o.GracePeriodSeconds = d.GracePeriodSeconds
		if d.PropagationPolicy != "" {
			p := string(d.PropagationPolicy)
			o.PropagationPolicy = &p
		}
		if p := d.Preconditions; p.UID != "" || p.ResourceVersion != "" {
			o.Preconditions = &preconditions{}
			if p.UID != "" {
				uid := string(p.UID)
				o.Preconditions.UID = &uid
			}
			if p.ResourceVersion != "" {
				o.Preconditions.ResourceVersion = &p.ResourceVersion
			}
		}
	}
	return json.Marshal(o)
}

// reviewVersion is the AdmissionReview version to send w: the first of
// its admissionReviewVersions this server speaks.
func reviewVersion(w *api.ValidatingWebhook) (string, bool) {
	for _, v := range w.AdmissionReviewVersions {
		if v == "v1" || v == "v1beta1" {
			return "admission.k8s.io/" + v, true
		}
	}
	return "", false
}

// post sends w the AdmissionReview of a and returns its validated
// response and the object JSON it was sent.
func (d *Dispatcher) post(ctx context.Context, w *api.ValidatingWebhook, a admission.Attributes, mutating bool) (*AdmissionResponse, []byte, error) {
	version, ok := reviewVersion(w)
	if !ok {
		return nil, nil, fmt.Errorf("webhook does not accept known AdmissionReview versions %v", w.AdmissionReviewVersions)
	}
	areq, err := request(w, a)
	if err != nil {
		return nil, nil, err
	}
	uid, object := areq.UID, areq.Object
	review := AdmissionReview{TypeMeta: api.TypeMeta{APIVersion: version, Kind: "AdmissionReview"}, Request: areq}
	body, err := json.Marshal(review)
	if err != nil {
		return nil, nil, err
	}
	u, serverName, err := d.target(w)
	if err != nil {
		return nil, nil, err
	}
	httpClient, err := d.httpClient(w, serverName)
	if err != nil {
		return nil, nil, err
	}
	defer httpClient.CloseIdleConnections()
	timeout := 10 * time.Second
	if w.TimeoutSeconds != nil {
		timeout = time.Duration(*w.TimeoutSeconds) * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := httpClient.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to call webhook: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 3<<20))
	if err != nil {
		return nil, nil, fmt.Errorf("failed to call webhook: %w", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, nil, fmt.Errorf("failed to call webhook: the server responded with the status code %d but did not return more information", resp.StatusCode)
	}
	var got AdmissionReview
	if err := json.Unmarshal(data, &got); err != nil {
		return nil, nil, fmt.Errorf("received invalid webhook response: %w", err)
	}
	if err := verifyResponse(&got, version, uid, mutating); err != nil {
		return nil, nil, fmt.Errorf("received invalid webhook response: %w", err)
	}
	return got.Response, object, nil
}

// request is the request of a review of a for w, with a fresh uid.
func request(w *api.ValidatingWebhook, a admission.Attributes) (*AdmissionRequest, error) {
	object, err := encodeObject(a.Object, a.Kind)
	if err != nil {
		return nil, err
	}
	old, err := encodeObject(a.OldObject, a.Kind)
	if err != nil {
		return nil, err
	}
	gvk := GroupVersionKind{Group: a.Kind.Group, Version: a.Kind.Version, Kind: a.Kind.Kind}
	gvr := GroupVersionResource{Group: a.Kind.Group, Version: a.Kind.Version, Resource: a.Resource}
	options, err := encodeOptions(a)
	if err != nil {
		return nil, err
	}
	if object == nil && a.Operation == admission.Delete {
		object = json.RawMessage("null") // kube-apiserver sends "object": null
	}
	dryRun := a.DryRun
	return &AdmissionRequest{
		UID: newUID(), Kind: gvk, Resource: gvr, SubResource: a.Subresource,
		RequestKind: &gvk, RequestResource: &gvr, RequestSubResource: a.Subresource,
		Name: a.Name, Namespace: a.Namespace, Operation: string(a.Operation),
		UserInfo: UserInfo{Username: a.UserInfo.Username, UID: a.UserInfo.UID, Groups: a.UserInfo.Groups},
		Object:   object, OldObject: old, DryRun: &dryRun, Options: options,
	}, nil
}

// verifyResponse checks a webhook's answer as kube-apiserver's
// VerifyAdmissionResponse does.
func verifyResponse(r *AdmissionReview, version, uid string, mutating bool) error {
	if r.APIVersion != version || r.Kind != "AdmissionReview" {
		return fmt.Errorf("expected webhook response of %s, Kind=AdmissionReview, got %s, Kind=%s", version, r.APIVersion, r.Kind)
	}
	if r.Response == nil {
		return errors.New("response was absent")
	}
	if r.Response.UID != uid {
		return fmt.Errorf("expected response.uid=%q, got %q", uid, r.Response.UID)
	}
	switch pt := r.Response.PatchType; {
	case pt != nil && *pt != "JSONPatch":
		return fmt.Errorf("webhook returned invalid response.patchType of %q", *pt)
	case len(r.Response.Patch) > 0 && pt == nil:
		return errors.New("webhook returned response.patch but not response.patchType")
	case !mutating && (len(r.Response.Patch) > 0 || pt != nil):
		return errors.New("validating webhook may not return response.patch or response.patchType")
	}
	return nil
}

// target returns the URL w is called at and the name its certificate
// must be valid for.
func (d *Dispatcher) target(w *api.ValidatingWebhook) (*url.URL, string, error) {
	cc := &w.ClientConfig
	if cc.URL != nil {
		u, err := url.Parse(*cc.URL)
		if err != nil {
			return nil, "", err
		}
		return u, u.Hostname(), nil
	}
	if cc.Service == nil {
		return nil, "", errors.New("webhook has neither url nor service")
	}
	u, err := d.opts.ServiceURL(*cc.Service)
	if err != nil {
		return nil, "", fmt.Errorf("resolve service %s/%s: %w", cc.Service.Namespace, cc.Service.Name, err)
	}
	return u, cc.Service.Name + "." + cc.Service.Namespace + ".svc", nil
}

// httpClient returns a client that verifies the server's certificate for
// serverName against w's caBundle (the system roots, or Options.RootCAs,
// when empty).
func (d *Dispatcher) httpClient(w *api.ValidatingWebhook, serverName string) (*http.Client, error) {
	roots := d.opts.RootCAs
	if len(w.ClientConfig.CABundle) > 0 {
		roots = x509.NewCertPool()
		if !roots.AppendCertsFromPEM(w.ClientConfig.CABundle) {
			return nil, errors.New("unable to load root certificates: no certificates in caBundle")
		}
	}
	tr := &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: roots, ServerName: serverName, MinVersion: tls.VersionTLS12},
		DialContext:       d.opts.DialContext,
		ForceAttemptHTTP2: false,
		DisableKeepAlives: true,
	}
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}, nil
}

func newUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

package resourcequota

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/source"
)

// ErrExceeded is wrapped by the error of a write that would take a
// quota's usage over its hard limit ("exceeded quota: …"), that misses
// a request or limit a quota constrains ("failed quota: …"), or that
// meets a quota whose usage is not yet known ("status unknown for
// quota: …"), as kube-apiserver answers 403 Forbidden. The store's
// error wraps it: errors.Is(err, resourcequota.ErrExceeded).
var ErrExceeded = errors.New("resourcequota: forbidden by quota")

// ForbiddenError is the error of a write refused by quota. Its message
// is kube-apiserver's, exactly; errors.Is(err, ErrExceeded) holds, and
// so does errors.Is(err, client.ErrForbidden): it wraps an
// *admission.ForbiddenError of the same message, which the API server
// answers as kube-apiserver does, 403 Forbidden.
type ForbiddenError struct {
	// Quota is the name of the quota that refused the write.
	Quota string
	// Message is kube-apiserver's message.
	Message string
}

// Error returns the message.
func (e *ForbiddenError) Error() string { return e.Message }

// Is reports whether target is ErrExceeded.
func (e *ForbiddenError) Is(target error) bool { return target == ErrExceeded }

// Unwrap returns the admission refusal of the same message.
func (e *ForbiddenError) Unwrap() error { return &admission.ForbiddenError{Message: e.Message} }

func forbidden(quota, format string, args ...any) error {
	return &ForbiddenError{Quota: quota, Message: fmt.Sprintf(format, args...)}
}

// admissionRetries bounds the conflict retries of one admission's
// charge (kube-apiserver's evaluator retries and refetches the same way).
const admissionRetries = 16

// Admission is kube-apiserver's ResourceQuota admission plugin: Admit,
// an admission.ValidatingFunc, refuses a create (or an
// update that adds usage: a service's node ports, a claim's storage)
// that would take any quota of its namespace that counts it over
// status.hard, and otherwise charges the object's usage to each such
// quota's status.used before the object is stored, so that the next
// write sees it even before the quota controller recounts.
//
// The charge is a status update with the quota's resourceVersion as
// precondition; on a conflict (the quota controller or another API
// server wrote it) the quotas are read again and the check repeated.
// Within one Admission, writes in one namespace are serialized (as
// kube-apiserver's evaluator works on one namespace's requests at a
// time), so concurrent creates queue rather than conflict.
//
// It reads and charges the quotas through the client contract (the
// client SetClient gives it).
//
// Locks: the in-process cluster's store holds none of its own while
// admission runs (the service-address lock excepted, which quota writes
// never take), so
// the status update of a quota from inside Admit does not deadlock; that
// update comes back through Admit as an update of the resourcequotas
// status subresource, which Admit ignores before taking its namespace
// lock.
//
// Wire it as:
//
//	qa := resourcequota.NewAdmission()
//	c, err := cluster.New(ctx, cluster.Options{Admission: []admission.ValidatingFunc{qa.Admit}})
//	err = qa.SetClient(c)
//
// Until SetClient is called Admit admits everything (New itself
// creates the initial namespaces through admission).
type Admission struct {
	quotas atomic.Pointer[quotaClient]
	// mu guards locks.
	mu sync.Mutex
	// locks serializes the admissions of each namespace.
	locks map[string]*sync.Mutex
}

// quotaClient holds the resource Admit reads and charges quotas through.
type quotaClient struct {
	res client.Resource[*api.ResourceQuota]
}

// NewAdmission returns an Admission without a client; see SetClient.
func NewAdmission() *Admission { return &Admission{locks: map[string]*sync.Mutex{}} }

// SetClient sets the client whose quotas Admit reads and charges; an
// error when c does not serve resource quotas. It is safe to call
// concurrently with Admit.
func (a *Admission) SetClient(c client.Client) error {
	res, err := client.For[*api.ResourceQuota](c)
	if err != nil {
		return fmt.Errorf("resourcequota: %w", err)
	}
	a.quotas.Store(&quotaClient{res: res})
	return nil
}

func (a *Admission) lock(ns string) func() {
	a.mu.Lock()
	l, ok := a.locks[ns]
	if !ok {
		l = &sync.Mutex{}
		a.locks[ns] = l
	}
	a.mu.Unlock()
	l.Lock()
	return l.Unlock
}

// handles reports whether the quota system looks at this write (kcm's
// Evaluator.Handles): creates of every counted resource; updates (not
// of a subresource) of services and claims, whose usage can grow.
func handles(attr admission.Attributes) bool {
	if _, ok := countedKind(resourceOf(attr.Resource, attr.Object)); !ok || attr.Subresource != "" {
		return false
	}
	switch attr.Operation {
	case admission.Create:
		return true
	case admission.Update:
		return attr.Resource == "services" || attr.Resource == "persistentvolumeclaims"
	}
	return false
}

// Admit is the admission.ValidatingFunc; see Admission.
func (a *Admission) Admit(ctx context.Context, attr admission.Attributes) error {
	c := a.quotas.Load()
	if c == nil || !handles(attr) {
		return nil
	}
	ns := attr.Object.GetObjectMeta().Namespace
	if ns == "" {
		return nil
	}
	unlock := a.lock(ns)
	defer unlock()
	for range admissionRetries {
		list, err := c.res.List(ctx, source.ListOptions{})
		if err != nil {
			return fmt.Errorf("resourcequota: list quotas: %w", err)
		}
		var quotas []*api.ResourceQuota
		for _, q := range list.Items {
			if q.Namespace == ns {
				quotas = append(quotas, q)
			}
		}
		charged, err := Check(quotas, attr, time.Now())
		if err != nil {
			return err
		}
		conflict := false
		for _, q := range charged {
			cp := q.DeepCopy()
			if _, err := c.res.UpdateStatus(ctx, cp); err != nil {
				if errors.Is(err, source.ErrConflict) {
					conflict = true
					break
				}
				return fmt.Errorf("resourcequota: charge quota %s: %w", api.Key(q), err)
			}
		}
		if !conflict {
			return nil
		}
		// Quotas charged before the conflict stay charged: the quota
		// controller's next recount corrects them, as in Kubernetes.
	}
	return fmt.Errorf("resourcequota: %s %s: quota charge kept conflicting: %w", attr.Resource, api.Key(attr.Object), source.ErrConflict)
}

// Check is the pure core of admission (kube-apiserver's CheckRequest):
// given the quotas of the write's namespace, it returns the quotas to
// store with the write's usage added to status.used — only those the
// usage changes — or the error refusing the write, wrapping ErrExceeded,
// with kube-apiserver's messages:
//
//	failed quota: <name>: must specify limits.cpu for: c1; requests.memory for: c1
//	status unknown for quota: <name>, resources: pods
//	exceeded quota: <name>, requested: pods=1, used: pods=10, limited: pods=10
func Check(quotas []*api.ResourceQuota, attr admission.Attributes, now time.Time) ([]*api.ResourceQuota, error) {
	if !handles(attr) {
		return nil, nil
	}
	resource, obj := resourceOf(attr.Resource, attr.Object), attr.Object
	var matching []*api.ResourceQuota
	for _, q := range quotas {
		if !matches(q, names(q.Status.Hard), resource, obj) {
			continue
		}
		restricted := MatchingResources(resource, names(q.Status.Hard))
		if p, ok := obj.(*api.Pod); ok {
			if err := constraints(restricted, p); err != nil {
				return nil, forbidden(q.Name, "failed quota: %s: %v", q.Name, err)
			}
		}
		for _, n := range restricted {
			if _, ok := q.Status.Used[n]; !ok {
				return nil, forbidden(q.Name, "status unknown for quota: %s, resources: %s", q.Name, joinNames(restricted))
			}
		}
		matching = append(matching, q)
	}
	if len(matching) == 0 {
		return nil, nil
	}
	delta := Usage(resource, obj, now)
	var old api.ResourceList
	if attr.Operation == admission.Update && attr.OldObject != nil {
		old = Usage(resource, attr.OldObject, now)
	}
	var out []*api.ResourceQuota
	for _, q := range matching {
		d := delta
		if old != nil && matches(q, names(q.Status.Hard), resource, attr.OldObject) {
			d = subtractNonNegative(delta, old)
		}
		requested := api.ResourceList{}
		for n, v := range d {
			if _, ok := q.Status.Hard[n]; ok && !v.IsZero() {
				requested[n] = v
			}
		}
		if len(requested) == 0 {
			continue
		}
		used := q.Status.Used.DeepCopy()
		var exceeded []api.ResourceName
		for n, v := range requested {
			used[n] = used[n].Add(v)
			if used[n].Cmp(q.Status.Hard[n]) > 0 {
				exceeded = append(exceeded, n)
			}
		}
		if len(exceeded) > 0 {
			return nil, forbidden(q.Name, "exceeded quota: %s, requested: %s, used: %s, limited: %s", q.Name,
				prettyPrint(mask(requested, exceeded)), prettyPrint(mask(q.Status.Used, exceeded)),
				prettyPrint(mask(q.Status.Hard, exceeded)))
		}
		cp := q.DeepCopy()
		cp.Status.Used = used
		out = append(out, cp)
	}
	return out, nil
}

func subtractNonNegative(a, b api.ResourceList) api.ResourceList {
	out := api.ResourceList{}
	for n, v := range a {
		if w, ok := b[n]; ok {
			v = v.Sub(w)
		}
		if v.Sign() > 0 {
			out[n] = v
		}
	}
	return out
}

func mask(l api.ResourceList, keep []api.ResourceName) api.ResourceList {
	out := api.ResourceList{}
	for n, v := range l {
		if slices.Contains(keep, n) {
			out[n] = v
		}
	}
	return out
}

func joinNames(ns []api.ResourceName) string {
	l := api.ResourceList{}
	for _, n := range ns {
		l[n] = api.Quantity{}
	}
	s := ""
	for i, n := range names(l) {
		if i > 0 {
			s += ","
		}
		s += string(n)
	}
	return s
}

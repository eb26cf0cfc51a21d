package admission

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
)

// AnnotationLimitRanger is the annotation LimitRanger writes on a pod
// whose containers it gave defaults, naming them.
const AnnotationLimitRanger = "kubernetes.io/limit-ranger"

// LimitRanger is kube-apiserver's LimitRanger admission plugin
// (plugin/pkg/admission/limitranger): on the create of a pod, Admit (an
// admission MutatingFunc) gives each container and init container the
// default limits and requests of the Container items of its namespace's
// LimitRanges (default, defaultRequest) that it does not set, and
// Validate (a ValidatingFunc) refuses, with a ForbiddenError, a pod
// whose containers or whole (Pod items) break an item's min, max or
// maxLimitRequestRatio, and a claim (created or updated) whose storage
// request breaks a PersistentVolumeClaim item's min or max. Subresource
// writes and pod updates are not looked at, as in kube.
//
// Wire it as:
//
//	lr := admission.NewLimitRanger()
//	c, err := cluster.New(ctx, cluster.Options{Mutating: []admission.MutatingFunc{lr.Admit}, Admission: []admission.ValidatingFunc{lr.Validate}})
//	err = lr.SetClient(c)
//
// Until SetClient is called it admits everything unchanged.
type LimitRanger struct {
	res atomic.Pointer[client.Resource[*api.LimitRange]]
}

// NewLimitRanger returns a LimitRanger without a client; see SetClient.
func NewLimitRanger() *LimitRanger { return &LimitRanger{} }

// SetClient sets the client LimitRanger reads LimitRanges through; an
// error when c does not serve them.
func (l *LimitRanger) SetClient(c client.Client) error {
	res, err := client.For[*api.LimitRange](c)
	if err != nil {
		return fmt.Errorf("limitranger: %w", err)
	}
	l.res.Store(&res)
	return nil
}

// handles reports whether LimitRanger looks at a: creates of pods,
// creates and updates of claims, never a subresource.
func handles(a Attributes) bool {
	if a.Subresource != "" || a.Object == nil {
		return false
	}
	switch a.Resource {
	case "pods":
		return a.Operation == Create
	case "persistentvolumeclaims":
		return a.Operation == Create || a.Operation == Update
	}
	return false
}

// limitRanges returns the LimitRanges of namespace.
func (l *LimitRanger) limitRanges(ctx context.Context, namespace string) ([]*api.LimitRange, error) {
	res := l.res.Load()
	if res == nil {
		return nil, nil
	}
	lw, err := (*res).Select(client.SelectOptions{Namespace: namespace})
	if err != nil {
		return nil, err
	}
	list, err := lw.List(ctx, listAll)
	if err != nil {
		return nil, fmt.Errorf("limitranger: list limit ranges: %w", err)
	}
	return list.Items, nil
}

// Admit applies the defaults of the namespace's LimitRanges to a pod
// being created; see LimitRanger.
func (l *LimitRanger) Admit(ctx context.Context, a Attributes) error {
	pod, ok := a.Object.(*api.Pod)
	if !ok || !handles(a) {
		return nil
	}
	ranges, err := l.limitRanges(ctx, a.Namespace)
	if err != nil || len(ranges) == 0 {
		return err
	}
	var notes []string
	for _, lr := range ranges {
		for _, item := range lr.Spec.Limits {
			if item.Type != api.LimitTypeContainer {
				continue
			}
			for _, cs := range [][]api.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
				for i := range cs {
					notes = append(notes, defaultContainer(&cs[i], item.Default, item.DefaultRequest)...)
				}
			}
		}
	}
	if len(notes) > 0 {
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations[AnnotationLimitRanger] = "LimitRanger plugin set: " + strings.Join(notes, "; ")
	}
	return nil
}

// defaultContainer sets c's missing limits and requests from limits and
// requests, returning kube's notes ("cpu, memory request for container
// web").
func defaultContainer(c *api.Container, limits, requests api.ResourceList) []string {
	set := func(dst *api.ResourceList, from api.ResourceList) []string {
		var names []string
		for _, n := range sortedNames(from) {
			if _, ok := (*dst)[n]; ok {
				continue
			}
			if *dst == nil {
				*dst = api.ResourceList{}
			}
			(*dst)[n] = from[n]
			names = append(names, string(n))
		}
		return names
	}
	var notes []string
	if names := set(&c.Resources.Requests, requests); len(names) > 0 {
		notes = append(notes, strings.Join(names, ", ")+" request for container "+c.Name)
	}
	if names := set(&c.Resources.Limits, limits); len(names) > 0 {
		notes = append(notes, strings.Join(names, ", ")+" limit for container "+c.Name)
	}
	return notes
}

// Validate refuses a pod or claim that breaks a LimitRange of its
// namespace; see LimitRanger.
func (l *LimitRanger) Validate(ctx context.Context, a Attributes) error {
	if !handles(a) {
		return nil
	}
	ranges, err := l.limitRanges(ctx, a.Namespace)
	if err != nil || len(ranges) == 0 {
		return err
	}
	var errs []error
	for _, lr := range ranges {
		for _, item := range lr.Spec.Limits {
			switch obj := a.Object.(type) {
			case *api.Pod:
				errs = append(errs, validatePod(obj, &item)...)
			case *api.PersistentVolumeClaim:
				if item.Type == api.LimitTypePersistentVolumeClaim {
					errs = append(errs, checkItem(&item, string(item.Type), obj.Spec.Resources.Requests, obj.Spec.Resources.Limits, false)...)
				}
			}
		}
	}
	return forbidden(errs)
}

// validatePod checks pod against one LimitRange item: each container
// against a Container item, their sum against a Pod item.
func validatePod(pod *api.Pod, item *api.LimitRangeItem) []error {
	switch item.Type {
	case api.LimitTypeContainer:
		var errs []error
		for _, cs := range [][]api.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
			for _, c := range cs {
				errs = append(errs, checkItem(item, string(item.Type), c.Resources.Requests, c.Resources.Limits, true)...)
			}
		}
		return errs
	case api.LimitTypePod:
		return checkItem(item, string(item.Type), api.PodRequests(pod), api.PodLimits(pod), true)
	}
	return nil
}

// checkItem checks requests and limits against item's min, max and
// (withRatio) maxLimitRequestRatio, with kube's messages.
func checkItem(item *api.LimitRangeItem, limitType string, requests, limits api.ResourceList, withRatio bool) []error {
	var errs []error
	for _, n := range sortedNames(item.Min) {
		if err := minConstraint(limitType, string(n), item.Min[n], requests, limits); err != nil {
			errs = append(errs, err)
		}
	}
	for _, n := range sortedNames(item.Max) {
		if err := maxConstraint(limitType, string(n), item.Max[n], requests, limits, withRatio); err != nil {
			errs = append(errs, err)
		}
	}
	if withRatio {
		for _, n := range sortedNames(item.MaxLimitRequestRatio) {
			if err := ratioConstraint(limitType, string(n), item.MaxLimitRequestRatio[n], requests, limits); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errs
}

func minConstraint(limitType, name string, enforced api.Quantity, requests, limits api.ResourceList) error {
	req, hasReq := requests[api.ResourceName(name)]
	lim, hasLim := limits[api.ResourceName(name)]
	switch {
	case !hasReq:
		return fmt.Errorf("minimum %s usage per %s is %s.  No request is specified", name, limitType, enforced.String())
	case req.Cmp(enforced) < 0:
		return fmt.Errorf("minimum %s usage per %s is %s, but request is %s", name, limitType, enforced.String(), req.String())
	case hasLim && lim.Cmp(enforced) < 0:
		return fmt.Errorf("minimum %s usage per %s is %s, but limit is %s", name, limitType, enforced.String(), lim.String())
	}
	return nil
}

// maxConstraint checks a maximum; a claim (limitRequired false) has
// only a storage request to check.
func maxConstraint(limitType, name string, enforced api.Quantity, requests, limits api.ResourceList, limitRequired bool) error {
	req, hasReq := requests[api.ResourceName(name)]
	lim, hasLim := limits[api.ResourceName(name)]
	switch {
	case !hasLim && limitRequired:
		return fmt.Errorf("maximum %s usage per %s is %s.  No limit is specified", name, limitType, enforced.String())
	case hasLim && lim.Cmp(enforced) > 0:
		return fmt.Errorf("maximum %s usage per %s is %s, but limit is %s", name, limitType, enforced.String(), lim.String())
	case hasReq && req.Cmp(enforced) > 0:
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", name, limitType, enforced.String(), req.String())
	}
	return nil
}

func ratioConstraint(limitType, name string, enforced api.Quantity, requests, limits api.ResourceList) error {
	req, hasReq := requests[api.ResourceName(name)]
	lim, hasLim := limits[api.ResourceName(name)]
	if !hasReq || req.IsZero() {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no request is specified or request is 0", name, limitType, enforced.String())
	}
	if !hasLim || lim.IsZero() {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0", name, limitType, enforced.String())
	}
	observed := float64(lim.MilliValue()) / float64(req.MilliValue())
	if observed*1000 > float64(enforced.MilliValue()) {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but provided ratio is %f", name, limitType, enforced.String(), observed)
	}
	return nil
}

package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiextensions"
	"github.com/ctrlkit/ctrlkit/source"
)

// FinalizerCustomResourceCleanup is the finalizer every
// CustomResourceDefinition gets on create: deleting the definition
// deletes its custom resources first, then drops the finalizer
// (kube-apiserver's crd finalizer controller).
const FinalizerCustomResourceCleanup = "customresourcecleanup.apiextensions.k8s.io"

// ErrMethodNotAllowed is wrapped by the error of a request the resource
// does not allow now: a create of a custom resource whose definition is
// being deleted (405 MethodNotAllowed through an API server).
var ErrMethodNotAllowed = errors.New("method not allowed")

// crdDefinitionKind is the strategy of CustomResourceDefinitions:
// apiextensions' defaulting and validation, the cleanup finalizer, and a
// storage that serves the defined kind as soon as the definition is
// stored (see crdStorage).
func crdDefinitionKind() *kind[*api.CustomResourceDefinition] {
	k := newKind[*api.CustomResourceDefinition]()
	var c *Cluster // set by wrapStorage, when the cluster opens the store
	k.defaults = apiextensions.DefaultCRD
	k.prepareCreate = func(crd *api.CustomResourceDefinition) {
		if !slices.Contains(crd.Finalizers, FinalizerCustomResourceCleanup) {
			crd.Finalizers = append(crd.Finalizers, FinalizerCustomResourceCleanup)
		}
	}
	k.validate = func(crd *api.CustomResourceDefinition, fs *fieldErrors) {
		*fs = append(*fs, apiextensions.ValidateCRD(crd)...)
		if c != nil && c.opts.ValidationRules != nil {
			for i, v := range crd.Spec.Versions {
				if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
					continue
				}
				_, errs := c.opts.ValidationRules(v.Schema.OpenAPIV3Schema)
				for _, e := range errs {
					e.Field = fmt.Sprintf("spec.versions[%d].schema.openAPIV3Schema", i) + dotted(e.Field)
					*fs = append(*fs, e)
				}
			}
		}
		if cv := crd.Spec.Conversion; cv != nil && cv.Strategy == api.WebhookConverter && len(crd.Spec.Versions) > 1 {
			fs.add(FieldUnsupported, "spec.conversion.strategy", string(cv.Strategy),
				"conversion webhooks are not supported by this server: use the None strategy, or define one version")
		}
	}
	k.validateUpdate = func(old, crd *api.CustomResourceDefinition, fs *fieldErrors) {
		*fs = append(*fs, apiextensions.ValidateCRDUpdate(old, crd)...)
	}
	k.wrapStorage = func(cl *Cluster, st storage[*api.CustomResourceDefinition]) storage[*api.CustomResourceDefinition] {
		c = cl
		return &crdStorage{storage: st, c: cl}
	}
	return k
}

// crdStorage is the storage of CustomResourceDefinitions: it writes the
// status kube-apiserver's controllers would (accepted names,
// NamesAccepted, Established, Terminating, stored versions) with each
// write, and after each write serves, changes or stops serving the
// defined kind — at once, where kube-apiserver's controllers take a
// moment, so that a definition applied is served when the apply returns.
type crdStorage struct {
	storage[*api.CustomResourceDefinition]
	c *Cluster
}

func (s *crdStorage) Create(ctx context.Context, crd *api.CustomResourceDefinition) (string, error) {
	s.c.crdStatus(crd)
	rv, err := s.storage.Create(ctx, crd)
	if err == nil {
		s.c.crdChanged(ctx, crd.Name)
	}
	return rv, err
}

func (s *crdStorage) Update(ctx context.Context, crd *api.CustomResourceDefinition, ifVersion string) (string, error) {
	s.c.crdStatus(crd)
	rv, err := s.storage.Update(ctx, crd, ifVersion)
	if err == nil {
		s.c.crdChanged(ctx, crd.Name)
	}
	return rv, err
}

func (s *crdStorage) Delete(ctx context.Context, key, ifVersion string) (string, error) {
	rv, err := s.storage.Delete(ctx, key, ifVersion)
	if err == nil {
		s.c.crdChanged(ctx, key)
	}
	return rv, err
}

// crdStatus sets the status of crd, about to be stored: the names it is
// served under unless another definition or kind of its group holds
// them, the conditions, and its storage version among the stored ones.
func (c *Cluster) crdStatus(crd *api.CustomResourceDefinition) {
	st := &crd.Status
	t := api.NewTime(now())
	conflict := c.crdNameConflict(crd)
	if conflict == "" {
		st.AcceptedNames = crd.Spec.Names
		setCRDCondition(st, api.NamesAccepted, api.ConditionTrue, "NoConflicts", "no conflicts found", t)
		setCRDCondition(st, api.Established, api.ConditionTrue, "InitialNamesAccepted", "the initial names have been accepted", t)
	} else {
		setCRDCondition(st, api.NamesAccepted, api.ConditionFalse, "NameConflict", conflict, t)
		if !crdCondition(st, api.Established) {
			setCRDCondition(st, api.Established, api.ConditionFalse, "NotAccepted", "not all names are accepted", t)
		}
	}
	if v := storageVersion(crd); v != "" && !slices.Contains(st.StoredVersions, v) {
		st.StoredVersions = append(st.StoredVersions, v)
	}
	if st.StoredVersions == nil {
		st.StoredVersions = []string{}
	}
	if crd.DeletionTimestamp != nil {
		setCRDCondition(st, api.Terminating, api.ConditionTrue, "InstanceDeletionInProgress", "CustomResource deletion is in progress", t)
	}
}

// crdNameConflict returns why crd's names are taken in its group, or "".
func (c *Cluster) crdNameConflict(crd *api.CustomResourceDefinition) string {
	n, group := crd.Spec.Names, crd.Spec.Group
	for _, ki := range c.Kinds() {
		if ki.Group != group {
			continue
		}
		if s, ok := c.crdServed(group, ki.Kind); ok && s.name == crd.Name {
			continue // crd's own kind
		}
		switch {
		case ki.Resource == n.Plural:
			return fmt.Sprintf("%q is already in use", n.Plural)
		case ki.Kind == n.Kind:
			return fmt.Sprintf("%q is already in use", n.Kind)
		}
		for _, sn := range n.ShortNames {
			if slices.Contains(ki.ShortNames, sn) {
				return fmt.Sprintf("%q is already in use", sn)
			}
		}
	}
	return ""
}

func crdCondition(st *api.CustomResourceDefinitionStatus, typ api.CustomResourceDefinitionConditionType) bool {
	for _, c := range st.Conditions {
		if c.Type == typ {
			return c.Status == api.ConditionTrue
		}
	}
	return false
}

// setCRDCondition sets a condition, keeping its transition time when its
// status does not change.
func setCRDCondition(st *api.CustomResourceDefinitionStatus, typ api.CustomResourceDefinitionConditionType, status api.ConditionStatus, reason, msg string, t api.Time) {
	for i := range st.Conditions {
		c := &st.Conditions[i]
		if c.Type != typ {
			continue
		}
		if c.Status != status {
			c.LastTransitionTime = t
		}
		c.Status, c.Reason, c.Message = status, reason, msg
		return
	}
	st.Conditions = append(st.Conditions, api.CustomResourceDefinitionCondition{Type: typ, Status: status, LastTransitionTime: t, Reason: reason, Message: msg})
}

// storageVersion returns the name of crd's storage version, or "".
func storageVersion(crd *api.CustomResourceDefinition) string {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return ""
}

// crdServe is what the cluster serves of one definition: its state, the
// storage its objects live in (shared by the stores of every served
// version), and whether it is being deleted.
type crdServe struct {
	name  string // the definition's name, <plural>.<group>
	group string
	kind  string
	base  storage[api.Object]
	state *crdState
	// views are the stores of the served versions; views[0] is the
	// storage version's.
	views []*Store[api.Object]
	// terminating is set once the definition has a deletionTimestamp: no
	// more creates, the objects are being deleted.
	terminating atomic.Bool
}

// storageView returns the store of the storage version.
func (c *Cluster) storageView(s *crdServe) *Store[api.Object] {
	c.crdMu.Lock()
	defer c.crdMu.Unlock()
	if len(s.views) == 0 {
		return nil
	}
	return s.views[0]
}

// crdState is one version of a definition compiled for serving.
type crdState struct {
	crd      *api.CustomResourceDefinition
	storage  string
	versions map[string]*crdVersion
}

// crdVersion is one served version compiled.
type crdVersion struct {
	name       string
	schema     *apiextensions.Schema
	table      *apiextensions.Table
	status     bool
	scale      *api.CustomResourceSubresourceScale
	selectable []string
	rules      RuleCheck // the x-kubernetes-validations rules, or nil
}

// compileCRD compiles crd's served versions.
func compileCRD(crd *api.CustomResourceDefinition, rules ValidationRules) (*crdState, error) {
	st := &crdState{crd: crd, storage: storageVersion(crd), versions: map[string]*crdVersion{}}
	if st.storage == "" {
		return nil, errors.New("no storage version")
	}
	for _, v := range crd.Spec.Versions {
		if !v.Served && v.Name != st.storage {
			continue
		}
		cv := &crdVersion{name: v.Name}
		if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			s, err := apiextensions.Compile(v.Schema.OpenAPIV3Schema)
			if err != nil {
				return nil, fmt.Errorf("version %s: %w", v.Name, err)
			}
			cv.schema = s
			if rules != nil && s.HasValidationRules() {
				check, errs := rules(v.Schema.OpenAPIV3Schema)
				if len(errs) > 0 {
					return nil, fmt.Errorf("version %s: %v", v.Name, errs[0])
				}
				cv.rules = check
			}
		}
		cols := v.AdditionalPrinterColumns
		t, err := apiextensions.NewTable(cols)
		if err != nil {
			return nil, fmt.Errorf("version %s: %w", v.Name, err)
		}
		cv.table = t
		if v.Subresources != nil {
			cv.status = v.Subresources.Status != nil
			cv.scale = v.Subresources.Scale
		}
		for _, f := range v.SelectableFields {
			cv.selectable = append(cv.selectable, strings.TrimPrefix(f.JSONPath, "."))
		}
		st.versions[v.Name] = cv
	}
	return st, nil
}

// ServedDefinition returns the CustomResourceDefinition the cluster
// serves group and kind by, as it compiled it; false when no definition
// serves them. The definition is shared: do not modify it.
func (c *Cluster) ServedDefinition(group, kind string) (*api.CustomResourceDefinition, bool) {
	s, ok := c.crdServed(group, kind)
	if !ok {
		return nil, false
	}
	c.crdMu.Lock()
	defer c.crdMu.Unlock()
	if s.state == nil {
		return nil, false
	}
	return s.state.crd, true
}

// crdServed returns the served definition of group and kind.
func (c *Cluster) crdServed(group, kind string) (*crdServe, bool) {
	c.crdMu.Lock()
	defer c.crdMu.Unlock()
	s, ok := c.crds[[2]string{group, kind}]
	return s, ok
}

// crdChanged brings what the cluster serves in line with the stored
// definition name: serves its kind (opening its storage at the first
// time), rebuilds its stores when the definition changed, deletes its
// objects when the definition is being deleted and drops the cleanup
// finalizer once they are gone, and stops serving the kind when the
// definition is gone.
func (c *Cluster) crdChanged(ctx context.Context, name string) {
	crd, _, err := storeOf[*api.CustomResourceDefinition](c).s.Get(context.WithoutCancel(ctx), name)
	if err != nil && !errors.Is(err, source.ErrNotFound) {
		return
	}
	if errors.Is(err, source.ErrNotFound) {
		c.dropCRD(name)
		return
	}
	if !crdCondition(&crd.Status, api.Established) {
		c.dropCRD(name)
		return
	}
	s, err := c.serveCRD(crd)
	if err != nil || s == nil {
		return
	}
	if crd.DeletionTimestamp != nil {
		c.cleanupCRD(context.WithoutCancel(ctx), s)
	}
}

// serveCRD serves crd's kind, or serves it anew after a change.
func (c *Cluster) serveCRD(crd *api.CustomResourceDefinition) (*crdServe, error) {
	state, err := compileCRD(crd, c.opts.ValidationRules)
	if err != nil {
		return nil, err
	}
	key := [2]string{crd.Spec.Group, crd.Status.AcceptedNames.Kind}
	c.crdMu.Lock()
	defer c.crdMu.Unlock()
	s := c.crds[key]
	if s == nil {
		for k, o := range c.crds {
			if o.name == crd.Name { // the kind was renamed
				c.unserve(k, o)
			}
		}
		s = &crdServe{name: crd.Name, group: key[0], kind: key[1]}
		base, err := c.openCRDStorage(crd)
		if err != nil {
			return nil, err
		}
		s.base = base
		c.crds[key] = s
	}
	s.state = state
	s.terminating.Store(crd.DeletionTimestamp != nil)
	s.views = nil
	vs := slices.Collect(func(yield func(string) bool) {
		if !yield(state.storage) {
			return
		}
		for _, v := range crd.Spec.Versions {
			if v.Served && v.Name != state.storage && !yield(v.Name) {
				return
			}
		}
	})
	for _, v := range vs {
		s.views = append(s.views, c.crdView(s, state, v))
	}
	c.kindsMu.Lock()
	c.kinds.Store(c.kinds.Load().withCRD(key, s.views))
	c.kindsMu.Unlock()
	return s, nil
}

// dropCRD stops serving the kind of the definition name.
func (c *Cluster) dropCRD(name string) {
	c.crdMu.Lock()
	defer c.crdMu.Unlock()
	for k, s := range c.crds {
		if s.name == name {
			c.unserve(k, s)
		}
	}
}

// unserve removes the served kind key; the caller holds crdMu.
func (c *Cluster) unserve(key [2]string, s *crdServe) {
	delete(c.crds, key)
	c.kindsMu.Lock()
	c.kinds.Store(c.kinds.Load().withCRD(key, nil))
	c.kindsMu.Unlock()
}

// openCRDStorage opens the storage of crd's objects: in memory, or the
// backend's /registry/<group>/<plural>.
func (c *Cluster) openCRDStorage(crd *api.CustomResourceDefinition) (storage[api.Object], error) {
	if c.opts.Backend == nil {
		return memoryStorage[api.Object](c.opts)
	}
	k := &kind[api.Object]{resource: crd.Spec.Names.Plural, namespaced: crd.Spec.Scope == "Namespaced",
		gvk:   api.GroupVersionKind{Group: crd.Spec.Group, Version: storageVersion(crd), Kind: crd.Spec.Names.Kind},
		alloc: func() api.Object { return &api.Unstructured{} }}
	raw, err := c.opts.Backend.Open(Resource{Name: crd.Spec.Group + "/" + k.resource, Kind: k.gvk.Kind, Namespaced: k.namespaced})
	if err != nil {
		return nil, fmt.Errorf("cluster: open %s: %w", crd.Name, err)
	}
	if raw == nil {
		return nil, fmt.Errorf("cluster: the backend opened %s as nil", crd.Name)
	}
	return &rawStorage[api.Object]{raw: raw, kind: k, maxBytes: c.opts.MaxObjectBytes}, nil
}

// cleanupCRD deletes the objects of a definition being deleted and, once
// none is left, drops its cleanup finalizer (which removes it).
func (c *Cluster) cleanupCRD(ctx context.Context, s *crdServe) {
	view := c.storageView(s)
	if view == nil {
		return
	}
	list, err := s.base.List(ctx, source.ListOptions{})
	if err != nil {
		return
	}
	for _, obj := range list.Items {
		if obj.GetObjectMeta().DeletionTimestamp == nil {
			_, _ = view.Delete(ctx, api.Key(obj), "")
		}
	}
	c.finishCRD(ctx, s)
}

// finishCRD drops the cleanup finalizer of s's definition once it is
// being deleted and no object of its kind is left.
func (c *Cluster) finishCRD(ctx context.Context, s *crdServe) {
	if !s.terminating.Load() {
		return
	}
	list, err := s.base.List(ctx, source.ListOptions{Limit: 1})
	if err != nil || len(list.Items) > 0 {
		return
	}
	crds := storeOf[*api.CustomResourceDefinition](c)
	for range maxRetries {
		crd, rv, err := crds.Get(ctx, s.name)
		if err != nil || !slices.Contains(crd.Finalizers, FinalizerCustomResourceCleanup) {
			return
		}
		crd.Finalizers = slices.DeleteFunc(crd.Finalizers, func(f string) bool { return f == FinalizerCustomResourceCleanup })
		if _, err := crds.Update(ctx, crd, rv); !errors.Is(err, source.ErrConflict) {
			return
		}
	}
}

// crdView returns the store of version v of s's kind, over s's storage.
func (c *Cluster) crdView(s *crdServe, state *crdState, v string) *Store[api.Object] {
	k := crdVersionKind(s, state, v)
	st := &crStorage{base: s.base, c: c, serve: s, state: state, version: state.versions[v]}
	return &Store[api.Object]{c: c, kind: k, s: st}
}

// crdInfo is the registration of version v of a definition's kind.
func crdInfo(state *crdState, v *crdVersion) api.KindInfo {
	crd := state.crd
	n := crd.Status.AcceptedNames
	info := api.KindInfo{
		GroupVersionKind: api.GroupVersionKind{Group: crd.Spec.Group, Version: v.name, Kind: n.Kind},
		Resource:         n.Plural,
		Namespaced:       crd.Spec.Scope == "Namespaced",
		Status:           v.status,
		Scale:            v.scale != nil,
		ShortNames:       n.ShortNames,
		Categories:       n.Categories,
		Columns:          v.table.Columns(),
		Cells: func(obj api.Object, now time.Time) []any {
			u, ok := obj.(*api.Unstructured)
			if !ok {
				return nil
			}
			return v.table.Cells(u.Map(), now)
		},
	}
	if info.Scale {
		info.ScaleFields = func(api.Object) (**int32, int32, string) { return nil, 0, "" }
	}
	ki, err := api.UnstructuredKind(info)
	if err != nil {
		// ValidateCRD checked the names; keep serving under them.
		ki = info
	}
	return ki
}

// crdVersionKind is the strategy of version v of a definition's kind:
// kube-apiserver's custom resource strategy — generation from every
// change but metadata and status, pruning, defaulting and validation by
// the version's schema, the status and scale subresources where the
// version declares them, selectable fields.
func crdVersionKind(s *crdServe, state *crdState, v string) *kind[api.Object] {
	ver := state.versions[v]
	info := crdInfo(state, ver)
	k := &kind[api.Object]{
		info:          info,
		alloc:         func() api.Object { return &api.Unstructured{Content: map[string]any{}} },
		resource:      info.Resource,
		namespaced:    info.Namespaced,
		gvk:           info.GroupVersionKind,
		hasSpec:       true,
		hasStatus:     ver.status,
		scale:         ver.scale != nil,
		generationAll: true,
		unstructured:  true,
	}
	k.typeMeta = func(obj api.Object) {
		u := obj.(*api.Unstructured)
		u.APIVersion, u.Kind = info.APIVersion(), info.Kind
	}
	k.defaults = func(obj api.Object) { pruneAndDefault(ver, obj.(*api.Unstructured)) }
	k.validate = func(obj api.Object, fs *fieldErrors) {
		if ver.schema == nil {
			return
		}
		*fs = append(*fs, ver.schema.Validate(obj.(*api.Unstructured).Map())...)
	}
	if ver.rules != nil {
		// The CEL rules run once the schema holds, as kube-apiserver's:
		// on create without an old object, on update with the stored one
		// (transition rules).
		k.validateCreate = func(obj api.Object, fs *fieldErrors) {
			if len(*fs) > 0 {
				return
			}
			*fs = append(*fs, ver.rules(context.Background(), obj.(*api.Unstructured).Map(), nil)...)
		}
		k.validateUpdate = func(old, obj api.Object, fs *fieldErrors) {
			if len(*fs) > 0 {
				return
			}
			*fs = append(*fs, ver.rules(context.Background(), obj.(*api.Unstructured).Map(), old.(*api.Unstructured).Map())...)
		}
	}
	k.unknownFields = func(obj api.Object) []string {
		if ver.schema == nil {
			return nil
		}
		return ver.schema.Prune(obj.(*api.Unstructured).DeepCopy().Map())
	}
	k.prepareStatus = func(old, obj api.Object, fs *fieldErrors) {
		u := obj.(*api.Unstructured)
		pruneAndDefault(ver, u)
		k.validate(u, fs)
		if k.validateUpdate != nil {
			k.validateUpdate(old, u, fs) // the CEL rules, as kube's status strategy
		}
	}
	if ver.scale != nil {
		sc := *ver.scale
		k.scaleAccess = func(obj api.Object) (scaleFields, bool) { return unstructuredScale(obj.(*api.Unstructured), sc) }
	}
	if len(ver.selectable) > 0 {
		k.fieldNames = ver.selectable
		k.fields = func(obj api.Object) map[string]string {
			u := obj.(*api.Unstructured)
			m := make(map[string]string, len(ver.selectable))
			for _, f := range ver.selectable {
				if val, ok := u.Field(strings.Split(f, ".")...); ok && val != nil {
					m[f] = fmt.Sprint(val)
				} else {
					m[f] = ""
				}
			}
			return m
		}
	}
	return k
}

// pruneAndDefault prunes the fields the version's schema does not know
// and sets its defaults, in u.
func pruneAndDefault(ver *crdVersion, u *api.Unstructured) {
	if ver.schema == nil {
		return
	}
	m := u.Map()
	ver.schema.Prune(m)
	ver.schema.Default(m)
	content := make(map[string]any, len(m))
	for k, v := range m {
		if k != "apiVersion" && k != "kind" && k != "metadata" {
			content[k] = v
		}
	}
	u.Content = content
}

// unstructuredScale reads the scale subresource's fields of u where sc's
// paths say.
func unstructuredScale(u *api.Unstructured, sc api.CustomResourceSubresourceScale) (scaleFields, bool) {
	m := u.Map()
	var f scaleFields
	if v, ok := apiextensions.ReadPath(m, sc.SpecReplicasPath); ok {
		if n, ok := asInt32(v); ok {
			f.spec = &n
		}
	}
	if v, ok := apiextensions.ReadPath(m, sc.StatusReplicasPath); ok {
		f.status, _ = asInt32(v)
	}
	if sc.LabelSelectorPath != nil {
		if v, ok := apiextensions.ReadPath(m, *sc.LabelSelectorPath); ok {
			f.selector, _ = v.(string)
		}
	}
	f.set = func(n int32) {
		if u.Content == nil {
			u.Content = map[string]any{}
		}
		_ = apiextensions.WritePath(u.Content, sc.SpecReplicasPath, int64(n))
	}
	return f, true
}

func asInt32(v any) (int32, bool) {
	switch n := v.(type) {
	case int64:
		return int32(n), true
	case float64:
		return int32(n), true
	case string:
		i, err := strconv.ParseInt(n, 10, 32)
		return int32(i), err == nil
	}
	return 0, false
}

// crStorage is the storage of one served version of a custom resource:
// objects are stored at the storage version and read at the served one
// (None conversion: only apiVersion changes), with the version's
// defaults applied on read, as kube-apiserver does.
type crStorage struct {
	base    storage[api.Object]
	c       *Cluster
	serve   *crdServe
	state   *crdState
	version *crdVersion
}

func (s *crStorage) storageAPIVersion() string { return s.serve.group + "/" + s.state.storage }

// toStorage sets u's apiVersion to the storage version's and returns the
// previous one.
func (s *crStorage) toStorage(obj api.Object) string {
	u := obj.(*api.Unstructured)
	prev := u.APIVersion
	u.APIVersion = s.storageAPIVersion()
	return prev
}

// fromStorage returns a copy of obj, as stored, at the served version.
func (s *crStorage) fromStorage(obj api.Object) api.Object {
	if obj == nil {
		return obj
	}
	u, ok := obj.(*api.Unstructured)
	if !ok {
		return obj
	}
	u = u.DeepCopy()
	u.APIVersion = s.serve.group + "/" + s.version.name
	pruneAndDefault(s.version, u)
	return u
}

func (s *crStorage) Create(ctx context.Context, obj api.Object) (string, error) {
	if s.serve.terminating.Load() {
		return "", fmt.Errorf("create not allowed while custom resource definition is terminating: %w", ErrMethodNotAllowed)
	}
	prev := s.toStorage(obj)
	defer func() { obj.(*api.Unstructured).APIVersion = prev }()
	return s.base.Create(ctx, obj)
}

func (s *crStorage) Update(ctx context.Context, obj api.Object, ifVersion string) (string, error) {
	prev := s.toStorage(obj)
	defer func() { obj.(*api.Unstructured).APIVersion = prev }()
	return s.base.Update(ctx, obj, ifVersion)
}

func (s *crStorage) Delete(ctx context.Context, key, ifVersion string) (string, error) {
	rv, err := s.base.Delete(ctx, key, ifVersion)
	if err == nil && s.serve.terminating.Load() {
		s.c.finishCRD(context.WithoutCancel(ctx), s.serve)
	}
	return rv, err
}

func (s *crStorage) Get(ctx context.Context, key string) (api.Object, string, error) {
	obj, rv, err := s.base.Get(ctx, key)
	if err != nil {
		return obj, rv, err
	}
	return s.fromStorage(obj), rv, nil
}

func (s *crStorage) List(ctx context.Context, opts source.ListOptions) (source.List[api.Object], error) {
	l, err := s.base.List(ctx, opts)
	if err != nil {
		return l, err
	}
	items := make([]api.Object, len(l.Items))
	for i, o := range l.Items {
		items[i] = s.fromStorage(o)
	}
	l.Items = items
	return l, nil
}

func (s *crStorage) Watch(ctx context.Context, opts source.WatchOptions) (<-chan source.Event[api.Object], error) {
	in, err := s.base.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	out := make(chan source.Event[api.Object])
	go func() {
		defer close(out)
		for ev := range in {
			ev.Object = s.fromStorage(ev.Object)
			select {
			case out <- ev:
			case <-ctx.Done():
				// Drain so the base watch can end.
				for range in {
				}
				return
			}
		}
	}()
	return out, nil
}

func (s *crStorage) CompareResourceVersions(a, b string) (int, error) {
	return s.base.CompareResourceVersions(a, b)
}

// UnknownFields returns the fields of obj that the schema of its kind
// does not specify and a write would prune ("spec.colour"), for an API
// server's fieldValidation; nil for kinds with Go types, whose decoding
// finds them.
func (s *Store[T]) UnknownFields(obj T) []string {
	if s.kind.unknownFields == nil {
		return nil
	}
	return s.kind.unknownFields(obj)
}

// ServedKinds implements client.KindLister: every kind c serves now, one
// per group and kind — the built-in kinds, those added with api.Register
// and those of the CustomResourceDefinitions stored (at their storage
// version).
func (c *Cluster) ServedKinds(context.Context) ([]api.KindInfo, error) {
	seen := map[[2]string]bool{}
	var out []api.KindInfo
	for _, k := range c.Kinds() {
		key := [2]string{k.Group, k.Kind}
		if !seen[key] {
			seen[key] = true
			out = append(out, k)
		}
	}
	return out, nil
}

// dotted returns "."+f, or "" for an empty f.
func dotted(f string) string {
	if f == "" {
		return ""
	}
	return "." + f
}

package api

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// ErrKindConflict is wrapped by Register's errors when the registration
// collides with a kind already registered: the same group and kind, or
// the same group and resource, short name or Go type, with another
// registration (kube-apiserver's NamesAccepted=False).
var ErrKindConflict = errors.New("the kind conflicts with a registered one")

// ErrInvalidKind is wrapped by Register's errors when the registration is
// malformed: a bad group, version, kind or resource name, or a Go type
// that is not a kind.
var ErrInvalidKind = errors.New("invalid kind registration")

// users holds the kinds added with Register. It is copied on each
// registration, so that lookups, far more frequent, read it without a
// lock.
var users struct {
	mu sync.Mutex // serializes Register
	r  atomic.Pointer[registry]
}

func registeredKinds() *registry {
	if r := users.r.Load(); r != nil {
		return r
	}
	return emptyRegistry
}

var emptyRegistry = newRegistry()

// Register adds T, a user's Go type, as the kind info describes, beside
// the built-in kinds: from then on Registered, InfoFor, InfoOf,
// InfoOfResource and the manifest decoder know it, and every cluster
// (controllers/cluster), API server and client built on this registry
// serves it with the semantics of the built-in kinds — uid, generation,
// resourceVersion, generateName, finalizers, owner references and
// garbage collection, namespace lifecycle, selectors, watch, the status
// and scale subresources, discovery and tables. It returns the
// registration as stored.
//
// T must be a pointer to a struct that embeds TypeMeta and has an
// ObjectMeta field (json "metadata"), a Spec field for the generation to
// track and, when info.Status is set, a Status field; T's
// GroupVersionKind method must return info.GroupVersionKind, and
// DeepCopyObject a deep copy. The group must be a DNS subdomain with at
// least one dot that no built-in kind uses ("example.com"), the version
// and the resource DNS-1035 labels ("v1", "widgets"), the kind a name
// whose lower case is one. info.Scale requires ScaleFields (see
// ScaleFieldsOf); Columns requires Cells. Default, Validate and
// ValidateUpdate are the kind's strategy.
//
// Registering is program-wide, like declaring the type: register once,
// at start-up or in a package variable. Registering the same Go type
// again under the same group, version, kind and resource returns the
// first registration unchanged (so a test that runs twice may register
// in its body); any other collision is an error wrapping
// ErrKindConflict, and a malformed registration one wrapping
// ErrInvalidKind.
func Register[T Object](info KindInfo) (KindInfo, error) {
	typ := reflect.TypeFor[T]()
	if err := checkRegistration(typ, &info); err != nil {
		return KindInfo{}, fmt.Errorf("api: register %v as %s: %w", typ, info.GroupVersionKind, err)
	}
	users.mu.Lock()
	defer users.mu.Unlock()
	cur := registeredKinds()
	if prev := cur.byType[typ]; prev != nil {
		if prev.GroupVersionKind == info.GroupVersionKind && prev.Resource == info.Resource {
			return copyInfo(prev), nil
		}
		return KindInfo{}, fmt.Errorf("api: register %v as %s: the type is already registered as %s: %w",
			typ, info.GroupVersionKind, prev.GroupVersionKind, ErrKindConflict)
	}
	if err := checkNames(cur, &info); err != nil {
		return KindInfo{}, fmt.Errorf("api: register %v as %s: %w", typ, info.GroupVersionKind, err)
	}
	stored := register[T](copyInfo(&info))
	users.r.Store(newRegistry(append(slices.Clone(cur.kinds), stored)...))
	return copyInfo(stored), nil
}

// MustRegister is Register for package variables: it panics on error.
func MustRegister[T Object](info KindInfo) KindInfo {
	k, err := Register[T](info)
	if err != nil {
		panic(err)
	}
	return k
}

var (
	dns1035Label     = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)
	dns1123Subdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

// IsDNS1035Label reports whether s is a DNS-1035 label (at most 63
// characters, lower-case letters, digits and '-', starting with a
// letter and ending with a letter or digit), the form of Kubernetes'
// version and resource names.
func IsDNS1035Label(s string) bool { return len(s) <= 63 && dns1035Label.MatchString(s) }

// IsDNS1123Subdomain reports whether s is a DNS-1123 subdomain (at most
// 253 characters of dot-separated lower-case labels), the form of
// Kubernetes' group and object names.
func IsDNS1123Subdomain(s string) bool { return len(s) <= 253 && dns1123Subdomain.MatchString(s) }

// checkRegistration checks info and T's type on their own.
func checkRegistration(typ reflect.Type, info *KindInfo) error {
	errs := append(checkInfo(info), checkGoType(typ, info)...)
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrInvalidKind, errors.Join(errs...))
	}
	return nil
}

// checkInfo checks the names and fields of a registration.
func checkInfo(info *KindInfo) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	g := info.GroupVersionKind
	switch {
	case g.Group == "" || !IsDNS1123Subdomain(g.Group) || !strings.Contains(g.Group, "."):
		bad("group %q: should be a domain with at least one dot", g.Group)
	case builtinGroup(g.Group):
		bad("group %q is a built-in group", g.Group)
	}
	if !IsDNS1035Label(g.Version) {
		bad("version %q: must be a DNS-1035 label", g.Version)
	}
	if g.Kind == "" || !IsDNS1035Label(strings.ToLower(g.Kind)) {
		bad("kind %q: must be a DNS-1035 label when lower-cased", g.Kind)
	} else if strings.HasSuffix(g.Kind, "List") {
		bad("kind %q: may not end in List (the kind of its lists)", g.Kind)
	}
	if !IsDNS1035Label(info.Resource) {
		bad("resource %q: must be a lower-case DNS-1035 label", info.Resource)
	}
	for _, n := range info.ShortNames {
		if !IsDNS1035Label(n) {
			bad("short name %q: must be a DNS-1035 label", n)
		}
	}
	for _, n := range info.Categories {
		if !IsDNS1035Label(n) {
			bad("category %q: must be a DNS-1035 label", n)
		}
	}
	for _, v := range info.OldVersions {
		if gr, ver := splitAPIVersion(v); gr != g.Group || !IsDNS1035Label(ver) || ver == g.Version {
			bad("old version %q: must be another version of group %s", v, g.Group)
		}
	}
	if info.Scale != (info.ScaleFields != nil) {
		bad("Scale and ScaleFields must be set together")
	}
	if (info.Columns == nil) != (info.Cells == nil) {
		bad("Columns and Cells must be set together")
	}
	return errs
}

// checkGoType checks that typ is a kind's Go type: a pointer to a struct
// with TypeMeta, ObjectMeta and, for a kind with status, Status.
func checkGoType(typ reflect.Type, info *KindInfo) []error {
	if typ.Kind() != reflect.Pointer || typ.Elem().Kind() != reflect.Struct {
		return []error{fmt.Errorf("%v is not a pointer to a struct", typ)}
	}
	var errs []error
	st := typ.Elem()
	if f, ok := st.FieldByName("TypeMeta"); !ok || f.Type != reflect.TypeFor[TypeMeta]() || !f.Anonymous {
		errs = append(errs, fmt.Errorf("%v does not embed api.TypeMeta", st))
	}
	if f, ok := st.FieldByName("ObjectMeta"); !ok || f.Type != reflect.TypeFor[ObjectMeta]() {
		errs = append(errs, fmt.Errorf("%v has no ObjectMeta field of type api.ObjectMeta", st))
	}
	if _, ok := st.FieldByName("Status"); info.Status && !ok {
		errs = append(errs, fmt.Errorf("%v has no Status field, and the kind has a status subresource", st))
	}
	if len(errs) > 0 {
		return errs
	}
	obj := reflect.New(st).Interface().(Object)
	if got := obj.GroupVersionKind(); got != info.GroupVersionKind {
		errs = append(errs, fmt.Errorf("%v's GroupVersionKind method returns %s", typ, got))
	}
	if cp := obj.DeepCopyObject(); cp == nil || reflect.TypeOf(cp) != typ {
		errs = append(errs, fmt.Errorf("%v's DeepCopyObject returns a %T", typ, cp))
	}
	return errs
}

// builtinGroup reports whether a built-in kind is served in group.
func builtinGroup(group string) bool {
	for _, k := range builtin.kinds {
		if k.Group == group {
			return true
		}
	}
	return false
}

// checkNames checks that info's names are free in its group among the
// kinds of r.
func checkNames(r *registry, info *KindInfo) error {
	g := info.GroupVersionKind
	var errs []error
	for _, k := range r.kinds {
		if k.Group != g.Group {
			continue
		}
		if k.Kind == g.Kind {
			errs = append(errs, fmt.Errorf("kind %s is already registered (%v)", g.Kind, k.typ))
		}
		if k.Resource == info.Resource {
			errs = append(errs, fmt.Errorf("resource %s is already registered (%s)", info.Resource, k.Kind))
		}
		for _, n := range info.ShortNames {
			if slices.Contains(k.ShortNames, n) || n == k.Resource {
				errs = append(errs, fmt.Errorf("short name %s is already in use by %s", n, k.Resource))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrKindConflict, errors.Join(errs...))
	}
	return nil
}

// groupOf returns the group of an apiVersion ("" for "v1").
func groupOf(apiVersion string) string {
	g, _ := splitAPIVersion(apiVersion)
	return g
}

// UnstructuredKind returns the registration of a kind served as
// Unstructured objects — a CustomResourceDefinition's, which a cluster
// serves while the definition exists — without adding it to the
// program-wide registry: a cluster (or API server) keeps such kinds for
// itself. info's names are checked as Register checks them (an error
// wrapping ErrInvalidKind); Scale needs ScaleFields as there, and its
// New returns an *Unstructured with the kind's apiVersion and kind.
func UnstructuredKind(info KindInfo) (KindInfo, error) {
	typ := reflect.TypeFor[*Unstructured]()
	if errs := checkInfo(&info); len(errs) > 0 {
		return KindInfo{}, fmt.Errorf("api: kind %s: %w: %w", info.GroupVersionKind, ErrInvalidKind, errors.Join(errs...))
	}
	info.typ = typ
	info.new = func() Object { return &Unstructured{Content: map[string]any{}} }
	return copyInfo(&info), nil
}

package crdgen

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Options tune Generate.
type Options struct {
	// Dir is the directory of the source of the Go type's package. Its
	// doc comments become the schema's descriptions and its markers
	// apply; empty, the schema has neither (reflection cannot see
	// comments).
	Dir string
	// Columns are printer columns added after those of the type's
	// +kubebuilder:printcolumn markers.
	Columns []api.CustomResourceColumnDefinition
}

// Generate returns the CustomResourceDefinition of the kind info
// registers, whose objects have Go type typ (a struct or a pointer to
// one; nil means info.GoType()). The definition serves one version,
// info.Version, served and stored, with the schema of typ.
//
// info gives the group, version, kind, plural resource (default: the
// lower-case plural of the kind), scope, short names, categories and
// the status and scale subresources; the +kubebuilder:resource,
// +kubebuilder:subresource and +kubebuilder:printcolumn markers of typ's
// doc comment fill in what info leaves empty (the marker's scope, when
// it has one, replaces info.Namespaced, whose zero value cannot say
// "unset"; see the package documentation).
func Generate(info api.KindInfo, typ reflect.Type, opts Options) (*api.CustomResourceDefinition, error) {
	if typ == nil {
		typ = info.GoType()
	}
	if typ == nil {
		return nil, errors.New("crdgen: no Go type")
	}
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct {
		return nil, fmt.Errorf("crdgen: %s is not a struct", typ)
	}
	w := &walker{pkgPath: typ.PkgPath()}
	if opts.Dir != "" {
		src, err := parseDir(opts.Dir)
		if err != nil {
			return nil, err
		}
		if src[typ.Name()] == nil {
			return nil, fmt.Errorf("crdgen: type %s is not declared in %s", typ.Name(), opts.Dir)
		}
		w.src = src
	}
	var root comment
	if src := w.source(typ); src != nil {
		root = src.comment
	}
	if info.Kind == "" {
		info.Kind = typ.Name()
	}
	if err := fromMarkers(&info, root.markers); err != nil {
		return nil, fmt.Errorf("crdgen: type %s: %w", typ.Name(), err)
	}
	if info.Group == "" || info.Version == "" {
		return nil, fmt.Errorf("crdgen: %s: a custom resource needs a group and a version (have %q, %q)", info.Kind, info.Group, info.Version)
	}
	if info.Resource == "" {
		info.Resource = Plural(info.Kind)
	}

	schema, err := w.object(typ, "", true)
	if err != nil {
		return nil, err
	}
	schema.Description = root.doc
	// Only the schema markers of the root type; its resource markers were
	// read above.
	var schemaMarkers []marker
	for _, m := range root.markers {
		if !strings.HasPrefix(m.name, "kubebuilder:resource") && !strings.HasPrefix(m.name, "kubebuilder:subresource") &&
			m.name != "kubebuilder:printcolumn" && !strings.HasPrefix(m.name, "kubebuilder:object") && m.name != "kubebuilder:storageversion" {
			schemaMarkers = append(schemaMarkers, m)
		}
	}
	if err := applyMarkers(&schema, schemaMarkers); err != nil {
		return nil, fmt.Errorf("crdgen: type %s: %w", typ.Name(), err)
	}

	version := api.CustomResourceDefinitionVersion{
		Name: info.Version, Served: true, Storage: true,
		Schema: &api.CustomResourceValidation{OpenAPIV3Schema: &schema},
	}
	if info.Status || info.Scale {
		version.Subresources = &api.CustomResourceSubresources{}
		if info.Status {
			version.Subresources.Status = &api.CustomResourceSubresourceStatus{}
		}
		if info.Scale {
			scale, err := scaleOf(root.markers)
			if err != nil {
				return nil, fmt.Errorf("crdgen: type %s: %w", typ.Name(), err)
			}
			version.Subresources.Scale = scale
		}
	}
	for _, m := range root.markers {
		if m.name != "kubebuilder:printcolumn" {
			continue
		}
		c := api.CustomResourceColumnDefinition{Name: m.args["name"], Type: m.args["type"], Format: m.args["format"],
			Description: m.args["description"], JSONPath: m.args["JSONPath"]}
		if c.JSONPath == "" {
			c.JSONPath = m.args["jsonPath"]
		}
		if p := m.args["priority"]; p != "" {
			n, err := strconv.ParseInt(p, 10, 32)
			if err != nil {
				return nil, fmt.Errorf("crdgen: type %s: +kubebuilder:printcolumn priority %q: %w", typ.Name(), p, err)
			}
			c.Priority = int32(n)
		}
		if c.Name == "" || c.Type == "" || c.JSONPath == "" {
			return nil, fmt.Errorf("crdgen: type %s: +kubebuilder:printcolumn needs name, type and JSONPath", typ.Name())
		}
		version.AdditionalPrinterColumns = append(version.AdditionalPrinterColumns, c)
	}
	version.AdditionalPrinterColumns = append(version.AdditionalPrinterColumns, opts.Columns...)

	scope := api.ClusterScoped
	if info.Namespaced {
		scope = api.NamespaceScoped
	}
	crd := &api.CustomResourceDefinition{
		TypeMeta:   (&api.CustomResourceDefinition{}).GroupVersionKind().TypeMeta(),
		ObjectMeta: api.ObjectMeta{Name: info.Resource + "." + info.Group},
		Spec: api.CustomResourceDefinitionSpec{
			Group: info.Group,
			Names: api.CustomResourceDefinitionNames{
				Plural: info.Resource, Singular: strings.ToLower(info.Kind), Kind: info.Kind,
				ListKind: info.Kind + "List", ShortNames: info.ShortNames, Categories: info.Categories,
			},
			Scope:    scope,
			Versions: []api.CustomResourceDefinitionVersion{version},
		},
	}
	return crd, nil
}

// fromMarkers fills what info leaves empty from the root type's
// +kubebuilder:resource and +kubebuilder:subresource markers.
func fromMarkers(info *api.KindInfo, ms []marker) error {
	for _, m := range ms {
		switch m.name {
		case "kubebuilder:resource":
			for k, v := range m.args {
				switch k {
				case "path":
					if info.Resource == "" {
						info.Resource = v
					}
				case "scope":
					if v != string(api.ClusterScoped) && v != string(api.NamespaceScoped) {
						return fmt.Errorf("+kubebuilder:resource scope %q is neither Namespaced nor Cluster", v)
					}
					info.Namespaced = v == string(api.NamespaceScoped) // explicit: it wins
				case "shortName":
					if info.ShortNames == nil {
						info.ShortNames = strings.Split(v, ";")
					}
				case "categories":
					if info.Categories == nil {
						info.Categories = strings.Split(v, ";")
					}
				case "singular":
				default:
					return fmt.Errorf("+kubebuilder:resource: unknown argument %q", k)
				}
			}
		case "kubebuilder:subresource:status":
			info.Status = true
		case "kubebuilder:subresource:scale":
			info.Scale = true
		}
	}
	return nil
}

// scaleOf is the scale subresource of the +kubebuilder:subresource:scale
// marker, or .spec.replicas and .status.replicas without one.
func scaleOf(ms []marker) (*api.CustomResourceSubresourceScale, error) {
	s := &api.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"}
	for _, m := range ms {
		if m.name != "kubebuilder:subresource:scale" {
			continue
		}
		for k, v := range m.args {
			switch k {
			case "specpath":
				s.SpecReplicasPath = v
			case "statuspath":
				s.StatusReplicasPath = v
			case "selectorpath":
				s.LabelSelectorPath = &v
			default:
				return nil, fmt.Errorf("+kubebuilder:subresource:scale: unknown argument %q", k)
			}
		}
	}
	return s, nil
}

// Plural returns the lower-case English plural of kind, as kubebuilder
// names resources: "Widget" → "widgets", "Policy" → "policies",
// "Ingress" → "ingresses".
func Plural(kind string) string {
	k := strings.ToLower(kind)
	switch {
	case strings.HasSuffix(k, "y") && len(k) > 1 && !strings.ContainsRune("aeiou", rune(k[len(k)-2])):
		return k[:len(k)-1] + "ies"
	case strings.HasSuffix(k, "s"), strings.HasSuffix(k, "x"), strings.HasSuffix(k, "z"),
		strings.HasSuffix(k, "ch"), strings.HasSuffix(k, "sh"):
		return k + "es"
	case k == "":
		return k
	}
	return k + "s"
}

// WriteYAML writes crd to w as one YAML document, as kubectl apply -f
// reads it.
func WriteYAML(w io.Writer, crd *api.CustomResourceDefinition) error {
	out, err := api.Encode(crd)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, "---\n"); err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

package apiextensions

import (
	"reflect"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// defaults checks every default of the structural part: pruning must not
// change it and it must validate against its node (kube's ValidateDefaults;
// defaults inside metadata are left to the API server's metadata rules).
func (c *checker) defaults(s *api.JSONSchemaProps, p string, insideMeta, resourceRoot bool) {
	if s == nil {
		return
	}
	if s.XEmbeddedResource {
		insideMeta, resourceRoot = false, true
	}
	if s.Default != nil && len(s.Default.Raw) > 0 && !insideMeta {
		c.checkDefault(s, p, resourceRoot)
	}
	if s.Items != nil {
		c.defaults(s.Items.Schema, p+".items", insideMeta, false)
	}
	for _, k := range sortedPropNames(s.Properties) {
		v := s.Properties[k]
		sub := insideMeta
		if (s.XEmbeddedResource || resourceRoot) && metaField(k) {
			sub = true
		}
		c.defaults(&v, propPath(p, k), sub, false)
	}
}

func (c *checker) checkDefault(s *api.JSONSchemaProps, p string, resourceRoot bool) {
	var cel bool
	n, err := compileNode(s, &cel)
	if err != nil {
		c.invalid(p+".default", "", err.Error())
		return
	}
	dp := p + ".default"
	pruned := deepCopyJSON(n.def)
	sch := &Schema{root: n}
	if m, ok := pruned.(map[string]any); ok && resourceRoot {
		sch.Prune(m)
	} else {
		prune(pruned, n, "", new([]string))
	}
	if !reflect.DeepEqual(pruned, n.def) {
		c.invalid(dp, formatValue(n.def), "must not have unknown fields")
	}
	errs, _ := validateValue(n, n.def, "")
	errs = append(errs, embeddedResources(n, n.def, "")...)
	for _, e := range sortErrors(errs) {
		if e.Field == "" {
			e.Field = dp
		} else {
			e.Field = dp + "." + e.Field
		}
		c.errs = append(c.errs, e)
	}
}

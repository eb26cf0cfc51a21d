package main

// This file converts upstream's test tables; see main.go.

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"log"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

type out struct {
	Source      string          `json:"source"`
	Description string          `json:"description"`
	Original    json.RawMessage `json:"original"`
	Patch       json.RawMessage `json:"patch"`
	Want        json.RawMessage `json:"want,omitempty"`
	Sorted      bool            `json:"sorted,omitempty"`
	WantError   string          `json:"wantError,omitempty"`
}

func y2j(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage("{}")
	}
	j, err := yaml.YAMLToJSON([]byte(s))
	if err != nil {
		log.Fatal(err)
	}
	if string(j) == "null" {
		return json.RawMessage("{}")
	}
	return j
}

func bytesLit(e ast.Expr) string {
	call := e.(*ast.CallExpr)
	lit := call.Args[0].(*ast.BasicLit)
	s, err := strconv.Unquote(lit.Value)
	if err != nil {
		log.Fatal(err)
	}
	return s
}

// ported converts the test tables of apimachinery's
// strategicpatch/patch_test.go into apimachinery.json's cases.
func ported(path string) []out {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		log.Fatal(err)
	}
	vars := map[string]ast.Expr{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, sp := range gd.Specs {
			vs, ok := sp.(*ast.ValueSpec)
			if !ok || len(vs.Values) == 0 {
				continue
			}
			vars[vs.Names[0].Name] = vs.Values[0]
		}
	}
	var res []out
	// YAML blobs.
	for _, name := range []string{"customStrategicMergePatchTestCaseData", "createStrategicMergePatchTestCaseData"} {
		blob := bytesLit(vars[name])
		var tc struct {
			TestCases []map[string]any `json:"testCases"`
		}
		if err := yaml.Unmarshal([]byte(blob), &tc); err != nil {
			log.Fatal(err)
		}
		get := func(c map[string]any, k string) json.RawMessage {
			v, ok := c[k]
			if !ok || v == nil {
				return nil
			}
			b, _ := json.Marshal(v)
			return b
		}
		for _, c := range tc.TestCases {
			desc := c["description"].(string)
			if tw := get(c, "twoWay"); tw != nil {
				want := get(c, "twoWayResult")
				if want == nil {
					want = get(c, "modified")
				}
				res = append(res, out{name, desc + " (two-way)", orEmpty(get(c, "original")), tw, want, true, ""})
			}
			if tw := get(c, "threeWay"); tw != nil && get(c, "result") != nil {
				res = append(res, out{name, desc + " (three-way)", orEmpty(get(c, "current")), tw, get(c, "result"), true, ""})
			}
		}
	}
	for _, name := range []string{"customStrategicMergePatchRawTestCases", "strategicMergePatchRawTestCases"} {
		cl := vars[name].(*ast.CompositeLit)
		for _, e := range cl.Elts {
			c := e.(*ast.CompositeLit)
			fields := map[string]string{}
			for _, kv := range c.Elts {
				kv := kv.(*ast.KeyValueExpr)
				key := kv.Key.(*ast.Ident).Name
				if key == "Description" {
					fields[key], _ = strconv.Unquote(kv.Value.(*ast.BasicLit).Value)
					continue
				}
				inner := kv.Value.(*ast.CompositeLit)
				for _, kv2 := range inner.Elts {
					kv2 := kv2.(*ast.KeyValueExpr)
					k2 := kv2.Key.(*ast.Ident).Name
					if k2 == "ExpectedError" {
						fields[k2], _ = strconv.Unquote(kv2.Value.(*ast.BasicLit).Value)
						continue
					}
					fields[k2] = bytesLit(kv2.Value)
				}
			}
			desc := fields["Description"]
			if tw, ok := fields["TwoWay"]; ok {
				want, ok := fields["TwoWayResult"]
				if !ok {
					want = fields["Modified"]
				}
				o := out{name, desc + " (two-way)", y2j(fields["Original"]), y2j(tw), y2j(want), false, fields["ExpectedError"]}
				if o.WantError != "" {
					o.Want = nil
				}
				res = append(res, o)
			}
			if tw, ok := fields["ThreeWay"]; ok {
				if r, ok := fields["Result"]; ok {
					res = append(res, out{name, desc + " (three-way)", y2j(fields["Current"]), y2j(tw), y2j(r), false, ""})
				}
			}
		}
	}
	return res
}

func orEmpty(b json.RawMessage) json.RawMessage {
	if b == nil {
		return json.RawMessage("{}")
	}
	return b
}

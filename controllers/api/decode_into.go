package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// DecodeInto decodes one JSON or YAML object into obj, a struct that
// need not be a registered kind (an older version of a kind
// that a server converts, as HorizontalPodAutoscalerV1). As Decode, it
// refuses a field obj's type does not define and a duplicate key unless
// opts.Lenient; errors are *DecodeError of document 1 naming kind, the
// field paths and the cause (wrapping ErrUnknownField,
// ErrDuplicateField). The object's apiVersion and kind are not checked.
func DecodeInto[T any](data []byte, obj *T, kind string, opts DecodeOptions) error {
	fail := func(err error) error { return &DecodeError{Source: opts.Source, Doc: 1, Kind: kind, Err: err} }
	raw := bytes.TrimSpace(data)
	if len(raw) == 0 || raw[0] != '{' {
		toJSON := yaml.YAMLToJSONStrict
		if opts.Lenient {
			toJSON = yaml.YAMLToJSON
		}
		var err error
		if raw, err = toJSON(data); err != nil {
			return fail(fmt.Errorf("malformed YAML: %w", err))
		}
	}
	if !opts.Lenient {
		var generic any
		if err := json.Unmarshal(raw, &generic); err != nil {
			return fail(fmt.Errorf("malformed object: %w", err))
		}
		if dups := duplicateFields(raw); len(dups) > 0 {
			errs := make([]error, len(dups))
			for i, p := range dups {
				errs[i] = fmt.Errorf("%w %q", ErrDuplicateField, p)
			}
			return fail(joinedErrors(errs))
		}
		var unknown []string
		unknownFields(reflect.TypeOf(obj), generic, "", &unknown)
		if len(unknown) > 0 {
			quoted := make([]string, len(unknown))
			for i, u := range unknown {
				quoted[i] = strconv.Quote(u)
			}
			return fail(fmt.Errorf("%w %s", ErrUnknownField, strings.Join(quoted, ", ")))
		}
	}
	if err := json.Unmarshal(raw, obj); err != nil {
		return fail(fmt.Errorf("malformed object: %w", err))
	}
	return nil
}

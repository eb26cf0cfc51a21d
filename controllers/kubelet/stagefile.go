package kubelet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"sigs.k8s.io/yaml"
)

// ParseStages decodes a stage file: a YAML or JSON list of stages, with
// the field names of Stage in lowerCamelCase and durations written as
// Go durations ("5s", "1m30s"). A Delay is a duration or an object with
// duration and jitter. Unknown fields are errors. For example:
//
//	# stages.yaml
//	- name: flaky
//	  match: {labels: {app: flaky}, kind: app}
//	  readiness: {never: true}
//	- name: slow-batch
//	  match: {ownerKinds: [Job]}
//	  start: 3s
//	  exit: {after: {duration: 1m, jitter: 10s}, code: 0}
//	  liveness: {failAfter: 5m}
//
// Prepend DefaultStages() to keep the defaults.
func ParseStages(data []byte) ([]Stage, error) {
	raw, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, fmt.Errorf("kubelet: stages: %w", err)
	}
	var stages []Stage
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&stages); err != nil {
		return nil, fmt.Errorf("kubelet: stages: %w", err)
	}
	for _, s := range stages {
		switch s.Match.Kind {
		case AnyContainer, InitContainer, SidecarContainer, AppContainer:
		default:
			return nil, fmt.Errorf("kubelet: stage %q: unknown container kind %q", s.Name, s.Match.Kind)
		}
	}
	return stages, nil
}

// duration is a time.Duration written as a Go duration string.
type duration time.Duration

func (d *duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is a string such as \"5s\": %w", err)
	}
	v, err := time.ParseDuration(s)
	*d = duration(v)
	return err
}

// UnmarshalJSON reads a Delay from a duration string or from an object
// with duration and jitter strings.
func (d *Delay) UnmarshalJSON(b []byte) error {
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte(`"`)) {
		var v duration
		if err := v.UnmarshalJSON(b); err != nil {
			return err
		}
		*d = Delay{Duration: time.Duration(v)}
		return nil
	}
	var aux struct {
		Duration duration `json:"duration"`
		Jitter   duration `json:"jitter"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&aux); err != nil {
		return err
	}
	*d = Delay{Duration: time.Duration(aux.Duration), Jitter: time.Duration(aux.Jitter)}
	return nil
}

// UnmarshalJSON reads a ProbeOutcome with passAfter and failAfter as
// duration strings.
func (o *ProbeOutcome) UnmarshalJSON(b []byte) error {
	var aux struct {
		Never     bool     `json:"never"`
		PassAfter duration `json:"passAfter"`
		FailAfter duration `json:"failAfter"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&aux); err != nil {
		return err
	}
	*o = ProbeOutcome{Never: aux.Never, PassAfter: time.Duration(aux.PassAfter), FailAfter: time.Duration(aux.FailAfter)}
	return nil
}

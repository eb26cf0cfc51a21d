package protobuf

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/stretchr/testify/require"
)

const (
	meta = "k8s.io.apimachinery.pkg.apis.meta.v1."
	core = "k8s.io.api.core.v1."
)

// pb builds an encoded message from (number, value) pairs: string and
// []byte values are length-delimited, int and uint64 varints.
func pb(kv ...any) []byte {
	var b []byte
	for i := 0; i < len(kv); i += 2 {
		num := uint32(kv[i].(int))
		switch v := kv[i+1].(type) {
		case string:
			b = appendBytesField(b, num, []byte(v))
		case []byte:
			b = appendBytesField(b, num, v)
		case int:
			b = appendVarintField(b, num, uint64(v))
		case uint64:
			b = appendVarintField(b, num, v)
		}
	}
	if b == nil {
		b = []byte{}
	}
	return b
}

func mustJSON(t *testing.T, s string) any {
	t.Helper()
	v, err := decodeJSON([]byte(s))
	require.NoError(t, err)
	return v
}

// TestShapes converts each custom-marshalled shape both ways.
func TestShapes(t *testing.T) {
	for _, tc := range []struct {
		name, msg, json string
		proto           []byte
	}{
		{"time", meta + "Time", `"2026-01-02T03:04:05Z"`, pb(1, 1767323045)},
		{"time before 1970", meta + "Time", `"1969-12-31T23:59:59Z"`, pb(1, uint64(1<<64-1))},
		{"microtime", meta + "MicroTime", `"2026-01-02T03:04:05.123456Z"`, pb(1, 1767323045, 2, 123456000)},
		{"duration", meta + "Duration", `"1m30s"`, pb(1, 90_000_000_000)},
		{"quantity", "k8s.io.apimachinery.pkg.api.resource.Quantity", `"100m"`, pb(1, "100m")},
		{"int", "k8s.io.apimachinery.pkg.util.intstr.IntOrString", `8080`, pb(1, 0, 2, 8080, 3, "")},
		{"negative int", "k8s.io.apimachinery.pkg.util.intstr.IntOrString", `-1`, pb(1, 0, 2, uint64(1<<64-1), 3, "")},
		{"string", "k8s.io.apimachinery.pkg.util.intstr.IntOrString", `"http"`, pb(1, 1, 2, 0, 3, "http")},
		{"raw extension", "k8s.io.apimachinery.pkg.runtime.RawExtension", `{"a":[1,"x"]}`, pb(1, `{"a":[1,"x"]}`)},
		{"fieldsV1", meta + "FieldsV1", `{"f:metadata":{}}`, pb(1, `{"f:metadata":{}}`)},
		{"bytes map", core + "Secret", `{"data":{"a":"aGk=","b":""}}`,
			pb(2, pb(1, "a", 2, "hi"), 2, pb(1, "b", 2, ""))},
		{"string map and repeated", meta + "ObjectMeta", `{"name":"x","labels":{"k":"v"},"finalizers":["a","b"]}`,
			pb(1, "x", 11, pb(1, "k", 2, "v"), 14, "a", 14, "b")},
		{"bool int32 int64 and optional pointers", core + "PodSpec",
			`{"terminationGracePeriodSeconds":-5,"hostNetwork":true,"priority":7}`,
			pb(4, uint64(1<<64-5), 11, 1, 25, 7)},
		{"inline message", core + "Volume", `{"name":"v","emptyDir":{"medium":"Memory"}}`,
			pb(1, "v", 2, pb(2, pb(1, "Memory")))},
		{"quantity map", core + "ResourceRequirements", `{"limits":{"cpu":"1","memory":"1Gi"}}`,
			pb(1, pb(1, "cpu", 2, pb(1, "1")), 1, pb(1, "memory", 2, pb(1, "1Gi")))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FromJSON(tc.msg, mustJSON(t, tc.json))
			require.NoError(t, err)
			require.Equal(t, tc.proto, got, "JSON → protobuf")
			v, err := ToJSON(tc.msg, tc.proto)
			require.NoError(t, err)
			j, err := json.Marshal(v)
			require.NoError(t, err)
			require.JSONEq(t, tc.json, string(j), "protobuf → JSON")
		})
	}
}

// TestDecodeForms checks what only decoding sees: empty and zero
// messages as Kubernetes' generated code writes them, unknown fields,
// packed repeated scalars.
func TestDecodeForms(t *testing.T) {
	for _, tc := range []struct {
		name, msg string
		proto     []byte
		json      string
	}{
		// ObjectMeta{} as generated code writes it: empty strings (absent: not pointers), a zero creationTimestamp.
		{"zero time is absent", meta + "ObjectMeta", pb(1, "", 8, []byte{}), `{}`},
		{"empty quantity is 0", core + "ResourceRequirements", pb(1, pb(1, "cpu", 2, []byte{})), `{"limits":{"cpu":"0"}}`},
		{"map entry without value", meta + "ObjectMeta", pb(11, pb(1, "k")), `{"labels":{"k":""}}`},
		{"unknown fields skipped", meta + "ObjectMeta",
			append(append(pb(99, 5, 98, "junk"), binary.LittleEndian.AppendUint64(appendTag(nil, 97, wireFixed64), 1)...), pb(1, "x")...),
			`{"name":"x"}`},
		{"packed repeated", core + "PodSecurityContext", pb(4, []byte{1, 2, 0x80, 1}), `{"supplementalGroups":[1,2,128]}`},
		{"empty raw extension absent", "k8s.io.api.apps.v1.ControllerRevision", pb(2, pb(1, []byte{}), 3, 4), `{"revision":4}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := ToJSON(tc.msg, tc.proto)
			require.NoError(t, err)
			j, err := json.Marshal(v)
			require.NoError(t, err)
			require.JSONEq(t, tc.json, string(j))
		})
	}
}

// TestMalformed checks that bad input of every sort is an ErrMalformed
// error (the API server's 400), never a panic.
func TestMalformed(t *testing.T) {
	pod := core + "Pod"
	for _, tc := range []struct {
		name  string
		msg   string
		proto []byte
	}{
		{"truncated tag", pod, []byte{0x80}},
		{"field number 0", pod, []byte{0x00, 0x01}},
		{"truncated length", pod, []byte{0x0a, 0x05, 1}},
		{"huge length", pod, []byte{0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f}},
		{"truncated varint", meta + "ObjectMeta", []byte{0x38, 0x80}},
		{"truncated fixed64", pod, []byte{0x09, 1, 2}},
		{"group wire type", pod, []byte{0x0b}},
		{"varint for a message", pod, pb(1, 5)},
		{"bytes for a bool", core + "PodSpec", pb(11, "x")},
		{"bad map entry key", meta + "ObjectMeta", pb(11, pb(1, 3))},
		{"nested error", pod, pb(1, pb(1, 7))},
		{"raw extension not JSON", "k8s.io.api.apps.v1.ControllerRevision", pb(2, pb(1, "{nope"))},
		{"nanos out of range", meta + "Time", pb(1, 1, 2, 2_000_000_000)},
		{"seconds out of range", meta + "Time", pb(1, uint64(1)<<62)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ToJSON(tc.msg, tc.proto)
			require.ErrorIs(t, err, ErrMalformed)
		})
	}
	t.Run("nesting limit", func(t *testing.T) {
		_, err := decodeMessage(pod, pb(1, pb(1, "x")), MaxDepth)
		require.ErrorIs(t, err, ErrMalformed)
		_, err = encodeMessage(nil, pod, mustJSON(t, `{"metadata":{"name":"x"}}`), MaxDepth)
		require.ErrorIs(t, err, ErrMalformed)
	})
	for _, tc := range []struct{ name, msg, json string }{
		{"string for an object", pod, `"x"`},
		{"number for a string", pod, `{"metadata":{"name":5}}`},
		{"array for a map", pod, `{"metadata":{"labels":["a"]}}`},
		{"object for an array", pod, `{"metadata":{"finalizers":{}}}`},
		{"null in an array", pod, `{"metadata":{"finalizers":[null]}}`},
		{"int32 overflow", core + "PodSpec", `{"priority":3000000000}`},
		{"fraction for an int", core + "PodSpec", `{"priority":1.5}`},
		{"string for a bool", core + "PodSpec", `{"hostNetwork":"yes"}`},
		{"bad base64", core + "Secret", `{"data":{"k":"!!"}}`},
		{"bad time", meta + "ObjectMeta", `{"creationTimestamp":"yesterday"}`},
		{"bad duration", meta + "Duration", `"soon"`},
		{"bool for a quantity", core + "ResourceRequirements", `{"limits":{"cpu":true}}`},
		{"object for an int-or-string", core + "ServicePort", `{"targetPort":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FromJSON(tc.msg, mustJSON(t, tc.json))
			require.ErrorIs(t, err, ErrMalformed)
		})
	}
	t.Run("envelope", func(t *testing.T) {
		for _, doc := range [][]byte{nil, []byte("k8s"), []byte("{}"), append(Magic[:], 0x0a, 0x09),
			append(Magic[:], pb(1, pb(1, "v1", 2, "Pod"), 2, []byte{}, 3, "gzip")...)} {
			_, err := Unmarshal(doc, "", "")
			require.ErrorIs(t, err, ErrMalformed, "%q", doc)
		}
		_, err := Marshal([]byte(`{"apiVersion":"v1","kind":"Pod"`))
		require.ErrorIs(t, err, ErrMalformed)
	})
}

// TestEnvelope checks the document envelope and kinds without a
// protobuf form.
func TestEnvelope(t *testing.T) {
	doc, err := Marshal([]byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"x"}}`))
	require.NoError(t, err)
	want := append(Magic[:], pb(1, pb(1, "v1", 2, "Namespace"), 2, pb(1, pb(1, "x")), 3, "", 4, "")...)
	require.Equal(t, want, doc)

	// An envelope that names no kind takes the one the request addresses.
	bare := append(Magic[:], pb(2, pb(1, pb(1, "x")))...)
	j, err := Unmarshal(bare, "v1", "Namespace")
	require.NoError(t, err)
	require.JSONEq(t, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"x"}}`, string(j))

	// Status and DeleteOptions are meta/v1's whatever group names them.
	for _, av := range []string{"v1", "meta.k8s.io/v1", "apps/v1"} {
		require.Equal(t, meta+"DeleteOptions", MessageFor(av, "DeleteOptions"), av)
	}
	require.True(t, Has("apps/v1", "Deployment"))
	require.True(t, Has("apps/v1", "DeploymentList"))
	require.False(t, Has("apiextensions.k8s.io/v1", "CustomResourceDefinition"))
	require.False(t, Has("example.com/v1", "Widget"))
	_, err = Marshal([]byte(`{"apiVersion":"example.com/v1","kind":"Widget"}`))
	require.Error(t, err)
}

// TestWatchEvent round-trips a watch frame.
func TestWatchEvent(t *testing.T) {
	obj, err := Marshal([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`))
	require.NoError(t, err)
	frame := MarshalWatchEvent("ADDED", obj)
	require.Equal(t, uint32(len(frame)-4), binary.BigEndian.Uint32(frame))
	typ, got, err := UnmarshalWatchEvent(frame[4:])
	require.NoError(t, err)
	require.Equal(t, "ADDED", typ)
	require.Equal(t, obj, got)
}

// TestRoundTripSamples converts every sample object of
// controllers/api/testdata/kinds.yaml with a protobuf form to protobuf
// and back, and decodes it to the same object.
func TestRoundTripSamples(t *testing.T) {
	samples, err := api.DecodeFile("../../api/testdata/kinds.yaml", api.DecodeOptions{})
	require.NoError(t, err)
	n := 0
	for _, obj := range samples {
		gvk := obj.GroupVersionKind()
		if !Has(gvk.APIVersion(), gvk.Kind) {
			continue
		}
		n++
		t.Run(gvk.Kind, func(t *testing.T) {
			j, err := json.Marshal(obj)
			require.NoError(t, err)
			doc, err := Marshal(j)
			require.NoError(t, err)
			back, err := Unmarshal(doc, "", "")
			require.NoError(t, err)
			got, err := api.Decode(back, api.DecodeOptions{})
			require.NoError(t, err)
			require.Len(t, got, 1)
			require.Equal(t, obj, got[0], "%s\n%s", j, back)
		})
	}
	require.Equal(t, len(samples)-1, n, "every sample but the CustomResourceDefinition has a protobuf form")
}

// FuzzUnmarshal checks that no document makes the decoder panic, and
// that what it decodes encodes again.
func FuzzUnmarshal(f *testing.F) {
	cm, _ := Marshal([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"b"}},"data":{"k":"v"}}`))
	f.Add(cm)
	f.Add(append(Magic[:], pb(1, pb(1, "v1", 2, "Pod"), 2, pb(2, pb(2, pb(1, "c", 2, "img"))))...))
	f.Fuzz(func(t *testing.T, doc []byte) {
		j, err := Unmarshal(doc, "v1", "Pod")
		if err != nil {
			return
		}
		if _, err := Marshal(j); err != nil && !errors.Is(err, ErrMalformed) {
			t.Fatalf("re-encoding %s: %v", j, err)
		}
		_ = bytes.Clone(j)
	})
}

// The generated code writes a scalar that is not a pointer even when it
// is zero (metadata.selfLink "", generation 0): that reads as absent, so
// strict JSON decoding does not see fields ctrlkit does not model; a
// pointer's zero (a Deployment scaled to 0 replicas) is kept.
func TestZeroScalarsOfNonPointerFields(t *testing.T) {
	// ObjectMeta: selfLink (field 4) "" and generation (field 7) 0,
	// written as gogo's code writes them; name "x" (field 1).
	meta := []byte{0x0a, 1, 'x', 0x22, 0, 0x38, 0}
	got, err := ToJSON("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", meta)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"name": "x"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	pb, err := Marshal([]byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":0}}`))
	if err != nil {
		t.Fatal(err)
	}
	j, err := Unmarshal(pb, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(j), `"replicas":0`) {
		t.Fatalf("a pointer's zero is kept: %s", j)
	}
}

// autoscaling/v1 HorizontalPodAutoscaler (kubectl autoscale's body) and
// its list have a protobuf form: every field of the v1 object survives
// the round trip, and the descriptor names kube's message.
func TestAutoscalingV1HorizontalPodAutoscaler(t *testing.T) {
	require.True(t, Has("autoscaling/v1", "HorizontalPodAutoscaler"))
	require.Equal(t, "k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerList", MessageFor("autoscaling/v1", "HorizontalPodAutoscalerList"))
	in := &api.HorizontalPodAutoscalerV1{
		TypeMeta: api.TypeMeta{APIVersion: "autoscaling/v1", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default",
			Annotations: map[string]string{"autoscaling.alpha.kubernetes.io/metrics": `[{"type":"Pods"}]`}},
		Spec: api.HorizontalPodAutoscalerSpecV1{
			ScaleTargetRef: api.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MinReplicas:    new(int32(2)), MaxReplicas: 5, TargetCPUUtilizationPercentage: new(int32(80)),
		},
		Status: api.HorizontalPodAutoscalerStatusV1{ObservedGeneration: new(int64(3)), CurrentReplicas: 2, DesiredReplicas: 3,
			CurrentCPUUtilizationPercentage: new(int32(0))},
	}
	j, err := json.Marshal(in)
	require.NoError(t, err)
	doc, err := Marshal(j)
	require.NoError(t, err)
	back, err := Unmarshal(doc, "", "")
	require.NoError(t, err)
	var got api.HorizontalPodAutoscalerV1
	require.NoError(t, json.Unmarshal(back, &got))
	require.Equal(t, in, &got, "%s\n%s", j, back)
}

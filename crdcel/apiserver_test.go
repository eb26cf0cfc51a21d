package crdcel_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"sigs.k8s.io/yaml"
)

// Served by the API server, the real Gateway definition installs without
// the warning that its rules are not checked, and a Gateway breaking one
// is a 422 Invalid Status naming the rule's message at its field.
func TestGatewayOverHTTP(t *testing.T) {
	srv, err := apiserver.New(newCluster(t), apiserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "shared", "crds")
	if s := os.Getenv("CTRLKIT_SHARED"); s != "" {
		dir = filepath.Join(s, "crds")
	}
	doc, err := os.ReadFile(filepath.Join(dir, "gateway.networking.k8s.io_gateways.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	crd, err := yaml.YAMLToJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	post := func(path string, body []byte) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec
	}
	rec := post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
	if rec.Code != http.StatusCreated {
		t.Fatalf("the definition: %d %s", rec.Code, rec.Body)
	}
	if w := rec.Header().Values("Warning"); len(w) > 0 {
		t.Errorf("warnings although the rules are checked: %q", w)
	}
	gw := []byte(`{"apiVersion":"gateway.networking.k8s.io/v1","kind":"Gateway","metadata":{"name":"g"},
		"spec":{"gatewayClassName":"eg","listeners":[{"name":"http","port":80,"protocol":"HTTP","tls":{"mode":"Terminate","certificateRefs":[{"name":"c"}]}}]}}`)
	rec = post("/apis/gateway.networking.k8s.io/v1/namespaces/default/gateways", gw)
	var st struct {
		Code    int
		Reason  string
		Message string
		Details struct {
			Causes []struct{ Reason, Message, Field string }
		}
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	if rec.Code != http.StatusUnprocessableEntity || st.Reason != "Invalid" || len(st.Details.Causes) != 1 ||
		st.Details.Causes[0].Field != "spec.listeners" || st.Details.Causes[0].Reason != "FieldValueInvalid" ||
		!strings.Contains(st.Details.Causes[0].Message, "tls must not be specified for protocols ['HTTP', 'TCP', 'UDP']") {
		t.Fatalf("a Gateway breaking a rule: %d %s", rec.Code, rec.Body)
	}
}

package main

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/controlplane/cli"
)

// lockedBuffer is an io.Writer safe for the command's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

const replicasCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"pools.cel.ctrlkit.dev"},
"spec":{"group":"cel.ctrlkit.dev","scope":"Namespaced","names":{"plural":"pools","singular":"pool","kind":"Pool"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{
 "spec":{"type":"object","properties":{"min":{"type":"integer"},"max":{"type":"integer"}},
  "x-kubernetes-validations":[{"rule":"self.min <= self.max","message":"min must not exceed max"}]}}}}}]}}`

// This build's `ctrlkit up --listen` evaluates a definition's CEL rules:
// no "not evaluated" warning on the definition's write, a custom resource
// breaking a rule is 422 Invalid with the rule's message, one keeping it
// is created (the core module's build only warns); and a webhook's
// matchConditions decide whether it is called (the core module's build
// calls it as if they held); and server-side apply is served.
func TestUpChecksCELRules(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	stderr := new(lockedBuffer)
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"up", "--listen", "127.0.0.1:0", "--insecure-http-no-auth", "--nodes", "1",
			"--kubeconfig", t.TempDir() + "/kubeconfig", "-f", t.TempDir()}, io.Discard, stderr,
			cli.Options{Stdin: strings.NewReader(""), Terminal: func() bool { return false }})
	}()
	defer func() { cancel(); <-done }()
	re := regexp.MustCompile(` on (http://127\.0\.0\.1:\d+)`)
	var url string
	// Real sockets: a bounded poll for the address the command prints.
	require.Eventually(t, func() bool {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			url = m[1]
		}
		return url != ""
	}, 30*time.Second, 50*time.Millisecond, "stderr: %s", stderr)

	c := &http.Client{Timeout: 10 * time.Second}
	post := func(path, body string) (*http.Response, string) {
		t.Helper()
		resp, err := c.Post(url+path, "application/json", strings.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, string(b)
	}
	resp, body := post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", replicasCRD)
	require.Equal(t, http.StatusCreated, resp.StatusCode, body)
	require.Empty(t, resp.Header.Values("Warning"), "the rules are evaluated: no warning that they are not")

	pools := "/apis/cel.ctrlkit.dev/v1/namespaces/default/pools"
	// The kind is served once the definition is established; a bounded
	// poll (real sockets) until the first create is not 404.
	var code int
	require.Eventually(t, func() bool {
		r, b := post(pools, `{"apiVersion":"cel.ctrlkit.dev/v1","kind":"Pool","metadata":{"name":"bad"},"spec":{"min":3,"max":1}}`)
		code, body = r.StatusCode, b
		return code != http.StatusNotFound
	}, 30*time.Second, 50*time.Millisecond)
	require.Equal(t, http.StatusUnprocessableEntity, code, body)
	require.Contains(t, body, `Pool.cel.ctrlkit.dev \"bad\" is invalid: spec: Invalid value: min must not exceed max`)

	resp, body = post(pools, `{"apiVersion":"cel.ctrlkit.dev/v1","kind":"Pool","metadata":{"name":"good"},"spec":{"min":1,"max":3}}`)
	require.Equal(t, http.StatusCreated, resp.StatusCode, body)

	// A validating webhook refusing every ConfigMap, but only those its
	// matchConditions select: labelled guarded=true.
	hook := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review map[string]any
		_ = json.NewDecoder(r.Body).Decode(&review)
		req, _ := review["request"].(map[string]any)
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
			"response": map[string]any{"uid": req["uid"], "allowed": false, "status": map[string]any{"code": 403, "message": "guarded"}}})
	}))
	defer hook.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw})
	config, err := json.Marshal(map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
		"metadata": map[string]any{"name": "guard"},
		"webhooks": []any{map[string]any{"name": "guard.example.com", "sideEffects": "None", "admissionReviewVersions": []string{"v1"},
			"clientConfig": map[string]any{"url": hook.URL, "caBundle": ca},
			"rules":        []any{map[string]any{"operations": []string{"CREATE"}, "apiGroups": []string{""}, "apiVersions": []string{"v1"}, "resources": []string{"configmaps"}}},
			"matchConditions": []any{map[string]any{"name": "guarded",
				"expression": "has(object.metadata.labels) && object.metadata.labels.guarded == 'true'"}}}}})
	require.NoError(t, err)
	resp, body = post("/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", string(config))
	require.Equal(t, http.StatusCreated, resp.StatusCode, body)
	resp, body = post("/api/v1/namespaces/default/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"free"}}`)
	require.Equal(t, http.StatusCreated, resp.StatusCode, "the condition is false: the webhook is not called: %s", body)
	resp, body = post("/api/v1/namespaces/default/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"held","labels":{"guarded":"true"}}}`)
	require.Equal(t, http.StatusForbidden, resp.StatusCode, body)
	require.Contains(t, body, `admission webhook \"guard.example.com\" denied the request: guarded`)

	// Server-side apply is served (the core module's build answers 415):
	// an apply creates, with the manager's Apply entry.
	req, err := http.NewRequest(http.MethodPatch, url+"/api/v1/namespaces/default/configmaps/applied?fieldManager=tester",
		strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"applied"},"data":{"k":"v"}}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/apply-patch+yaml")
	resp, err = c.Do(req)
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, resp.StatusCode, string(b))
	var applied struct {
		Metadata struct {
			ManagedFields []struct{ Manager, Operation string } `json:"managedFields"`
		} `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal(b, &applied))
	require.Len(t, applied.Metadata.ManagedFields, 1)
	require.Equal(t, "tester", applied.Metadata.ManagedFields[0].Manager)
	require.Equal(t, "Apply", applied.Metadata.ManagedFields[0].Operation)
}

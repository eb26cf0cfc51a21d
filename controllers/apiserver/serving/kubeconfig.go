package serving

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"
)

// DefaultName names the cluster, user and context of a kubeconfig that
// Kubeconfig.Marshal writes and MergeKubeconfig merges.
const DefaultName = "ctrlkit"

// Kubeconfig is what a client needs to reach a served API: one cluster,
// one user with a token, one context joining them.
type Kubeconfig struct {
	// Name names the cluster, the user and the context; empty means
	// DefaultName.
	Name string
	// Server is the API's URL, https://HOST:PORT (http:// for the
	// opt-out without TLS).
	Server string
	// CAData is the PEM of the CA that signed the serving certificate
	// (certificate-authority-data); empty with plain HTTP.
	CAData []byte
	// Token is the bearer token; empty without authentication.
	Token string
}

func (k Kubeconfig) name() string {
	if k.Name == "" {
		return DefaultName
	}
	return k.Name
}

// The entries of a kubeconfig (client-go's clientcmd/api/v1 layout).
func (k Kubeconfig) entries() (cluster, user, context map[string]any) {
	c := map[string]any{"server": k.Server}
	if len(k.CAData) > 0 {
		c["certificate-authority-data"] = k.CAData // []byte: base64, as kubeconfig wants
	}
	u := map[string]any{}
	if k.Token != "" {
		u["token"] = k.Token
	}
	n := k.name()
	return map[string]any{"name": n, "cluster": c},
		map[string]any{"name": n, "user": u},
		map[string]any{"name": n, "context": map[string]any{"cluster": n, "user": n}}
}

// Marshal returns k as a kubeconfig file (YAML) whose current context is
// k's, which kubectl and client-go's clientcmd load unchanged.
func (k Kubeconfig) Marshal() ([]byte, error) {
	c, u, x := k.entries()
	return yaml.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "Config", "preferences": map[string]any{},
		"clusters": []any{c}, "users": []any{u}, "contexts": []any{x},
		"current-context": k.name(),
	})
}

// WriteKubeconfig writes k to path with mode 0600 (the token is a
// credential), creating its directory with mode 0700 if needed. It
// replaces the file whole (written beside it, then renamed), so a reader
// never sees half of it.
func WriteKubeconfig(path string, k Kubeconfig) error {
	b, err := k.Marshal()
	if err != nil {
		return fmt.Errorf("serving: kubeconfig: %w", err)
	}
	return writeFile(path, b)
}

// MergeKubeconfig merges k into the kubeconfig at path, as `kind`
// merges its clusters into the user's: the cluster, user and context
// named k.Name (DefaultName) are added or replaced, current-context is
// set to it, and every other entry and field is kept. A missing file is
// created. The file keeps its mode if it exists (0600 otherwise); its
// comments and key order are not kept (kubectl config set does the
// same).
func MergeKubeconfig(path string, k Kubeconfig) error {
	doc := map[string]any{}
	mode := os.FileMode(0o600)
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := yaml.Unmarshal(b, &doc); err != nil {
			return fmt.Errorf("serving: merge into %s: %w", path, err)
		}
		if doc == nil {
			doc = map[string]any{}
		}
		if st, err := os.Stat(path); err == nil {
			mode = st.Mode().Perm()
		}
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("serving: merge into %s: %w", path, err)
	}
	doc["apiVersion"], doc["kind"] = "v1", "Config"
	c, u, x := k.entries()
	for _, e := range []struct {
		key   string
		entry map[string]any
	}{{"clusters", c}, {"users", u}, {"contexts", x}} {
		list, _ := doc[e.key].([]any)
		replaced := false
		for i, old := range list {
			if m, ok := old.(map[string]any); ok && m["name"] == k.name() {
				list[i], replaced = e.entry, true
			}
		}
		if !replaced {
			list = append(list, e.entry)
		}
		doc[e.key] = list
	}
	doc["current-context"] = k.name()
	out, err := yaml.Marshal(doc)
	if err != nil {
		return fmt.Errorf("serving: merge into %s: %w", path, err)
	}
	if err := writeFile(path, out); err != nil {
		return err
	}
	return os.Chmod(path, mode)
}

func writeFile(path string, b []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("serving: kubeconfig: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("serving: kubeconfig: %w", err)
	}
	defer os.Remove(f.Name()) // after the rename: nothing left
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("serving: kubeconfig: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("serving: kubeconfig: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("serving: kubeconfig: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("serving: kubeconfig: %w", err)
	}
	return nil
}

// UserKubeconfig returns the kubeconfig file kubectl writes to: the
// first path of $KUBECONFIG, else ~/.kube/config.
func UserKubeconfig() (string, error) {
	for _, p := range filepath.SplitList(os.Getenv("KUBECONFIG")) {
		if p != "" {
			return p, nil
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("serving: the user's kubeconfig: %w", err)
	}
	return filepath.Join(home, ".kube", "config"), nil
}

// ReadKubeconfig reads the entries named name (DefaultName when empty)
// of the kubeconfig at path: the inverse of WriteKubeconfig and
// MergeKubeconfig.
func ReadKubeconfig(path, name string) (Kubeconfig, error) {
	if name == "" {
		name = DefaultName
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Kubeconfig{}, fmt.Errorf("serving: kubeconfig: %w", err)
	}
	var doc struct {
		Clusters []struct {
			Name    string `json:"name"`
			Cluster struct {
				Server string `json:"server"`
				CAData []byte `json:"certificate-authority-data"`
			} `json:"cluster"`
		} `json:"clusters"`
		Users []struct {
			Name string `json:"name"`
			User struct {
				Token string `json:"token"`
			} `json:"user"`
		} `json:"users"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return Kubeconfig{}, fmt.Errorf("serving: kubeconfig %s: %w", path, err)
	}
	k := Kubeconfig{Name: name}
	found := false
	for _, c := range doc.Clusters {
		if c.Name == name {
			k.Server, k.CAData, found = c.Cluster.Server, c.Cluster.CAData, true
		}
	}
	for _, u := range doc.Users {
		if u.Name == name {
			k.Token = u.User.Token
		}
	}
	if !found {
		return Kubeconfig{}, fmt.Errorf("serving: kubeconfig %s: no cluster %q", path, name)
	}
	return k, nil
}

// Client returns an http.Client that trusts k's CA and sends its token,
// as kubectl does with the same kubeconfig. Requests must go to
// k.Server.
func (k Kubeconfig) Client() (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if len(k.CAData) > 0 {
		pool, err := CertPool(k.CAData)
		if err != nil {
			return nil, err
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	var rt http.RoundTripper = tr
	if k.Token != "" {
		rt = bearerTransport{token: k.Token, next: tr}
	}
	return &http.Client{Transport: rt}, nil
}

type bearerTransport struct {
	token string
	next  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

package apiserver

import (
	"net/http"
	"runtime"
	"slices"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// versionInfo is version.Info, the body of /version.
type versionInfo struct {
	Major        string `json:"major"`
	Minor        string `json:"minor"`
	GitVersion   string `json:"gitVersion"`
	GitCommit    string `json:"gitCommit"`
	GitTreeState string `json:"gitTreeState"`
	BuildDate    string `json:"buildDate"`
	GoVersion    string `json:"goVersion"`
	Compiler     string `json:"compiler"`
	Platform     string `json:"platform"`
}

func (s *Server) serveVersion(w http.ResponseWriter, r *http.Request) {
	v := strings.TrimPrefix(s.opts.Version, "v")
	major, minor, _ := strings.Cut(v, ".")
	minor, _, _ = strings.Cut(minor, ".")
	writeJSON(w, http.StatusOK, versionInfo{Major: major, Minor: minor, GitVersion: s.opts.Version,
		GitTreeState: "clean", BuildDate: "1970-01-01T00:00:00Z", GoVersion: runtime.Version(), Compiler: runtime.Compiler,
		Platform: runtime.GOOS + "/" + runtime.GOARCH})
}

type serverAddress struct {
	ClientCIDR    string `json:"clientCIDR"`
	ServerAddress string `json:"serverAddress"`
}

type apiVersions struct {
	api.TypeMeta `json:",inline"`
	Versions     []string        `json:"versions"`
	Addresses    []serverAddress `json:"serverAddressByClientCIDRs"`
}

func (s *Server) serveAPIVersions(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, apiVersions{TypeMeta: api.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"},
		Addresses: []serverAddress{{ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host}}})
}

type groupVersion struct {
	GroupVersion string `json:"groupVersion"`
	Version      string `json:"version"`
}

type apiGroup struct {
	api.TypeMeta     `json:",inline"`
	Name             string         `json:"name"`
	Versions         []groupVersion `json:"versions"`
	PreferredVersion groupVersion   `json:"preferredVersion"`
}

type apiGroupList struct {
	api.TypeMeta `json:",inline"`
	Groups       []apiGroup `json:"groups"`
}

// groups returns the named groups served now, in the order of their
// first kind (see served), each with its versions in kube-apiserver's
// priority order (GA, beta, alpha) and the first preferred.
func (s *Server) groups() []apiGroup {
	var out []apiGroup
	for _, h := range s.served() {
		info := h.info()
		if info.group == "" {
			continue
		}
		v := groupVersion{GroupVersion: info.groupVersion(), Version: info.version}
		i := slices.IndexFunc(out, func(g apiGroup) bool { return g.Name == info.group })
		if i < 0 {
			out = append(out, apiGroup{Name: info.group, Versions: []groupVersion{v}})
			continue
		}
		if !slices.Contains(out[i].Versions, v) {
			out[i].Versions = append(out[i].Versions, v)
		}
	}
	for i := range out {
		slices.SortStableFunc(out[i].Versions, func(a, b groupVersion) int { return compareVersions(a.Version, b.Version) })
		out[i].PreferredVersion = out[i].Versions[0]
	}
	if g, ok := s.resourceMetricsGroup(); ok { // metricsapi.go
		out = append(out, g)
	}
	return append(out, reviewGroups()...) // reviews.go
}

func (s *Server) serveGroups(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, apiGroupList{TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "APIGroupList"}, Groups: s.groups()})
}

func (s *Server) serveGroup(w http.ResponseWriter, r *http.Request, name string) {
	for _, g := range s.groups() {
		if g.Name == name {
			g.TypeMeta = api.TypeMeta{APIVersion: "v1", Kind: "APIGroup"}
			writeJSON(w, http.StatusOK, g)
			return
		}
	}
	writeError(w, notFound(), nil, "")
}

// apiResource is metav1.APIResource.
type apiResource struct {
	Name         string   `json:"name"`
	SingularName string   `json:"singularName"`
	Namespaced   bool     `json:"namespaced"`
	Group        string   `json:"group,omitempty"`
	Version      string   `json:"version,omitempty"`
	Kind         string   `json:"kind"`
	Verbs        []string `json:"verbs"`
	ShortNames   []string `json:"shortNames,omitempty"`
	Categories   []string `json:"categories,omitempty"`
}

type apiResourceList struct {
	api.TypeMeta `json:",inline"`
	GroupVersion string        `json:"groupVersion"`
	Resources    []apiResource `json:"resources"`
}

var (
	resourceVerbs    = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	subresourceVerbs = []string{"get", "patch", "update"}
)

// resources returns the APIResources of one group version.
func (s *Server) resources(gv string) ([]apiResource, bool) {
	if _, ok := s.resourceMetricsGroup(); ok && gv == metricsGroupVersion { // metricsapi.go
		return metricsResources, true
	}
	if rs, ok := reviewAPIResources(gv); ok { // reviews.go
		return rs, true
	}
	var out []apiResource
	found := false
	for _, h := range s.served() {
		info := h.info()
		if info.groupVersion() != gv {
			continue
		}
		found = true
		out = append(out, apiResource{Name: info.name, SingularName: info.singular(), Namespaced: info.namespaced,
			Kind: info.kind, Verbs: resourceVerbs, ShortNames: info.shortNames, Categories: info.categories})
		if info.hasScale {
			out = append(out, apiResource{Name: info.name + "/scale", Namespaced: info.namespaced,
				Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: subresourceVerbs})
		}
		if info.hasStatus {
			out = append(out, apiResource{Name: info.name + "/status", Namespaced: info.namespaced,
				Kind: info.kind, Verbs: subresourceVerbs})
		}
		if info.name == "pods" {
			out = append(out, apiResource{Name: "pods/binding", Namespaced: true, Kind: "Binding", Verbs: []string{"create"}})
			out = append(out, ephemeralContainersResource) // ephemeral.go
			out = append(out, evictionResource)            // eviction.go
			out = append(out, streamResources...)          // exec.go
		}
		if info.name == "serviceaccounts" && s.opts.ServiceAccountTokens != nil {
			out = append(out, tokenResource) // token.go
		}
	}
	return out, found
}

func (s *Server) serveResources(w http.ResponseWriter, r *http.Request, gv string) {
	res, ok := s.resources(gv)
	if !ok {
		writeError(w, notFound(), nil, "")
		return
	}
	writeJSON(w, http.StatusOK, apiResourceList{TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "APIResourceList"},
		GroupVersion: gv, Resources: res})
}

package cluster

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Rules ported from kube-apiserver's validation: the syntax of
// k8s.io/apimachinery/pkg/util/validation (IsConfigMapKey,
// IsValidPortName, IsEnvVarName), and the checks of
// k8s.io/kubernetes/pkg/apis/core/validation/validation.go
// (ValidateConfigMap, ValidateSecret, ValidateAnnotations,
// validateContainerPorts, ValidateEnv, ValidateVolumeMounts,
// ValidateResourceRequirements, validateVolumes, ValidateService's ports).

// Size limits of core/v1.
const (
	// maxConfigDataBytes bounds the data of a ConfigMap or Secret, its
	// values' lengths summed: Kubernetes' MaxSecretSize, 1 MiB.
	maxConfigDataBytes = 1 << 20
	// maxAnnotationBytes bounds the annotations of an object, keys and
	// values summed: TotalAnnotationSizeLimitB, 256 KiB.
	maxAnnotationBytes = 256 << 10
)

var (
	configMapKeyRE = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)
	// portNameRE is IANA_SVC_NAME's alphabet; the other rules are checked
	// one by one for their messages.
	portNameRE       = regexp.MustCompile(`^[-a-z0-9]+$`)
	portNameLetterRE = regexp.MustCompile(`[a-z]`)
)

// sortedMapKeys returns m's keys in order, so that errors come in a
// stable order.
func sortedMapKeys[K ~string, V any](m map[K]V) []K { return slices.Sorted(maps.Keys(m)) }

// keyPath renders a map member's path as field.Path.Key does: data[key].
func keyPath(path, key string) string { return path + "[" + key + "]" }

// checkConfigMapKey checks a key of a ConfigMap's or Secret's data
// (IsConfigMapKey): it becomes a file name in a volume, so it may not
// walk out of it.
func checkConfigMapKey(fs *fieldErrors, path, key string) {
	p := keyPath(path, key)
	if len(key) > 253 {
		fs.invalid(p, key, "must be no more than 253 characters")
	}
	if !configMapKeyRE.MatchString(key) {
		fs.invalid(p, key, "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')")
	}
	switch {
	case key == ".":
		fs.invalid(p, key, `must not be '.'`)
	case key == "..":
		fs.invalid(p, key, `must not be '..'`)
	case strings.HasPrefix(key, ".."):
		fs.invalid(p, key, `must not start with '..'`)
	}
}

func validateConfigMap(cm *api.ConfigMap, fs *fieldErrors) {
	total := 0
	for _, k := range sortedKeys(cm.Data) {
		checkConfigMapKey(fs, "data", k)
		if _, dup := cm.BinaryData[k]; dup {
			fs.invalid(keyPath("data", k), k, "duplicate of key present in binaryData")
		}
		total += len(cm.Data[k])
	}
	for _, k := range sortedMapKeys(cm.BinaryData) {
		checkConfigMapKey(fs, "binaryData", k)
		total += len(cm.BinaryData[k])
	}
	if total > maxConfigDataBytes {
		fs.add(FieldTooLong, "", "", fmt.Sprintf("must have at most %d bytes", maxConfigDataBytes))
	}
}

// The Secret types whose data ValidateSecret checks, and their keys.
const (
	secretTypeServiceAccountToken = "kubernetes.io/service-account-token"
	secretTypeDockercfg           = "kubernetes.io/dockercfg"
	secretTypeDockerConfigJSON    = "kubernetes.io/dockerconfigjson"
	secretTypeBasicAuth           = "kubernetes.io/basic-auth"
	secretTypeSSHAuth             = "kubernetes.io/ssh-auth"
	secretTypeTLS                 = "kubernetes.io/tls"
)

func validateSecret(s *api.Secret, fs *fieldErrors) {
	// stringData is merged into data on write; validate the merged keys.
	data := make(map[string][]byte, len(s.Data)+len(s.StringData))
	total := 0
	for _, k := range sortedMapKeys(s.Data) {
		checkConfigMapKey(fs, "data", k)
		data[k] = s.Data[k]
	}
	for _, k := range sortedKeys(s.StringData) {
		checkConfigMapKey(fs, "stringData", k)
		data[k] = []byte(s.StringData[k])
	}
	for _, v := range data {
		total += len(v)
	}
	if total > maxConfigDataBytes {
		fs.add(FieldTooLong, "data", "", fmt.Sprintf("must have at most %d bytes", maxConfigDataBytes))
	}
	requireKey := func(k string) {
		if _, ok := data[k]; !ok {
			fs.required(keyPath("data", k), "")
		}
	}
	jsonKey := func(k string) {
		v, ok := data[k]
		if !ok {
			fs.required(keyPath("data", k), "")
			return
		}
		var m map[string]any
		if err := json.Unmarshal(v, &m); err != nil {
			fs.invalid(keyPath("data", k), "<secret contents redacted>", err.Error())
		}
	}
	switch s.Type {
	case secretTypeServiceAccountToken:
		if s.Annotations["kubernetes.io/service-account.name"] == "" {
			fs.required("metadata.annotations[kubernetes.io/service-account.name]", "")
		}
	case secretTypeDockercfg:
		jsonKey(".dockercfg")
	case secretTypeDockerConfigJSON:
		jsonKey(".dockerconfigjson")
	case secretTypeBasicAuth:
		_, user := data["username"]
		_, pass := data["password"]
		if !user && !pass {
			fs.required(keyPath("data", "username"), "")
			fs.required(keyPath("data", "password"), "")
		}
	case secretTypeSSHAuth:
		if len(data["ssh-privatekey"]) == 0 {
			fs.required(keyPath("data", "ssh-privatekey"), "")
		}
	case secretTypeTLS:
		requireKey("tls.crt")
		requireKey("tls.key")
	}
}

// checkAnnotationSize bounds the annotations' keys and values, summed.
func checkAnnotationSize(fs *fieldErrors, path string, a map[string]string) {
	total := 0
	for k, v := range a {
		total += len(k) + len(v)
	}
	if total > maxAnnotationBytes {
		fs.add(FieldTooLong, path, "", fmt.Sprintf("must have at most %d bytes", maxAnnotationBytes))
	}
}

// checkPortName checks a container port's name (IsValidPortName,
// IANA_SVC_NAME): at most 15 lowercase letters, digits and '-', with a
// letter, no "--", not starting or ending with '-'.
func checkPortName(fs *fieldErrors, path, name string) {
	if len(name) > 15 {
		fs.invalid(path, name, "must be no more than 15 characters")
	}
	if !portNameRE.MatchString(name) {
		fs.invalid(path, name, "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
	}
	if !portNameLetterRE.MatchString(name) {
		fs.invalid(path, name, "must contain at least one letter (a-z)")
	}
	if strings.Contains(name, "--") {
		fs.invalid(path, name, "must not contain consecutive hyphens")
	}
	if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
		fs.invalid(path, name, "must not begin or end with a hyphen")
	}
}

func checkPortRange(fs *fieldErrors, path string, port int32) {
	if port < 1 || port > 65535 {
		fs.invalid(path, strconv.Itoa(int(port)), "must be between 1 and 65535, inclusive")
	}
}

func checkProtocol(fs *fieldErrors, path string, p api.Protocol) {
	switch p {
	case api.ProtocolTCP, api.ProtocolUDP, api.ProtocolSCTP, "": // "" is defaulted to TCP
	default:
		fs.add(FieldUnsupported, path, string(p), `supported values: "SCTP", "TCP", "UDP"`)
	}
}

// checkEnvVarName: any printable ASCII but '=' (IsEnvVarName since the
// RelaxedEnvironmentVariableValidation of Kubernetes 1.32).
func checkEnvVarName(fs *fieldErrors, path, name string) {
	if name == "" {
		fs.required(path, "")
		return
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < ' ' || c > '~' || c == '=' {
			fs.invalid(path, name, "a valid environment variable name must consist only of printable ASCII characters other than '='")
			return
		}
	}
}

// standardContainerResource reports whether a resource name without a
// domain is one a container may request (IsStandardContainerResourceName).
func standardContainerResource(name string) bool {
	switch name {
	case string(api.ResourceCPU), string(api.ResourceMemory), "ephemeral-storage":
		return true
	}
	return strings.HasPrefix(name, "hugepages-")
}

// validateResources checks a container's requests and limits: names
// standard or domain-qualified, quantities not negative, each request no
// more than its limit (ValidateResourceRequirements).
func validateResources(fs *fieldErrors, path string, r *api.ResourceRequirements) {
	for _, part := range []struct {
		field string
		list  api.ResourceList
	}{{"limits", r.Limits}, {"requests", r.Requests}} {
		for _, name := range sortedMapKeys(part.list) {
			p := keyPath(path+"."+part.field, string(name))
			q := part.list[name]
			n := string(name)
			if strings.Contains(n, "/") {
				checkQualifiedName(fs, p, n)
			} else if !standardContainerResource(n) {
				fs.invalid(p, n, "must be a standard resource for containers")
			}
			if q.Sign() < 0 {
				fs.invalid(p, q.String(), "must be greater than or equal to 0")
			}
			if part.field != "requests" {
				continue
			}
			if l, ok := r.Limits[name]; ok && q.Cmp(l) > 0 {
				fs.invalid(p, q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", n, l.String()))
			}
		}
	}
}

// validateContainerDetails checks the parts of a container the rules of
// validatePodSpec do not: ports, env, volume mounts, resources, policies.
// volumes are the names of the pod's volumes.
func validateContainerDetails(fs *fieldErrors, p string, c *api.Container, volumes map[string]bool) {
	portNames := map[string]bool{}
	for j, port := range c.Ports {
		pp := fmt.Sprintf("%s.ports[%d]", p, j)
		if port.Name != "" {
			checkPortName(fs, pp+".name", port.Name)
			if portNames[port.Name] {
				fs.add(FieldDuplicate, pp+".name", port.Name, "")
			}
			portNames[port.Name] = true
		}
		if port.HostPort != 0 {
			checkPortRange(fs, pp+".hostPort", port.HostPort)
		}
		checkProtocol(fs, pp+".protocol", port.Protocol)
	}
	for j, e := range c.Env {
		checkEnvVarName(fs, fmt.Sprintf("%s.env[%d].name", p, j), e.Name)
	}
	mountPaths := map[string]bool{}
	for j, m := range c.VolumeMounts {
		mp := fmt.Sprintf("%s.volumeMounts[%d]", p, j)
		if m.Name == "" {
			fs.required(mp+".name", "")
		} else if !volumes[m.Name] {
			fs.add(FieldNotFound, mp+".name", m.Name, "")
		}
		if m.MountPath == "" {
			fs.required(mp+".mountPath", "")
		} else if mountPaths[m.MountPath] {
			fs.invalid(mp+".mountPath", m.MountPath, "must be unique")
		}
		mountPaths[m.MountPath] = true
	}
	validateResources(fs, p+".resources", &c.Resources)
	switch c.ImagePullPolicy {
	case "", api.PullAlways, api.PullIfNotPresent, api.PullNever:
	default:
		fs.add(FieldUnsupported, p+".imagePullPolicy", string(c.ImagePullPolicy), `supported values: "Always", "IfNotPresent", "Never"`)
	}
	switch c.TerminationMessagePolicy {
	case "", "File", "FallbackToLogsOnError":
	default:
		fs.add(FieldUnsupported, p+".terminationMessagePolicy", c.TerminationMessagePolicy, `supported values: "File", "FallbackToLogsOnError"`)
	}
}

// validateVolumes checks the pod's volume names (DNS-1123 labels,
// unique) and returns them.
func validateVolumes(fs *fieldErrors, path string, vs []api.Volume) map[string]bool {
	names := make(map[string]bool, len(vs))
	for i, v := range vs {
		p := fmt.Sprintf("%s.volumes[%d].name", path, i)
		switch {
		case v.Name == "":
			fs.required(p, "")
		case names[v.Name]:
			fs.add(FieldDuplicate, p, v.Name, "")
		default:
			checkDNS1123Label(fs, p, v.Name)
		}
		names[v.Name] = true
	}
	return names
}

// validatePodSpecDetails checks the pod-level fields validatePodSpec does
// not.
func validatePodSpecDetails(fs *fieldErrors, path string, s *api.PodSpec) {
	if d := s.ActiveDeadlineSeconds; d != nil && (*d < 1 || *d > 1<<31-1) {
		fs.invalid(path+".activeDeadlineSeconds", strconv.FormatInt(*d, 10), "must be between 1 and 2147483647, inclusive")
	}
	switch s.DNSPolicy {
	case "", "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None":
	default:
		fs.add(FieldUnsupported, path+".dnsPolicy", string(s.DNSPolicy), `supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"`)
	}
	if s.ServiceAccountName != "" {
		checkDNS1123Subdomain(fs, path+".serviceAccountName", s.ServiceAccountName)
	}
}

// validateServicePort checks what validateService does not: the port's
// name (a DNS-1123 label), nodePort and targetPort.
func validateServicePort(fs *fieldErrors, path string, p *api.ServicePort) {
	if p.Name != "" {
		checkDNS1123Label(fs, path+".name", p.Name)
	}
	if p.NodePort != 0 {
		checkPortRange(fs, path+".nodePort", p.NodePort)
	}
	tp := p.TargetPort
	if tp.Type == api.TypeString {
		if tp.StrVal != "" {
			checkPortName(fs, path+".targetPort", tp.StrVal)
		}
	} else if tp.IntVal != 0 {
		checkPortRange(fs, path+".targetPort", tp.IntVal)
	}
}

// Rules of k8s.io/kubernetes/pkg/apis/apps/validation/validation.go
// (ValidateDeploymentSpec, ValidateReplicaSetSpec, ValidateDaemonSetSpec,
// ValidateStatefulSetSpec) and pkg/apis/batch/validation/validation.go
// (validateJobSpec, validateCronJobSpec) that ctrlkit lacked.

func checkNonNegative64(fs *fieldErrors, path string, v *int64) {
	if v != nil && *v < 0 {
		fs.invalid(path, strconv.FormatInt(*v, 10), "must be greater than or equal to 0")
	}
}

func checkMinReadySeconds(fs *fieldErrors, v int32) {
	checkNonNegative(fs, "spec.minReadySeconds", &v)
}

func validateDeploymentDetails(s *api.DeploymentSpec, fs *fieldErrors) {
	checkMinReadySeconds(fs, s.MinReadySeconds)
	checkNonNegative(fs, "spec.revisionHistoryLimit", s.RevisionHistoryLimit)
	if p := s.ProgressDeadlineSeconds; p != nil {
		checkNonNegative(fs, "spec.progressDeadlineSeconds", p)
		if *p <= s.MinReadySeconds {
			fs.invalid("spec.progressDeadlineSeconds", strconv.Itoa(int(*p)), "must be greater than minReadySeconds")
		}
	}
}

func validateJobDetails(fs *fieldErrors, path string, s *api.JobSpec) {
	checkNonNegative64(fs, path+".activeDeadlineSeconds", s.ActiveDeadlineSeconds)
	checkNonNegative(fs, path+".ttlSecondsAfterFinished", s.TTLSecondsAfterFinished)
	checkNonNegative(fs, path+".backoffLimitPerIndex", s.BackoffLimitPerIndex)
	indexed := false
	if m := s.CompletionMode; m != nil {
		switch *m {
		case api.NonIndexedCompletion:
		case api.IndexedCompletion:
			// Upstream requires completions here; ctrlkit's defaults
			// always set them.
			indexed = true
		default:
			fs.add(FieldUnsupported, path+".completionMode", string(*m), `supported values: "NonIndexed", "Indexed"`)
		}
	}
	if !indexed {
		if v := s.BackoffLimitPerIndex; v != nil {
			invalidInt(fs, path+".backoffLimitPerIndex", int64(*v), "requires indexed completion mode")
		}
	}
	validateJobPolicies(fs, path, s, indexed)
}

func validateCronJobDetails(s *api.CronJobSpec, fs *fieldErrors) {
	checkNonNegative64(fs, "spec.startingDeadlineSeconds", s.StartingDeadlineSeconds)
	checkNonNegative(fs, "spec.successfulJobsHistoryLimit", s.SuccessfulJobsHistoryLimit)
	checkNonNegative(fs, "spec.failedJobsHistoryLimit", s.FailedJobsHistoryLimit)
}

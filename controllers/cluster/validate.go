package cluster

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Name rules of k8s.io/apimachinery/pkg/util/validation.
var (
	dns1123LabelRE     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dns1123SubdomainRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	dns1035LabelRE     = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)
	qualifiedNameRE    = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
	labelValueRE       = regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)
)

func checkDNS1123Label(fs *fieldErrors, path, v string) {
	switch {
	case len(v) > 63:
		fs.invalid(path, v, "must be no more than 63 characters")
	case !dns1123LabelRE.MatchString(v):
		fs.invalid(path, v, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character")
	}
}

func checkDNS1123Subdomain(fs *fieldErrors, path, v string) {
	switch {
	case len(v) > 253:
		fs.invalid(path, v, "must be no more than 253 characters")
	case !dns1123SubdomainRE.MatchString(v):
		fs.invalid(path, v, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character")
	}
}

func checkDNS1035Label(fs *fieldErrors, path, v string) {
	switch {
	case len(v) > 63:
		fs.invalid(path, v, "must be no more than 63 characters")
	case !dns1035LabelRE.MatchString(v):
		fs.invalid(path, v, "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character")
	}
}

// checkQualifiedName checks a label or annotation key: an optional DNS
// subdomain prefix and "/", then a name of at most 63 characters.
func checkQualifiedName(fs *fieldErrors, path, k string) {
	name := k
	if prefix, n, ok := strings.Cut(k, "/"); ok {
		name = n
		if prefix == "" {
			fs.invalid(path, k, "prefix part must be non-empty")
		} else {
			checkDNS1123Subdomain(fs, path, prefix)
		}
	}
	switch {
	case name == "":
		fs.invalid(path, k, "name part must be non-empty")
	case len(name) > 63:
		fs.invalid(path, k, "name part must be no more than 63 characters")
	case !qualifiedNameRE.MatchString(name):
		fs.invalid(path, k, "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character")
	}
}

func checkLabels(fs *fieldErrors, path string, labels map[string]string) {
	for _, k := range sortedKeys(labels) {
		v := labels[k]
		checkQualifiedName(fs, path, k)
		if len(v) > 63 || !labelValueRE.MatchString(v) {
			fs.invalid(path, v, "a valid label value must be 63 characters or less and must be empty or begin and end with an alphanumeric character, with '-', '_' or '.' between")
		}
	}
}

// nameRules says how each resource's names are checked (Kubernetes'
// ValidateNameFunc per kind): DNS-1123 subdomain unless listed.
var nameRules = map[string]func(*fieldErrors, string, string){
	"namespaces": checkDNS1123Label,
	"services":   checkDNS1035Label,
	// ValidateRBACName: a path segment, so "system:basic-user" is one.
	"roles": checkPathSegmentName, "clusterroles": checkPathSegmentName,
	"rolebindings": checkPathSegmentName, "clusterrolebindings": checkPathSegmentName,
}

// validateMeta checks the metadata every kind shares.
func validateMeta(m *api.ObjectMeta, resource string, namespaced bool, fs *fieldErrors) {
	if m.Name == "" {
		fs.required("metadata.name", "name or generateName is required")
	} else {
		check := nameRules[resource]
		if check == nil {
			check = checkDNS1123Subdomain
		}
		check(fs, "metadata.name", m.Name)
	}
	if namespaced {
		checkDNS1123Label(fs, "metadata.namespace", m.Namespace)
	}
	checkLabels(fs, "metadata.labels", m.Labels)
	for _, k := range sortedKeys(m.Annotations) {
		checkQualifiedName(fs, "metadata.annotations", k)
	}
	checkAnnotationSize(fs, "metadata.annotations", m.Annotations)
	controllers := 0
	for i, r := range m.OwnerReferences {
		p := fmt.Sprintf("metadata.ownerReferences[%d]", i)
		if r.Controller != nil && *r.Controller {
			if controllers++; controllers == 2 {
				fs.invalid("metadata.ownerReferences", "", "Only one reference can have Controller set to true")
			}
		}
		if r.APIVersion == "" {
			fs.required(p+".apiVersion", "")
		}
		if r.Kind == "" {
			fs.required(p+".kind", "")
		}
		if r.Name == "" {
			fs.required(p+".name", "")
		}
		if r.UID == "" {
			fs.required(p+".uid", "")
		}
	}
}

// validatePodSpec checks a pod's or a template's spec at path, with the
// restart policies allowed there.
func validatePodSpec(fs *fieldErrors, path string, s *api.PodSpec, allowed ...api.RestartPolicy) {
	if len(s.Containers) == 0 {
		fs.required(path+".containers", "")
	}
	volumes := validateVolumes(fs, path, s.Volumes)
	validatePodSpecDetails(fs, path, s)
	names := map[string]bool{}
	for _, list := range []struct {
		field string
		cs    []api.Container
	}{{"initContainers", s.InitContainers}, {"containers", s.Containers}} {
		for i, c := range list.cs {
			p := fmt.Sprintf("%s.%s[%d]", path, list.field, i)
			if c.Name == "" {
				fs.required(p+".name", "")
			} else {
				checkDNS1123Label(fs, p+".name", c.Name)
				if names[c.Name] {
					fs.add(FieldDuplicate, p+".name", c.Name, "")
				}
				names[c.Name] = true
			}
			if c.Image == "" {
				fs.required(p+".image", "")
			}
			for j, port := range c.Ports {
				if port.ContainerPort < 1 || port.ContainerPort > 65535 {
					fs.invalid(fmt.Sprintf("%s.ports[%d].containerPort", p, j), strconv.Itoa(int(port.ContainerPort)), "must be between 1 and 65535, inclusive")
				}
			}
			validateContainerDetails(fs, p, &c, volumes)
		}
	}
	if path == "spec" {
		validateEphemeralContainers(fs, path, s, volumes)
	} else if len(s.EphemeralContainers) > 0 {
		fs.forbidden(path+".ephemeralContainers", "ephemeral containers not allowed in pod template")
	}
	if len(allowed) == 0 {
		allowed = []api.RestartPolicy{api.RestartPolicyAlways, api.RestartPolicyOnFailure, api.RestartPolicyNever}
	}
	ok := false
	for _, a := range allowed {
		ok = ok || s.RestartPolicy == a
	}
	if !ok {
		want := make([]string, len(allowed))
		for i, a := range allowed {
			want[i] = strconv.Quote(string(a))
		}
		fs.add(FieldUnsupported, path+".restartPolicy", string(s.RestartPolicy), "supported values: "+strings.Join(want, ", "))
	}
	if g := s.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		fs.invalid(path+".terminationGracePeriodSeconds", strconv.FormatInt(*g, 10), "must be greater than or equal to 0")
	}
	if s.Hostname != "" {
		checkDNS1123Label(fs, path+".hostname", s.Hostname)
	}
	if s.Subdomain != "" {
		checkDNS1123Label(fs, path+".subdomain", s.Subdomain)
	}
	if s.NodeSelector != nil {
		checkLabels(fs, path+".nodeSelector", s.NodeSelector)
	}
}

// validateSelector checks that a workload has a non-empty selector that
// matches its template's labels.
func validateSelector(fs *fieldErrors, sel *api.LabelSelector, tmpl *api.PodTemplateSpec) {
	if sel == nil || len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
		fs.required("spec.selector", "")
		return
	}
	checkLabels(fs, "spec.selector.matchLabels", sel.MatchLabels)
	s, err := sel.AsSelector()
	if err != nil {
		fs.invalid("spec.selector", "", err.Error())
		return
	}
	checkLabels(fs, "spec.template.metadata.labels", tmpl.Labels)
	if !s.Matches(tmpl.Labels) {
		fs.invalid("spec.template.metadata.labels", labelsString(tmpl.Labels), "`selector` does not match template `labels`")
	}
}

func checkNonNegative(fs *fieldErrors, path string, v *int32) {
	if v != nil && *v < 0 {
		fs.invalid(path, strconv.Itoa(int(*v)), "must be greater than or equal to 0")
	}
}

func labelsString(m map[string]string) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, ",")
}

func validatePod(p *api.Pod, fs *fieldErrors) { validatePodSpec(fs, "spec", &p.Spec) }

func validateDeployment(d *api.Deployment, fs *fieldErrors) {
	checkNonNegative(fs, "spec.replicas", d.Spec.Replicas)
	validateDeploymentDetails(&d.Spec, fs)
	validateSelector(fs, d.Spec.Selector, &d.Spec.Template)
	validatePodSpec(fs, "spec.template.spec", &d.Spec.Template.Spec, api.RestartPolicyAlways)
	switch d.Spec.Strategy.Type {
	case api.RollingUpdateDeploymentStrategyType, api.RecreateDeploymentStrategyType:
	default:
		fs.add(FieldUnsupported, "spec.strategy.type", string(d.Spec.Strategy.Type), `supported values: "Recreate", "RollingUpdate"`)
	}
	if d.Spec.Strategy.Type == api.RecreateDeploymentStrategyType && d.Spec.Strategy.RollingUpdate != nil {
		fs.forbidden("spec.strategy.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'")
	}
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil && ru.MaxSurge != nil && ru.MaxUnavailable != nil {
		s, _ := ru.MaxSurge.ScaledValue(100, true)
		u, _ := ru.MaxUnavailable.ScaledValue(100, true)
		if s == 0 && u == 0 {
			fs.invalid("spec.strategy.rollingUpdate.maxUnavailable", ru.MaxUnavailable.String(), "may not be 0 when `maxSurge` is 0")
		}
	}
}

func validateReplicaSet(rs *api.ReplicaSet, fs *fieldErrors) {
	checkNonNegative(fs, "spec.replicas", rs.Spec.Replicas)
	checkMinReadySeconds(fs, rs.Spec.MinReadySeconds)
	validateSelector(fs, rs.Spec.Selector, &rs.Spec.Template)
	validatePodSpec(fs, "spec.template.spec", &rs.Spec.Template.Spec, api.RestartPolicyAlways)
}

func validateReplicationController(rc *api.ReplicationController, fs *fieldErrors) {
	checkNonNegative(fs, "spec.replicas", rc.Spec.Replicas)
	if len(rc.Spec.Selector) == 0 {
		fs.required("spec.selector", "")
	}
	if rc.Spec.Template != nil {
		if !api.SelectorFromSet(rc.Spec.Selector).Matches(rc.Spec.Template.Labels) {
			fs.invalid("spec.template.metadata.labels", labelsString(rc.Spec.Template.Labels), "`selector` does not match template `labels`")
		}
		validatePodSpec(fs, "spec.template.spec", &rc.Spec.Template.Spec, api.RestartPolicyAlways)
	}
}

func validateStatefulSet(s *api.StatefulSet, fs *fieldErrors) {
	checkNonNegative(fs, "spec.replicas", s.Spec.Replicas)
	checkMinReadySeconds(fs, s.Spec.MinReadySeconds)
	validateSelector(fs, s.Spec.Selector, &s.Spec.Template)
	validatePodSpec(fs, "spec.template.spec", statefulSetPodSpec(s), api.RestartPolicyAlways)
	switch s.Spec.PodManagementPolicy {
	case api.OrderedReadyPodManagement, api.ParallelPodManagement:
	default:
		fs.add(FieldUnsupported, "spec.podManagementPolicy", string(s.Spec.PodManagementPolicy), `supported values: "OrderedReady", "Parallel"`)
	}
}

// statefulSetPodSpec is the pod spec of s as validated, as kube's
// ValidateStatefulSetSpec validates it: the hostname and subdomain the
// controller overwrites cleared, and a volume per claim template (a claim
// of the template's name, replacing a volume of that name), which the
// containers' volumeMounts may name.
func statefulSetPodSpec(s *api.StatefulSet) *api.PodSpec {
	spec := &s.Spec.Template.Spec
	if spec.Hostname == "" && spec.Subdomain == "" && len(s.Spec.VolumeClaimTemplates) == 0 {
		return spec
	}
	spec = spec.DeepCopy()
	spec.Hostname, spec.Subdomain = "", ""
	if len(s.Spec.VolumeClaimTemplates) == 0 {
		return spec
	}
	claims := map[string]bool{}
	vols := make([]api.Volume, 0, len(s.Spec.VolumeClaimTemplates)+len(spec.Volumes))
	for _, t := range s.Spec.VolumeClaimTemplates {
		if claims[t.Name] {
			continue
		}
		claims[t.Name] = true
		vols = append(vols, api.Volume{Name: t.Name, VolumeSource: api.VolumeSource{PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: t.Name}}})
	}
	for _, v := range spec.Volumes {
		if !claims[v.Name] {
			vols = append(vols, v)
		}
	}
	spec.Volumes = vols
	return spec
}

func validateDaemonSet(d *api.DaemonSet, fs *fieldErrors) {
	checkMinReadySeconds(fs, d.Spec.MinReadySeconds)
	validateSelector(fs, d.Spec.Selector, &d.Spec.Template)
	validatePodSpec(fs, "spec.template.spec", &d.Spec.Template.Spec, api.RestartPolicyAlways)
}

func validateJobSpec(fs *fieldErrors, path string, s *api.JobSpec, checkSelector bool) {
	checkNonNegative(fs, path+".parallelism", s.Parallelism)
	checkNonNegative(fs, path+".completions", s.Completions)
	checkNonNegative(fs, path+".backoffLimit", s.BackoffLimit)
	validateJobDetails(fs, path, s)
	if checkSelector {
		if s.Selector == nil {
			fs.required(path+".selector", "")
		} else if sel, err := s.Selector.AsSelector(); err != nil {
			fs.invalid(path+".selector", "", err.Error())
		} else if !sel.Matches(s.Template.Labels) {
			fs.invalid(path+".template.metadata.labels", labelsString(s.Template.Labels), "`selector` does not match template `labels`")
		}
	}
	validatePodSpec(fs, path+".template.spec", &s.Template.Spec, api.RestartPolicyOnFailure, api.RestartPolicyNever)
}

func validateJob(j *api.Job, fs *fieldErrors) { validateJobSpec(fs, "spec", &j.Spec, true) }

func validateCronJob(c *api.CronJob, fs *fieldErrors) {
	if len(c.Name) > 52 {
		fs.invalid("metadata.name", c.Name, "must be no more than 52 characters")
	}
	if strings.TrimSpace(c.Spec.Schedule) == "" {
		fs.required("spec.schedule", "")
	} else if err, ok := api.ValidateCronSchedule(c.Spec.Schedule, c.Spec.TimeZone).(*api.CronScheduleError); ok {
		fs.invalid(err.Field, err.Value, err.Error())
	}
	switch c.Spec.ConcurrencyPolicy {
	case api.AllowConcurrent, api.ForbidConcurrent, api.ReplaceConcurrent:
	default:
		fs.add(FieldUnsupported, "spec.concurrencyPolicy", string(c.Spec.ConcurrencyPolicy), `supported values: "Allow", "Forbid", "Replace"`)
	}
	validateCronJobDetails(&c.Spec, fs)
	validateJobSpec(fs, "spec.jobTemplate.spec", &c.Spec.JobTemplate.Spec, false)
}

func validateService(s *api.Service, fs *fieldErrors) {
	switch s.Spec.Type {
	case api.ServiceTypeClusterIP, api.ServiceTypeNodePort, api.ServiceTypeLoadBalancer, api.ServiceTypeExternalName:
	default:
		fs.add(FieldUnsupported, "spec.type", string(s.Spec.Type), `supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"`)
	}
	if s.Spec.Type != api.ServiceTypeExternalName && len(s.Spec.Ports) == 0 && s.Spec.ClusterIP != api.ClusterIPNone {
		fs.required("spec.ports", "")
	}
	names := map[string]bool{}
	for i, p := range s.Spec.Ports {
		path := fmt.Sprintf("spec.ports[%d]", i)
		if len(s.Spec.Ports) > 1 && p.Name == "" {
			fs.required(path+".name", "")
		}
		if p.Name != "" {
			if names[p.Name] {
				fs.add(FieldDuplicate, path+".name", p.Name, "")
			}
			names[p.Name] = true
		}
		if p.Port < 1 || p.Port > 65535 {
			fs.invalid(path+".port", strconv.Itoa(int(p.Port)), "must be between 1 and 65535, inclusive")
		}
		switch p.Protocol {
		case api.ProtocolTCP, api.ProtocolUDP, api.ProtocolSCTP:
		default:
			fs.add(FieldUnsupported, path+".protocol", string(p.Protocol), `supported values: "SCTP", "TCP", "UDP"`)
		}
		validateServicePort(fs, path, &s.Spec.Ports[i])
	}
	checkLabels(fs, "spec.selector", s.Spec.Selector)
}

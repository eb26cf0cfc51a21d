package cluster_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/cluster/clustertest"
)

// The rules of kube-apiserver's validation that ctrlkit lacked (issue 28,
// item 6), each with the field path, type and message kube-apiserver
// reports. Cases ported from
// k8s.io/apimachinery/pkg/util/validation/validation_test.go
// (TestIsConfigMapKey, TestIsValidPortName) and
// k8s.io/kubernetes/pkg/apis/core/validation/validation_test.go
// (TestValidateConfigMap, TestValidateSecret, TestValidateAnnotations,
// TestValidateContainerPorts, TestValidateEnv, TestValidateVolumeMounts,
// TestValidateResourceRequirements, TestValidateVolumes),
// k8s.io/kubernetes/pkg/apis/apps/validation/validation_test.go
// (TestValidateDeployment) and
// k8s.io/kubernetes/pkg/apis/batch/validation/validation_test.go
// (TestValidateJob, TestValidateCronJob).
func TestValidationPorted(t *testing.T) {
	ctx := context.Background()
	configMap := func(data map[string]string, binary map[string][]byte) func(c *cluster.Cluster) error {
		return func(c *cluster.Cluster) error {
			_, err := c.ConfigMaps().Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm"}, Data: data, BinaryData: binary})
			return err
		}
	}
	secret := func(typ string, data map[string][]byte, mutate ...func(*api.Secret)) func(c *cluster.Cluster) error {
		return func(c *cluster.Cluster) error {
			s := &api.Secret{ObjectMeta: api.ObjectMeta{Name: "s"}, Type: api.SecretType(typ), Data: data}
			for _, m := range mutate {
				m(s)
			}
			_, err := c.Secrets().Create(ctx, s)
			return err
		}
	}
	pod := func(mutate func(p *api.Pod)) func(c *cluster.Cluster) error {
		return func(c *cluster.Cluster) error {
			p := clustertest.Pod("default", "p", nil)
			mutate(p)
			_, err := c.Pods().Create(ctx, p)
			return err
		}
	}
	container := func(mutate func(c *api.Container)) func(c *cluster.Cluster) error {
		return pod(func(p *api.Pod) { mutate(&p.Spec.Containers[0]) })
	}
	resources := func(requests, limits map[string]string) func(c *cluster.Cluster) error {
		list := func(m map[string]string) api.ResourceList {
			if m == nil {
				return nil
			}
			l := api.ResourceList{}
			for k, v := range m {
				l[api.ResourceName(k)] = api.MustParse(v)
			}
			return l
		}
		return container(func(c *api.Container) {
			c.Resources = api.ResourceRequirements{Requests: list(requests), Limits: list(limits)}
		})
	}
	service := func(port api.ServicePort) func(c *cluster.Cluster) error {
		return func(c *cluster.Cluster) error {
			_, err := c.Services().Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Name: "web"}, Spec: api.ServiceSpec{Ports: []api.ServicePort{port}}})
			return err
		}
	}
	deploy := func(mutate func(d *api.DeploymentSpec)) func(c *cluster.Cluster) error {
		return func(c *cluster.Cluster) error {
			d := clustertest.Deployment("default", "d")
			mutate(&d.Spec)
			_, err := c.Deployments().Create(ctx, d)
			return err
		}
	}
	job := func(mutate func(j *api.JobSpec)) func(c *cluster.Cluster) error {
		return func(c *cluster.Cluster) error {
			j := &api.Job{ObjectMeta: api.ObjectMeta{Name: "j"}, Spec: api.JobSpec{Template: podTemplate(nil, api.RestartPolicyNever)}}
			mutate(&j.Spec)
			_, err := c.Jobs().Create(ctx, j)
			return err
		}
	}
	cron := func(mutate func(s *api.CronJobSpec)) func(c *cluster.Cluster) error {
		return func(c *cluster.Cluster) error {
			cj := &api.CronJob{ObjectMeta: api.ObjectMeta{Name: "c"}, Spec: api.CronJobSpec{Schedule: "* * * * *",
				JobTemplate: api.JobTemplateSpec{Spec: api.JobSpec{Template: podTemplate(nil, api.RestartPolicyNever)}}}}
			mutate(&cj.Spec)
			_, err := c.CronJobs().Create(ctx, cj)
			return err
		}
	}
	bogus := api.CompletionMode("Sometimes")
	one := map[string][]byte{"k": []byte("v")}
	cases := []struct {
		name    string
		create  func(c *cluster.Cluster) error
		path    string
		typ     cluster.FieldErrorType
		message string // a part of the error's text
	}{
		// IsConfigMapKey, through ValidateConfigMap and ValidateSecret.
		{"ConfigMapKeyPathTraversal", configMap(map[string]string{"../etc/passwd": "x"}, nil), "data[../etc/passwd]", cluster.FieldInvalid,
			`data[../etc/passwd]: Invalid value: "../etc/passwd": a valid config key must consist of alphanumeric characters, '-', '_' or '.'`},
		{"ConfigMapKeySlash", configMap(map[string]string{"a/b": "x"}, nil), "data[a/b]", cluster.FieldInvalid, "regex used for validation is '[-._a-zA-Z0-9]+'"},
		{"ConfigMapKeySpace", configMap(map[string]string{"a b": "x"}, nil), "data[a b]", cluster.FieldInvalid, ""},
		{"ConfigMapKeyEmpty", configMap(map[string]string{"": "x"}, nil), "data[]", cluster.FieldInvalid, ""},
		{"ConfigMapKeyDot", configMap(map[string]string{".": "x"}, nil), "data[.]", cluster.FieldInvalid, "must not be '.'"},
		{"ConfigMapKeyDotDot", configMap(map[string]string{"..": "x"}, nil), "data[..]", cluster.FieldInvalid, "must not be '..'"},
		{"ConfigMapKeyDotDotPrefix", configMap(map[string]string{"..a": "x"}, nil), "data[..a]", cluster.FieldInvalid, "must not start with '..'"},
		{"ConfigMapKeyTooLong", configMap(map[string]string{strings.Repeat("a", 254): "x"}, nil), "data[" + strings.Repeat("a", 254) + "]", cluster.FieldInvalid, "must be no more than 253 characters"},
		{"ConfigMapBinaryKey", configMap(nil, map[string][]byte{"a:b": nil}), "binaryData[a:b]", cluster.FieldInvalid, ""},
		{"ConfigMapKeyInBoth", configMap(map[string]string{"k": "x"}, map[string][]byte{"k": nil}), "data[k]", cluster.FieldInvalid, "duplicate of key present in binaryData"},
		{"ConfigMapTooLarge", configMap(map[string]string{"a": strings.Repeat("x", 1<<19), "b": strings.Repeat("x", 1<<19)}, map[string][]byte{"c": {1}}),
			"", cluster.FieldTooLong, "must have at most 1048576 bytes"},
		{"SecretKey", secret("Opaque", map[string][]byte{"../x": nil}), "data[../x]", cluster.FieldInvalid, "a valid config key"},
		{"SecretStringDataKey", secret("Opaque", nil, func(s *api.Secret) { s.StringData = map[string]string{"a b": "x"} }), "stringData[a b]", cluster.FieldInvalid, ""},
		{"SecretTooLarge", secret("Opaque", map[string][]byte{"a": make([]byte, 1<<20+1)}), "data", cluster.FieldTooLong, "must have at most 1048576 bytes"},
		{"SecretTLSCert", secret("kubernetes.io/tls", map[string][]byte{"tls.key": nil}), "data[tls.crt]", cluster.FieldRequired, ""},
		{"SecretTLSKey", secret("kubernetes.io/tls", map[string][]byte{"tls.crt": nil}), "data[tls.key]", cluster.FieldRequired, ""},
		{"SecretBasicAuth", secret("kubernetes.io/basic-auth", one), "data[username]", cluster.FieldRequired, ""},
		{"SecretSSHAuth", secret("kubernetes.io/ssh-auth", one), "data[ssh-privatekey]", cluster.FieldRequired, ""},
		{"SecretDockerConfigJSON", secret("kubernetes.io/dockerconfigjson", map[string][]byte{".dockerconfigjson": []byte("{")}), "data[.dockerconfigjson]", cluster.FieldInvalid, ""},
		{"SecretDockercfgRequired", secret("kubernetes.io/dockercfg", one), "data[.dockercfg]", cluster.FieldRequired, ""},
		{"SecretServiceAccountToken", secret("kubernetes.io/service-account-token", one), "metadata.annotations[kubernetes.io/service-account.name]", cluster.FieldRequired, ""},
		// ValidateAnnotations: 256 KiB in all.
		{"AnnotationsTooLarge", pod(func(p *api.Pod) { p.Annotations = map[string]string{"a": strings.Repeat("x", 256<<10)} }),
			"metadata.annotations", cluster.FieldTooLong, "must have at most 262144 bytes"},
		// ValidateResourceRequirements.
		{"NegativeRequest", resources(map[string]string{"cpu": "-1"}, nil), "spec.containers[0].resources.requests[cpu]", cluster.FieldInvalid,
			`spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0`},
		{"NegativeLimit", resources(nil, map[string]string{"memory": "-1Mi"}), "spec.containers[0].resources.limits[memory]", cluster.FieldInvalid, "must be greater than or equal to 0"},
		{"RequestAboveLimit", resources(map[string]string{"cpu": "2"}, map[string]string{"cpu": "1"}), "spec.containers[0].resources.requests[cpu]", cluster.FieldInvalid,
			`Invalid value: "2": must be less than or equal to cpu limit of 1`},
		{"ResourceNameNotStandard", resources(map[string]string{"gpu": "1"}, nil), "spec.containers[0].resources.requests[gpu]", cluster.FieldInvalid, "must be a standard resource for containers"},
		{"ResourceNameQualified", resources(map[string]string{"example.com/Bad_": "1"}, nil), "spec.containers[0].resources.requests[example.com/Bad_]", cluster.FieldInvalid, ""},
		// validateContainerPorts.
		{"PortNameTooLong", container(func(c *api.Container) { c.Ports = []api.ContainerPort{{Name: "abcdefghijklmnop", ContainerPort: 80}} }),
			"spec.containers[0].ports[0].name", cluster.FieldInvalid, "must be no more than 15 characters"},
		{"PortNameUpper", container(func(c *api.Container) { c.Ports = []api.ContainerPort{{Name: "Http", ContainerPort: 80}} }),
			"spec.containers[0].ports[0].name", cluster.FieldInvalid, "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"},
		{"PortNameDigits", container(func(c *api.Container) { c.Ports = []api.ContainerPort{{Name: "123", ContainerPort: 80}} }),
			"spec.containers[0].ports[0].name", cluster.FieldInvalid, "must contain at least one letter (a-z)"},
		{"PortNameHyphens", container(func(c *api.Container) { c.Ports = []api.ContainerPort{{Name: "a--b", ContainerPort: 80}} }),
			"spec.containers[0].ports[0].name", cluster.FieldInvalid, "must not contain consecutive hyphens"},
		{"PortNameEdgeHyphen", container(func(c *api.Container) { c.Ports = []api.ContainerPort{{Name: "-ab", ContainerPort: 80}} }),
			"spec.containers[0].ports[0].name", cluster.FieldInvalid, "must not begin or end with a hyphen"},
		{"PortNamesUnique", container(func(c *api.Container) {
			c.Ports = []api.ContainerPort{{Name: "http", ContainerPort: 80}, {Name: "http", ContainerPort: 81}}
		}), "spec.containers[0].ports[1].name", cluster.FieldDuplicate, ""},
		{"HostPort", container(func(c *api.Container) { c.Ports = []api.ContainerPort{{ContainerPort: 80, HostPort: 65536}} }),
			"spec.containers[0].ports[0].hostPort", cluster.FieldInvalid, "must be between 1 and 65535, inclusive"},
		{"PortProtocol", container(func(c *api.Container) { c.Ports = []api.ContainerPort{{ContainerPort: 80, Protocol: "HTTP"}} }),
			"spec.containers[0].ports[0].protocol", cluster.FieldUnsupported, ""},
		// ValidateEnv.
		{"EnvNameRequired", container(func(c *api.Container) { c.Env = []api.EnvVar{{Value: "x"}} }), "spec.containers[0].env[0].name", cluster.FieldRequired, ""},
		{"EnvNameEquals", container(func(c *api.Container) { c.Env = []api.EnvVar{{Name: "A=B"}} }), "spec.containers[0].env[0].name", cluster.FieldInvalid,
			"a valid environment variable name must consist only of printable ASCII characters other than '='"},
		{"EnvNameControl", container(func(c *api.Container) { c.Env = []api.EnvVar{{Name: "A\nB"}} }), "spec.containers[0].env[0].name", cluster.FieldInvalid, ""},
		// ValidateVolumeMounts, validateVolumes.
		{"VolumeMountNotFound", container(func(c *api.Container) { c.VolumeMounts = []api.VolumeMount{{Name: "v", MountPath: "/v"}} }),
			"spec.containers[0].volumeMounts[0].name", cluster.FieldNotFound, `Not found: "v"`},
		{"VolumeMountPathRequired", pod(func(p *api.Pod) {
			p.Spec.Volumes = []api.Volume{{Name: "v"}}
			p.Spec.Containers[0].VolumeMounts = []api.VolumeMount{{Name: "v"}}
		}), "spec.containers[0].volumeMounts[0].mountPath", cluster.FieldRequired, ""},
		{"VolumeMountPathUnique", pod(func(p *api.Pod) {
			p.Spec.Volumes = []api.Volume{{Name: "v"}, {Name: "w"}}
			p.Spec.Containers[0].VolumeMounts = []api.VolumeMount{{Name: "v", MountPath: "/d"}, {Name: "w", MountPath: "/d"}}
		}), "spec.containers[0].volumeMounts[1].mountPath", cluster.FieldInvalid, "must be unique"},
		{"VolumeName", pod(func(p *api.Pod) { p.Spec.Volumes = []api.Volume{{Name: "Data"}} }), "spec.volumes[0].name", cluster.FieldInvalid, ""},
		{"VolumeNameRequired", pod(func(p *api.Pod) { p.Spec.Volumes = []api.Volume{{}} }), "spec.volumes[0].name", cluster.FieldRequired, ""},
		{"VolumeNamesUnique", pod(func(p *api.Pod) { p.Spec.Volumes = []api.Volume{{Name: "v"}, {Name: "v"}} }), "spec.volumes[1].name", cluster.FieldDuplicate, ""},
		// Policies and pod fields.
		{"ImagePullPolicy", container(func(c *api.Container) { c.ImagePullPolicy = "Sometimes" }), "spec.containers[0].imagePullPolicy", cluster.FieldUnsupported, ""},
		{"TerminationMessagePolicy", container(func(c *api.Container) { c.TerminationMessagePolicy = "Log" }), "spec.containers[0].terminationMessagePolicy", cluster.FieldUnsupported, ""},
		{"ActiveDeadlineSeconds", pod(func(p *api.Pod) { zero := int64(0); p.Spec.ActiveDeadlineSeconds = &zero }), "spec.activeDeadlineSeconds", cluster.FieldInvalid, ""},
		{"DNSPolicy", pod(func(p *api.Pod) { p.Spec.DNSPolicy = "Google" }), "spec.dnsPolicy", cluster.FieldUnsupported, ""},
		{"ServiceAccountName", pod(func(p *api.Pod) { p.Spec.ServiceAccountName = "Bad_SA" }), "spec.serviceAccountName", cluster.FieldInvalid, ""},
		// ValidateService's ports.
		{"ServicePortName", service(api.ServicePort{Name: "HTTP", Port: 80}), "spec.ports[0].name", cluster.FieldInvalid, ""},
		{"ServiceNodePort", service(api.ServicePort{Port: 80, NodePort: 70000}), "spec.ports[0].nodePort", cluster.FieldInvalid, ""},
		{"ServiceTargetPort", service(api.ServicePort{Port: 80, TargetPort: api.FromInt32(70000)}), "spec.ports[0].targetPort", cluster.FieldInvalid, ""},
		{"ServiceTargetPortName", service(api.ServicePort{Port: 80, TargetPort: api.FromString("Web_")}), "spec.ports[0].targetPort", cluster.FieldInvalid, ""},
		// apps/validation: ValidateDeploymentSpec.
		{"DeploymentMinReadySeconds", deploy(func(d *api.DeploymentSpec) { d.MinReadySeconds = -1 }), "spec.minReadySeconds", cluster.FieldInvalid, "must be greater than or equal to 0"},
		{"DeploymentRevisionHistoryLimit", deploy(func(d *api.DeploymentSpec) { d.RevisionHistoryLimit = ptr(int32(-1)) }), "spec.revisionHistoryLimit", cluster.FieldInvalid, ""},
		{"DeploymentProgressDeadline", deploy(func(d *api.DeploymentSpec) { d.MinReadySeconds = 10; d.ProgressDeadlineSeconds = ptr(int32(10)) }),
			"spec.progressDeadlineSeconds", cluster.FieldInvalid, "must be greater than minReadySeconds"},
		// batch/validation: validateJobSpec, validateCronJobSpec.
		{"JobActiveDeadlineSeconds", job(func(j *api.JobSpec) { j.ActiveDeadlineSeconds = ptr(int64(-1)) }), "spec.activeDeadlineSeconds", cluster.FieldInvalid, ""},
		{"JobTTLSecondsAfterFinished", job(func(j *api.JobSpec) { j.TTLSecondsAfterFinished = ptr(int32(-1)) }), "spec.ttlSecondsAfterFinished", cluster.FieldInvalid, ""},
		{"JobCompletionMode", job(func(j *api.JobSpec) { j.CompletionMode = &bogus }), "spec.completionMode", cluster.FieldUnsupported, ""},
		{"JobBackoffLimitPerIndexNeedsIndexed", job(func(j *api.JobSpec) { j.BackoffLimitPerIndex = ptr(int32(1)) }), "spec.backoffLimitPerIndex", cluster.FieldInvalid, "requires indexed completion mode"},
		// batch/validation: validatePodFailurePolicyRule (validation_test.go's TestValidateJob error cases).
		{"PodFailurePolicyRuleNeedsOne", job(func(j *api.JobSpec) {
			j.PodFailurePolicy = &api.PodFailurePolicy{Rules: []api.PodFailurePolicyRule{{Action: "FailJob"}}}
		}), "spec.podFailurePolicy.rules[0]", cluster.FieldInvalid, "specifying one of OnExitCodes and OnPodConditions is required"},
		{"PodFailurePolicyRuleNotBoth", job(func(j *api.JobSpec) {
			j.PodFailurePolicy = &api.PodFailurePolicy{Rules: []api.PodFailurePolicyRule{{Action: "FailJob",
				OnExitCodes:     &api.PodFailurePolicyOnExitCodesRequirement{Operator: "In", Values: []int32{1}},
				OnPodConditions: []api.PodFailurePolicyOnPodConditionsPattern{{Type: "DisruptionTarget", Status: api.ConditionTrue}}}}}
		}), "spec.podFailurePolicy.rules[0]", cluster.FieldInvalid, "specifying both OnExitCodes and OnPodConditions is not supported"},
		{"PodFailurePolicyOperator", job(func(j *api.JobSpec) {
			j.PodFailurePolicy = &api.PodFailurePolicy{Rules: []api.PodFailurePolicyRule{{Action: "FailJob",
				OnExitCodes: &api.PodFailurePolicyOnExitCodesRequirement{Operator: "Gt", Values: []int32{1}}}}}
		}), "spec.podFailurePolicy.rules[0].onExitCodes.operator", cluster.FieldUnsupported, `supported values: "In", "NotIn"`},
		{"PodFailurePolicyAction", job(func(j *api.JobSpec) {
			j.PodFailurePolicy = &api.PodFailurePolicy{Rules: []api.PodFailurePolicyRule{{Action: "UnknownAction",
				OnExitCodes: &api.PodFailurePolicyOnExitCodesRequirement{Operator: "In", Values: []int32{1}}}}}
		}), "spec.podFailurePolicy.rules[0].action", cluster.FieldUnsupported, `supported values: "Count", "FailIndex", "FailJob", "Ignore"`},
		{"PodFailurePolicyFailIndexNeedsPerIndex", job(func(j *api.JobSpec) {
			j.PodFailurePolicy = &api.PodFailurePolicy{Rules: []api.PodFailurePolicyRule{{Action: "FailIndex",
				OnExitCodes: &api.PodFailurePolicyOnExitCodesRequirement{Operator: "In", Values: []int32{1}}}}}
		}), "spec.podFailurePolicy.rules[0].action", cluster.FieldInvalid, "requires the backoffLimitPerIndex to be set"},
		{"CronJobStartingDeadline", cron(func(s *api.CronJobSpec) { s.StartingDeadlineSeconds = ptr(int64(-1)) }), "spec.startingDeadlineSeconds", cluster.FieldInvalid, ""},
		{"CronJobHistoryLimit", cron(func(s *api.CronJobSpec) { s.SuccessfulJobsHistoryLimit = ptr(int32(-1)) }), "spec.successfulJobsHistoryLimit", cluster.FieldInvalid, ""},
		{"CronJobFailedHistoryLimit", cron(func(s *api.CronJobSpec) { s.FailedJobsHistoryLimit = ptr(int32(-1)) }), "spec.failedJobsHistoryLimit", cluster.FieldInvalid, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newMemory(t, cluster.Options{})
			err := tc.create(c)
			var inv *cluster.InvalidError
			if !errors.As(err, &inv) || !errors.Is(err, cluster.ErrInvalid) {
				t.Fatalf("got %v, want an *InvalidError", err)
			}
			fe, ok := inv.Field(tc.path)
			if !ok {
				t.Fatalf("no error at %q: %v", tc.path, err)
			}
			if fe.Type != tc.typ {
				t.Errorf("%s: type %q, want %q (%v)", tc.path, fe.Type, tc.typ, err)
			}
			if !strings.Contains(err.Error(), tc.message) {
				t.Errorf("message %q does not contain %q", err, tc.message)
			}
		})
	}
}

// What kube-apiserver accepts stays accepted (the valid cases of the same
// upstream tests).
func TestValidationPortedAccepts(t *testing.T) {
	ctx := context.Background()
	c := newMemory(t, cluster.Options{})
	keys := map[string]string{"a": "", "A.b": "", "a-b_c.d": "", "-a": "", "_a": "", ".a": "", "a..b": "", "KEY_NAME": "", strings.Repeat("a", 253): ""}
	if _, err := c.ConfigMaps().Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm"}, Data: keys,
		BinaryData: map[string][]byte{"bin": {0, 1}}}); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 1<<20-1)
	if _, err := c.ConfigMaps().Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "big"}, Data: map[string]string{"a": big}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Secrets().Create(ctx, &api.Secret{ObjectMeta: api.ObjectMeta{Name: "tls"}, Type: "kubernetes.io/tls",
		Data: map[string][]byte{"tls.crt": []byte("c"), "tls.key": []byte("k")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Secrets().Create(ctx, &api.Secret{ObjectMeta: api.ObjectMeta{Name: "auth"}, Type: "kubernetes.io/basic-auth",
		StringData: map[string]string{"password": "p"}}); err != nil {
		t.Fatal(err)
	}
	p := clustertest.Pod("default", "p", nil)
	p.Spec.Volumes = []api.Volume{{Name: "data"}}
	ctr := &p.Spec.Containers[0]
	ctr.VolumeMounts = []api.VolumeMount{{Name: "data", MountPath: "/data"}}
	ctr.Env = []api.EnvVar{{Name: "a.b-c"}, {Name: "1X"}, {Name: "with space"}}
	ctr.Ports = []api.ContainerPort{{Name: "http", ContainerPort: 80}, {Name: "a-1", ContainerPort: 81, HostPort: 8081}}
	ctr.Resources = api.ResourceRequirements{
		Requests: api.ResourceList{"cpu": api.MustParse("500m"), "memory": api.MustParse("0"), "example.com/gpu": api.MustParse("1"), "hugepages-2Mi": api.MustParse("2Mi")},
		Limits:   api.ResourceList{"cpu": api.MustParse("500m")},
	}
	if _, err := c.Pods().Create(ctx, p); err != nil {
		t.Fatal(err)
	}
}

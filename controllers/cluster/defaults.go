package cluster

import (
	"math"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Defaults as kube-apiserver's SetDefaults_* functions (k8s.io/kubernetes
// pkg/apis/{core,apps,batch}/v1/defaults.go) and the DefaultTolerationSeconds
// admission plugin apply them.
const (
	// DefaultTerminationGracePeriodSeconds is a pod's default grace period.
	DefaultTerminationGracePeriodSeconds int64 = 30
	// DefaultSchedulerName is a pod's default spec.schedulerName.
	DefaultSchedulerName = "default-scheduler"
	// DefaultTolerationSeconds is how long a pod tolerates, by default, a
	// node that is not ready or unreachable.
	DefaultTolerationSeconds int64 = 300
)

func ptr[V any](v V) *V { return &v }

func defaultInt32(p **int32, v int32) {
	if *p == nil {
		*p = ptr(v)
	}
}

// defaultPodSpec applies the defaults of a pod's and a pod template's spec.
func defaultPodSpec(s *api.PodSpec) {
	if s.RestartPolicy == "" {
		s.RestartPolicy = api.RestartPolicyAlways
	}
	if s.TerminationGracePeriodSeconds == nil {
		s.TerminationGracePeriodSeconds = ptr(DefaultTerminationGracePeriodSeconds)
	}
	if s.DNSPolicy == "" {
		s.DNSPolicy = "ClusterFirst"
	}
	if s.SchedulerName == "" {
		s.SchedulerName = DefaultSchedulerName
	}
	if s.SecurityContext == nil {
		s.SecurityContext = &api.PodSecurityContext{}
	}
	defaultEphemeralContainers(s)
	for _, cs := range [][]api.Container{s.InitContainers, s.Containers} {
		for i := range cs {
			c := &cs[i]
			for j := range c.Ports {
				if c.Ports[j].Protocol == "" {
					c.Ports[j].Protocol = api.ProtocolTCP
				}
			}
			if c.TerminationMessagePath == "" {
				c.TerminationMessagePath = "/dev/termination-log"
			}
			if c.ImagePullPolicy == "" {
				c.ImagePullPolicy = defaultPullPolicy(c.Image)
			}
		}
	}
}

// defaultPullPolicy is Always for an image tagged :latest or untagged,
// IfNotPresent otherwise.
func defaultPullPolicy(image string) api.PullPolicy {
	name := image
	if i := lastIndexByte(name, '@'); i >= 0 {
		return api.PullIfNotPresent
	}
	if i := lastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if i := lastIndexByte(name, ':'); i >= 0 && name[i+1:] != "latest" {
		return api.PullIfNotPresent
	}
	return api.PullAlways
}

func lastIndexByte(s string, c byte) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// defaultTolerations adds the not-ready and unreachable NoExecute
// tolerations of DefaultTolerationSeconds unless the pod already tolerates
// those taints (the DefaultTolerationSeconds admission plugin).
func defaultTolerations(s *api.PodSpec) {
	for _, key := range []string{api.TaintNodeNotReady, api.TaintNodeUnreachable} {
		taint := api.Taint{Key: key, Effect: api.TaintEffectNoExecute}
		tolerated := false
		for i := range s.Tolerations {
			if s.Tolerations[i].ToleratesTaint(&taint) {
				tolerated = true
				break
			}
		}
		if !tolerated {
			s.Tolerations = append(s.Tolerations, api.Toleration{
				Key:               key,
				Operator:          api.TolerationOpExists,
				Effect:            api.TaintEffectNoExecute,
				TolerationSeconds: ptr(DefaultTolerationSeconds),
			})
		}
	}
}

// defaultPod applies the pod spec defaults and, to pods only (not to
// templates, as in Kubernetes), requests from limits.
func defaultPod(p *api.Pod) {
	defaultPodSpec(&p.Spec)
	api.DefaultRequestsFromLimits(&p.Spec)
}

func defaultDeployment(d *api.Deployment) {
	defaultInt32(&d.Spec.Replicas, 1)
	defaultInt32(&d.Spec.RevisionHistoryLimit, 10)
	defaultInt32(&d.Spec.ProgressDeadlineSeconds, 600)
	st := &d.Spec.Strategy
	if st.Type == "" {
		st.Type = api.RollingUpdateDeploymentStrategyType
	}
	if st.Type == api.RollingUpdateDeploymentStrategyType {
		if st.RollingUpdate == nil {
			st.RollingUpdate = &api.RollingUpdateDeployment{}
		}
		if st.RollingUpdate.MaxUnavailable == nil {
			st.RollingUpdate.MaxUnavailable = ptr(api.FromString("25%"))
		}
		if st.RollingUpdate.MaxSurge == nil {
			st.RollingUpdate.MaxSurge = ptr(api.FromString("25%"))
		}
	}
	defaultPodSpec(&d.Spec.Template.Spec)
}

func defaultReplicaSet(rs *api.ReplicaSet) {
	defaultInt32(&rs.Spec.Replicas, 1)
	defaultPodSpec(&rs.Spec.Template.Spec)
}

func defaultReplicationController(rc *api.ReplicationController) {
	defaultInt32(&rc.Spec.Replicas, 1)
	if rc.Spec.Template != nil {
		if len(rc.Spec.Selector) == 0 {
			rc.Spec.Selector = rc.Spec.Template.Labels
		}
		defaultPodSpec(&rc.Spec.Template.Spec)
	}
}

func defaultStatefulSet(s *api.StatefulSet) {
	defaultInt32(&s.Spec.Replicas, 1)
	if s.Spec.PodManagementPolicy == "" {
		s.Spec.PodManagementPolicy = api.OrderedReadyPodManagement
	}
	if s.Spec.UpdateStrategy.Type == "" {
		s.Spec.UpdateStrategy.Type = "RollingUpdate"
	}
	defaultInt32(&s.Spec.RevisionHistoryLimit, 10)
	defaultPodSpec(&s.Spec.Template.Spec)
}

func defaultDaemonSet(d *api.DaemonSet) {
	if d.Spec.UpdateStrategy.Type == "" {
		d.Spec.UpdateStrategy.Type = "RollingUpdate"
	}
	defaultInt32(&d.Spec.RevisionHistoryLimit, 10)
	defaultPodSpec(&d.Spec.Template.Spec)
}

func defaultJobSpec(s *api.JobSpec) {
	defaultInt32(&s.Parallelism, 1)
	if s.Completions == nil && s.Parallelism != nil && *s.Parallelism == 1 {
		s.Completions = ptr(int32(1))
	}
	if s.Completions == nil {
		s.Completions = ptr(int32(1))
	}
	if s.BackoffLimit == nil && s.BackoffLimitPerIndex != nil {
		s.BackoffLimit = ptr(int32(math.MaxInt32)) // kube: the per-index limit alone decides
	}
	defaultInt32(&s.BackoffLimit, 6)
	if s.CompletionMode == nil {
		s.CompletionMode = ptr(api.NonIndexedCompletion)
	}
	if s.Suspend == nil {
		s.Suspend = ptr(false)
	}
	defaultPodSpec(&s.Template.Spec)
}

func defaultJob(j *api.Job) { defaultJobSpec(&j.Spec) }

func defaultCronJob(c *api.CronJob) {
	if c.Spec.ConcurrencyPolicy == "" {
		c.Spec.ConcurrencyPolicy = api.AllowConcurrent
	}
	if c.Spec.Suspend == nil {
		c.Spec.Suspend = ptr(false)
	}
	defaultInt32(&c.Spec.SuccessfulJobsHistoryLimit, 3)
	defaultInt32(&c.Spec.FailedJobsHistoryLimit, 1)
	defaultPodSpec(&c.Spec.JobTemplate.Spec.Template.Spec)
}

func defaultService(s *api.Service) {
	if s.Spec.Type == "" {
		s.Spec.Type = api.ServiceTypeClusterIP
	}
	if s.Spec.SessionAffinity == "" {
		s.Spec.SessionAffinity = "None"
	}
	for i := range s.Spec.Ports {
		p := &s.Spec.Ports[i]
		if p.Protocol == "" {
			p.Protocol = api.ProtocolTCP
		}
		if p.TargetPort == (api.IntOrString{}) {
			p.TargetPort = api.FromInt32(p.Port)
		}
	}
}

func defaultNamespace(n *api.Namespace) {
	if n.Labels == nil {
		n.Labels = map[string]string{}
	}
	// The label kube-apiserver sets so that namespace selectors can
	// select by name.
	n.Labels[api.LabelMetadataName] = n.Name
}

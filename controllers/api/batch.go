package api

// Job runs pods until a number of them succeed (batch/v1).
type Job struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the desired job.
	Spec JobSpec `json:"spec,omitzero"`
	// Status is the observed job.
	Status JobStatus `json:"status,omitzero"`
}

// CompletionMode is NonIndexed (default) or Indexed.
type CompletionMode string

// The completion modes.
const (
	NonIndexedCompletion CompletionMode = "NonIndexed"
	IndexedCompletion    CompletionMode = "Indexed"
)

// JobSpec is the desired state of a job.
type JobSpec struct {
	// Parallelism is the most pods running at once; defaults to 1.
	Parallelism *int32 `json:"parallelism,omitempty"`
	// Completions is the number of successes needed; nil means any one
	// success (after which no new pods start).
	Completions *int32 `json:"completions,omitempty"`
	// ActiveDeadlineSeconds bounds the job's run time from its start.
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty"`
	// BackoffLimit is the number of retries before the job fails; defaults to 6.
	BackoffLimit *int32 `json:"backoffLimit,omitempty"`
	// Selector selects the pods; generated unless ManualSelector.
	Selector *LabelSelector `json:"selector,omitempty"`
	// ManualSelector lets the user set Selector.
	ManualSelector *bool `json:"manualSelector,omitempty"`
	// Template is the pod template; its restartPolicy is Never or OnFailure.
	Template PodTemplateSpec `json:"template,omitzero"`
	// TTLSecondsAfterFinished deletes the finished job after that delay.
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty"`
	// CompletionMode is NonIndexed or Indexed.
	CompletionMode *CompletionMode `json:"completionMode,omitempty"`
	// Suspend stops creating pods and deletes running ones.
	Suspend *bool `json:"suspend,omitempty"`
	// PodFailurePolicy decides what a failed pod means, before BackoffLimit.
	PodFailurePolicy *PodFailurePolicy `json:"podFailurePolicy,omitempty"`
	// SuccessPolicy declares an Indexed job succeeded early.
	SuccessPolicy *SuccessPolicy `json:"successPolicy,omitempty"`
	// BackoffLimitPerIndex is the retry limit of each index of an Indexed job.
	BackoffLimitPerIndex *int32 `json:"backoffLimitPerIndex,omitempty"`
	// MaxFailedIndexes fails the job once that many indexes failed.
	MaxFailedIndexes *int32 `json:"maxFailedIndexes,omitempty"`
	// PodReplacementPolicy is TerminatingOrFailed or Failed.
	PodReplacementPolicy *string `json:"podReplacementPolicy,omitempty"`
	// ManagedBy names the controller that owns the job.
	ManagedBy *string `json:"managedBy,omitempty"`
}

// PodFailurePolicy is an ordered list of rules matched against failed pods.
type PodFailurePolicy struct {
	// Rules are tried in order; the first match decides.
	Rules []PodFailurePolicyRule `json:"rules"`
}

// PodFailurePolicyRule maps failed pods to an action: FailJob, FailIndex,
// Ignore or Count.
type PodFailurePolicyRule struct {
	// Action to take.
	Action string `json:"action"`
	// OnExitCodes matches container exit codes.
	OnExitCodes *PodFailurePolicyOnExitCodesRequirement `json:"onExitCodes,omitempty"`
	// OnPodConditions matches pod conditions.
	OnPodConditions []PodFailurePolicyOnPodConditionsPattern `json:"onPodConditions,omitempty"`
}

// PodFailurePolicyOnExitCodesRequirement matches exit codes In or NotIn Values.
type PodFailurePolicyOnExitCodesRequirement struct {
	// ContainerName restricts the match to one container.
	ContainerName *string `json:"containerName,omitempty"`
	// Operator is In or NotIn.
	Operator string `json:"operator"`
	// Values are exit codes.
	Values []int32 `json:"values"`
}

// PodFailurePolicyOnPodConditionsPattern matches a pod condition.
type PodFailurePolicyOnPodConditionsPattern struct {
	// Type of the condition, e.g. DisruptionTarget.
	Type PodConditionType `json:"type"`
	// Status of the condition.
	Status ConditionStatus `json:"status"`
}

// SuccessPolicy lists rules any of which declares the job succeeded.
type SuccessPolicy struct {
	// Rules are ORed.
	Rules []SuccessPolicyRule `json:"rules"`
}

// SuccessPolicyRule is met when the given indexes or count succeeded.
type SuccessPolicyRule struct {
	// SucceededIndexes, e.g. "0-2,5".
	SucceededIndexes *string `json:"succeededIndexes,omitempty"`
	// SucceededCount of indexes.
	SucceededCount *int32 `json:"succeededCount,omitempty"`
}

// JobConditionType names a job condition.
type JobConditionType string

// The job conditions.
const (
	JobSuspended          JobConditionType = "Suspended"
	JobComplete           JobConditionType = "Complete"
	JobFailed             JobConditionType = "Failed"
	JobFailureTarget      JobConditionType = "FailureTarget"
	JobSuccessCriteriaMet JobConditionType = "SuccessCriteriaMet"
)

// JobStatus is the observed state of a job.
type JobStatus struct {
	// Conditions of the job.
	Conditions []JobCondition `json:"conditions,omitempty"`
	// StartTime is when the job controller started the job.
	StartTime *Time `json:"startTime,omitempty"`
	// CompletionTime is when the job completed.
	CompletionTime *Time `json:"completionTime,omitempty"`
	// Active pods are pending or running.
	Active int32 `json:"active,omitempty"`
	// Succeeded pods.
	Succeeded int32 `json:"succeeded,omitempty"`
	// Failed pods.
	Failed int32 `json:"failed,omitempty"`
	// Terminating pods are being deleted.
	Terminating *int32 `json:"terminating,omitempty"`
	// CompletedIndexes of an Indexed job, e.g. "1,3-5".
	CompletedIndexes string `json:"completedIndexes,omitempty"`
	// FailedIndexes of an Indexed job with BackoffLimitPerIndex.
	FailedIndexes *string `json:"failedIndexes,omitempty"`
	// UncountedTerminatedPods are finished pods not yet counted.
	UncountedTerminatedPods *UncountedTerminatedPods `json:"uncountedTerminatedPods,omitempty"`
	// Ready pods.
	Ready *int32 `json:"ready,omitempty"`
}

// UncountedTerminatedPods lists finished pods by UID until they are counted.
type UncountedTerminatedPods struct {
	// Succeeded pods.
	Succeeded []UID `json:"succeeded,omitempty"`
	// Failed pods.
	Failed []UID `json:"failed,omitempty"`
}

// JobCondition is one condition of a job.
type JobCondition struct {
	// Type of the condition.
	Type JobConditionType `json:"type"`
	// Status of the condition.
	Status ConditionStatus `json:"status"`
	// LastProbeTime is when the condition was last checked.
	LastProbeTime Time `json:"lastProbeTime,omitzero"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitzero"`
	// Reason is a CamelCase reason, e.g. "BackoffLimitExceeded".
	Reason string `json:"reason,omitempty"`
	// Message explains the condition.
	Message string `json:"message,omitempty"`
}

// CronJob creates jobs on a cron schedule (batch/v1; batch/v1beta1
// documents decode into it).
type CronJob struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the desired cron job.
	Spec CronJobSpec `json:"spec,omitzero"`
	// Status is the observed cron job.
	Status CronJobStatus `json:"status,omitzero"`
}

// ConcurrencyPolicy is Allow (default), Forbid or Replace.
type ConcurrencyPolicy string

// The concurrency policies.
const (
	AllowConcurrent   ConcurrencyPolicy = "Allow"
	ForbidConcurrent  ConcurrencyPolicy = "Forbid"
	ReplaceConcurrent ConcurrencyPolicy = "Replace"
)

// CronJobSpec is the desired state of a cron job.
type CronJobSpec struct {
	// Schedule in cron format, e.g. "*/1 * * * *".
	Schedule string `json:"schedule"`
	// TimeZone of the schedule; the controller's local zone when nil.
	TimeZone *string `json:"timeZone,omitempty"`
	// StartingDeadlineSeconds after a missed time within which a job may still start.
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty"`
	// ConcurrencyPolicy is Allow, Forbid or Replace.
	ConcurrencyPolicy ConcurrencyPolicy `json:"concurrencyPolicy,omitempty"`
	// Suspend stops future runs.
	Suspend *bool `json:"suspend,omitempty"`
	// JobTemplate is the template of created jobs.
	JobTemplate JobTemplateSpec `json:"jobTemplate"`
	// SuccessfulJobsHistoryLimit defaults to 3.
	SuccessfulJobsHistoryLimit *int32 `json:"successfulJobsHistoryLimit,omitempty"`
	// FailedJobsHistoryLimit defaults to 1.
	FailedJobsHistoryLimit *int32 `json:"failedJobsHistoryLimit,omitempty"`
}

// JobTemplateSpec is the template a cron job stamps jobs from.
type JobTemplateSpec struct {
	// ObjectMeta is the metadata of created jobs.
	ObjectMeta `json:"metadata,omitzero"`
	// Spec is the spec of created jobs.
	Spec JobSpec `json:"spec,omitzero"`
}

// CronJobStatus is the observed state of a cron job.
type CronJobStatus struct {
	// Active jobs.
	Active []ObjectReference `json:"active,omitempty"`
	// LastScheduleTime is when a job was last scheduled.
	LastScheduleTime *Time `json:"lastScheduleTime,omitempty"`
	// LastSuccessfulTime is when a job last completed.
	LastSuccessfulTime *Time `json:"lastSuccessfulTime,omitempty"`
}

package api

// SecurityContext holds container-level security attributes.
type SecurityContext struct {
	// Capabilities to add and drop.
	Capabilities *Capabilities `json:"capabilities,omitempty"`
	// Privileged runs the container privileged.
	Privileged *bool `json:"privileged,omitempty"`
	// RunAsUser is the UID of the process.
	RunAsUser *int64 `json:"runAsUser,omitempty"`
	// RunAsGroup is the GID of the process.
	RunAsGroup *int64 `json:"runAsGroup,omitempty"`
	// RunAsNonRoot requires a non-root UID.
	RunAsNonRoot *bool `json:"runAsNonRoot,omitempty"`
	// ReadOnlyRootFilesystem mounts the root filesystem read-only.
	ReadOnlyRootFilesystem *bool `json:"readOnlyRootFilesystem,omitempty"`
	// AllowPrivilegeEscalation controls no_new_privs.
	AllowPrivilegeEscalation *bool `json:"allowPrivilegeEscalation,omitempty"`
	// ProcMount is Default or Unmasked.
	ProcMount *string `json:"procMount,omitempty"`
	// SELinuxOptions label the container.
	SELinuxOptions *SELinuxOptions `json:"seLinuxOptions,omitempty"`
	// SeccompProfile of the container.
	SeccompProfile *SeccompProfile `json:"seccompProfile,omitempty"`
	// AppArmorProfile of the container.
	AppArmorProfile *AppArmorProfile `json:"appArmorProfile,omitempty"`
}

// SELinuxOptions are the SELinux labels of a pod or container.
type SELinuxOptions struct {
	// User label.
	User string `json:"user,omitempty"`
	// Role label.
	Role string `json:"role,omitempty"`
	// Type label.
	Type string `json:"type,omitempty"`
	// Level label.
	Level string `json:"level,omitempty"`
}

// SeccompProfile selects a seccomp profile: RuntimeDefault, Unconfined or Localhost.
type SeccompProfile struct {
	// Type of the profile.
	Type string `json:"type"`
	// LocalhostProfile is the profile's path on the node, for Localhost.
	LocalhostProfile *string `json:"localhostProfile,omitempty"`
}

// AppArmorProfile selects an AppArmor profile: RuntimeDefault, Unconfined or Localhost.
type AppArmorProfile struct {
	// Type of the profile.
	Type string `json:"type"`
	// LocalhostProfile is the profile's name on the node, for Localhost.
	LocalhostProfile *string `json:"localhostProfile,omitempty"`
}

// Capability is a POSIX capability name, e.g. "NET_ADMIN".
type Capability string

// Capabilities are POSIX capabilities to add and drop.
type Capabilities struct {
	// Add these capabilities.
	Add []Capability `json:"add,omitempty"`
	// Drop these capabilities.
	Drop []Capability `json:"drop,omitempty"`
}

// PodSecurityContext holds pod-level security attributes.
type PodSecurityContext struct {
	// RunAsUser is the UID of container processes.
	RunAsUser *int64 `json:"runAsUser,omitempty"`
	// RunAsGroup is the GID of container processes.
	RunAsGroup *int64 `json:"runAsGroup,omitempty"`
	// RunAsNonRoot requires a non-root UID.
	RunAsNonRoot *bool `json:"runAsNonRoot,omitempty"`
	// SupplementalGroups are added to every container process.
	SupplementalGroups []int64 `json:"supplementalGroups,omitempty"`
	// FSGroup owns mounted volumes.
	FSGroup *int64 `json:"fsGroup,omitempty"`
	// FSGroupChangePolicy is OnRootMismatch or Always.
	FSGroupChangePolicy *string `json:"fsGroupChangePolicy,omitempty"`
	// Sysctls set for the pod.
	Sysctls []Sysctl `json:"sysctls,omitempty"`
	// SELinuxOptions label the pod's containers.
	SELinuxOptions *SELinuxOptions `json:"seLinuxOptions,omitempty"`
	// SeccompProfile of the pod's containers.
	SeccompProfile *SeccompProfile `json:"seccompProfile,omitempty"`
	// AppArmorProfile of the pod's containers.
	AppArmorProfile *AppArmorProfile `json:"appArmorProfile,omitempty"`
}

// Sysctl is one kernel parameter.
type Sysctl struct {
	// Name of the parameter.
	Name string `json:"name"`
	// Value of the parameter.
	Value string `json:"value"`
}

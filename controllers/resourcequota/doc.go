// Package resourcequota is Kubernetes' resource quota system: the
// controller that keeps each ResourceQuota's status.used equal to what its
// namespace consumes (kube-controller-manager's resourcequota controller),
// and the admission plugin that refuses writes over status.hard and
// charges the accepted ones at once (kube-apiserver's ResourceQuota
// plugin).
//
// # What is counted
//
// Usage (kcm's quota evaluators, pkg/quota/v1/evaluator/core) charges
// every object of a counted resource (Counted: the built-in ones of
// Groups, and the namespaced kinds added with api.Register, by kcm's
// generic object count evaluator) to count/<resource> — or
// count/<resource>.<group>, e.g. count/deployments.apps,
// count/widgets.example.com — and services,
// replicationcontrollers, resourcequotas, secrets, configmaps and
// persistentvolumeclaims also to their bare names. A pod is charged
// "pods" and its requests and limits (cpu, memory, ephemeral-storage;
// bare cpu and memory are requests; requests.* and limits.*) only while
// QuotaPod holds: not terminal, and not stuck terminating past its grace
// period. Its requests and limits are api.PodRequests and api.PodLimits,
// the computation the scheduler shares (Kubernetes' rule: the app
// containers plus the sidecar init containers, at least the largest init
// container with the sidecars started before it, plus spec.overhead —
// on limits only where the pod has a limit). A container's requests are
// read as stored: the cluster defaults them from its limits when it
// stores the pod (api.DefaultRequestsFromLimits, kube-apiserver's
// defaulting), and Usage does not derive them again. A service is
// charged services.nodeports and
// services.loadbalancers; a claim requests.storage and the per class
// <class>.storageclass.storage.k8s.io/{requests.storage,
// persistentvolumeclaims}.
//
// A quota counts an object when it limits a resource the object is
// charged for and the object is within every scope: spec.scopes (each an
// Exists requirement) and spec.scopeSelector. Scopes apply to pods only:
// Terminating / NotTerminating (spec.activeDeadlineSeconds set or not),
// BestEffort / NotBestEffort (no container declares a cpu or memory
// request or limit), and PriorityClass with In, NotIn, Exists and
// DoesNotExist over spec.priorityClassName. Any other object is outside
// every scope, so a scoped quota counts only pods.
//
// # The controller
//
// A queue of quota keys, worked by Options.Workers workers. Created and
// deleted quotas are enqueued, and updated ones only when spec.hard
// changed — at a higher priority, as kcm prefers quotas missing usage.
// Every quota is recounted every Options.ResyncPeriod (5 minutes; kcm's
// full resync). Replenishment: the delete of an object of a counted
// resource, a pod that stops being charged (turns Succeeded or Failed),
// and a service or claim whose usage changed enqueue the quotas of the
// namespace that count the resource. A sync (Status, a pure function of
// the quota, the namespace's objects from the informers, and now)
// computes status.hard = spec.hard and status.used for every resource
// spec.hard names, and writes the status only when status.hard differs
// from spec.hard, either list is empty (the first sync), or the usage
// changed.
//
// # Admission
//
// Admission.Admit, an admission.ValidatingFunc for the server's
// validating chain (the in-process cluster's Options.Admission), looks at creates of counted resources and
// at updates of services and claims (their usage can grow). Check, its
// pure core (kube-apiserver's CheckRequest), finds the quotas of the
// namespace that count the object — by status.hard, what the controller
// has observed, so a raised limit applies once the controller has synced
// it — refuses a pod that does not declare a
// cpu or memory request or limit such a quota restricts ("failed quota:
// q: must specify requests.cpu for: c"), refuses when such a quota has no
// usage yet for a resource it restricts ("status unknown for quota: …"),
// and refuses a write that would take used over hard:
//
//	exceeded quota: pods-medium, requested: pods=1, used: pods=10, limited: pods=10
//
// Otherwise Admit writes the new status.used of each quota the write
// charges, with the quota's resourceVersion as precondition; a conflict
// re-reads the quotas and checks again. Admissions of one namespace are
// serialized, so that 100 concurrent creates against pods: 10 admit
// exactly 10. On an update the charge is the growth over the old object.
//
// The controller and the admission plugin depend on the client contract
// (package controllers/client: New and Admission.SetClient take a
// client.Client) and informers only; the in-process cluster is one
// implementation of that contract.
//
// # Left out
//
// Deliberately not done: the admission configuration's limitedResources
// (resources that need a covering quota), the CrossNamespacePodAffinity
// and VolumeAttributesClass scopes, hugepages and extended resources,
// pod resize, kcm's discovery of every API resource for count/* (Counted
// holds the namespaced kinds registered in controllers/api, read from
// the registry at each use), and the
// admission's batching of a namespace's requests into one quota
// write. As in Kubernetes, a charge whose write then fails (say, a taken
// name) stays until the controller's next recount, and a recount from a
// cache that has not yet seen the latest admitted objects may briefly
// undercount.
//
// # Wiring and Run
//
// Its informers are wired with reconcile.WatchEvents: a quota's add and
// delete enqueue it, a change of its spec.hard enqueues it ahead of the
// recounts; the delete of a counted object, or an update that lowers its
// usage, enqueues the quotas of its namespace that count its resource
// (kube-controller-manager's replenishment). Run waits for every
// registration to sync. A kind registered after New has no informer:
// with the default Options.Resources its objects are listed live at
// each recount of a quota that limits it (the spec.hard change, or the
// resync period), and their deletes do not replenish before then;
// until the first such recount admission refuses them as "status
// unknown", as kube-apiserver does for a resource new to a quota. Run returns once every worker has exited: ctx's
// error after a clean drain, or the error of a drain that did not end
// cleanly (it wraps reconcile.ErrShutdownTimeout or
// workqueue.ErrDrainAborted), never reduced to ctx's error.
package resourcequota

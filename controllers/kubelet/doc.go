// Package kubelet is a simulated kubelet: one Kubelet per node registers
// its Node, heartbeats, and runs the pods bound to it on a simulated
// container runtime, so that the control plane's controllers see pods
// go Pending → Running → Ready, complete, crash-loop, fail probes and
// terminate as on a real cluster, in testing/synctest virtual time.
//
// # Why controllers/kubelet
//
// The package lives beside the controllers rather than in a sim/ tree:
// the design's table puts the node side (scheduler, kubelet simulation,
// proxy) under controllers/, the controlplane package wires it with the
// others, and it obeys the same rules as a controller — it depends on the
// client contract (package controllers/client: the in-process cluster or
// a real API server) and its own informer only, reads through the
// informer, takes time from the time package and owns its goroutines in
// Run. What is simulated is
// the container runtime behind it, and that is what its Stages describe;
// a sim/ directory would hold this one package and separate it from the
// components it is tested with.
//
// # Usage
//
//	k, err := kubelet.New(c, kubelet.Options{NodeName: "node-1"})
//	go k.Run(ctx)     // registers node-1, heartbeats, runs its pods
//	k.Stop()          // the node dies: no status, no lease, no pod updates
//	k.Start()         // it comes back
//
// A Kubelet has an informer of its own over the pods selected on the
// server side by spec.nodeName=<node> (a kubelet is a process of its own
// on its node, and watches only its pods, as Kubernetes' kubelet does), not a
// shared informer of the controller manager's factory.
//
// # The loop
//
// The kubelet is wired as every controller under controllers/ is, with
// package reconcile: a reconcile.Controller with one worker and one
// request, the tick. Its informer is watched with reconcile.Watch
// through reconcile.Observe: the observer marks the pod's key dirty, the
// watch enqueues the tick. A tick does everything due at its instant —
// registration, the node status, the lease, the static pods, then the
// dirty pods and those whose containers have a transition due, in key
// order (so that pods admitted together get their addresses in a
// reproducible order) — and requeues itself (Result.RequeueAfter) for
// the next thing due. One request rather than one per pod keeps the
// simulated node one process with one clock: its pod IPs, its random
// durations and its writes come in a reproducible order. The first tick
// runs at once, without waiting for the informer to list the pods
// (reconcile.WatchOptions.NoSyncWait): the node registers first, as the
// kubelet does. A failed write is retried on the next tick, a second
// later. Stop makes the ticks do nothing; Start enqueues one that syncs
// every pod.
//
// When Run's ctx ends, a tick in flight finishes its writes (its ctx is
// cancelled only after reconcile.DefaultShutdownTimeout), and Run
// returns the controller's drain error: ctx.Err() after a clean drain,
// else an error that also wraps reconcile.ErrShutdownTimeout.
//
// # Node
//
// Run first registers the Node (tryRegisterWithAPIServer): labels
// kubernetes.io/hostname, os and arch plus Options.Labels, the
// registration taints, spec.podCIDR, and a status with capacity (cpu 4,
// memory 16Gi, ephemeral-storage 100Gi, pods 110 unless set), allocatable
// (capacity minus the default hard eviction thresholds), InternalIP and
// Hostname addresses, the kubelet port, nodeInfo, and the conditions
// MemoryPressure, DiskPressure, PIDPressure False and Ready True
// (KubeletReady, "kubelet is posting ready status"). An existing Node is
// taken over. The status is computed again every StatusUpdateFrequency
// (10 s, the kubelet's default nodeStatusUpdateFrequency) and posted when
// it changed — anything but the conditions' lastHeartbeatTime, e.g. a new
// image in status.images or a condition back from the Unknown the node
// lifecycle controller writes while the kubelet is silent — or when
// StatusReportFrequency (5 min, nodeStatusReportFrequency) has passed
// since the last post (tryUpdateNodeStatus): an idle node writes its Node
// every 5 min and its Lease every 10 s. Each post moves lastHeartbeatTime;
// lastTransitionTime moves only when a condition's status changes. The
// Lease kube-node-lease/<node> (holder the node, leaseDurationSeconds 40,
// owned by the Node) is renewed every quarter of its duration, 10 s. A
// deleted Node is not registered again, as the kubelet does not.
//
// status.images lists the images the node's containers started with, as
// a container runtime names them — a simulated repo digest
// "<repo>@sha256:<hex>" (also the containers' imageID) and the tagged
// ref (":latest" added when untagged) — with sizeBytes from
// sim.ctrlkit.io/image-size or ImageSize (a function of the ref): the
// largest NodeStatusMaxImages (50, nodeStatusMaxImages) first, as the
// kubelet's images setter sorts them. The node keeps at most 500
// images, forgetting the least recently used beyond (its image GC).
//
// # Pods
//
// A pod bound to the node is admitted when first seen: it gets a pod IP
// (the lowest free address of the node's spec.podCIDR, else
// Options.PodCIDR, from .2; a hostNetwork pod the node's IP), startTime,
// and its containers, which are simulated: init containers one after the
// other, each to completion, then all app containers. The kubelet writes
// the status (conditions PodScheduled, Initialized, ContainersReady,
// Ready with the kubelet's reasons and messages — ContainersNotInitialized,
// ContainersNotReady, ReadinessGatesNotReady, PodCompleted for a
// Succeeded pod (Initialized, ContainersReady, Ready) and PodFailed for a
// Failed one (ContainersReady, Ready), as the status manager writes them; container
// statuses with state waiting/running/terminated, lastState, ready,
// started, restartCount, exit code; the phase from kubelet_pods.go's
// getPhase) whenever it changes, with the cached pod's resourceVersion as
// precondition; a conflict waits for the newer pod to arrive.
//
// Restarts follow spec.restartPolicy: Always restarts every exit,
// OnFailure non-zero exits, Never none (an init container restarts on
// failure unless the policy is Never, when its failure fails the pod).
// A native sidecar — an init container with restartPolicy Always — lets
// the next init container start once it has started (its startup probe
// passed), keeps running and restarting whatever the pod's policy, counts
// for ContainersReady, and is stopped once the app containers are done.
// A restart waits the kubelet's crash-loop back-off: the first is
// immediate, each later one waits 10 s doubling up to 5 min after the
// exit (client-go's flowcontrol.Backoff as kuberuntime's doBackOff drives
// it), the container Waiting in CrashLoopBackOff meanwhile; a run of more
// than 10 min since the last restart resets it. activeDeadlineSeconds
// kills the pod: Failed, reason DeadlineExceeded.
//
// ConfigMaps and Secrets: a pod whose volume (configMap, secret, or a
// projected source of either) needs a missing object, or a missing key
// its items name, is not started until it exists, unless the reference is
// optional: its containers wait in ContainerCreating (PodInitializing
// behind init containers) and each mount attempt fails with a Warning
// FailedMount event as the volume manager words it (`MountVolume.SetUp
// failed for volume "v" : configmap "x" not found`; a projected volume's
// errors together, in brackets), attempts backing off 0.5 s doubling to
// 2 min 2 s. A container whose env or envFrom needs a missing object or
// key (makeEnvironmentVariables' rules and messages: `configmap "x" not
// found`, `couldn't find key k in ConfigMap ns/x`) waits in
// CreateContainerConfigError with a Warning Failed event ("Error: …")
// and is tried again every 10 s (the pod worker's back-off), at each
// start including restarts; the pod's other containers run. The kubelet
// reads these objects with a Get each (the managers' Get strategy), only
// for its pods and only while one waits.
//
// Probes come from the container's spec, with the API's defaults (period
// 10 s, successThreshold 1, failureThreshold 3): each probe runs from
// start+initialDelaySeconds every periodSeconds; a startup probe holds
// the other two back until it passes and kills the container after
// failureThreshold failures; liveness kills it after failureThreshold
// failures in a row (exit code 137, restarted per policy with the
// back-off); readiness turns the container ready after successThreshold
// successes and unready after failureThreshold failures. A container
// without a readiness probe is ready once started. What each probe
// answers is simulated (below).
//
// Deletion: when the pod's deletionTimestamp appears, containers stop
// within the deletion grace period (deletionGracePeriodSeconds, else
// terminationGracePeriodSeconds) — by default a container exits 0 at
// once on SIGTERM, as most processes do; one with a stop delay
// (sim.ctrlkit.io/stop-after) exits then, killed at the deadline with 137
// if the delay is longer; one with stop-after "grace" drains for the
// whole period and exits 0 — and no container starts again. Then the kubelet writes the final status and
// deletes the pod with grace period 0 and its uid as precondition, so it
// is gone from the API. A pod that disappears from the API (deleted with
// grace 0) is dropped at once.
//
// Events go to Options.Recorder, with the kubelet's reasons and
// messages, each about its container (fieldPath spec.containers{name} or
// spec.initContainers{name}, as kubectl describe prefixes them): Pulled
// ("Container image "x" already present on machine and can be accessed by
// the pod"), Created ("Container created") and Started ("Container
// started") on every start, Killing on a stop ("Stopping container x") or
// a probe kill ("Container x failed liveness probe, will be restarted"),
// Unhealthy (Warning) on every failed probe, BackOff (Warning, "Back-off
// restarting failed container x in pod name_namespace(uid)") when a
// restart waits.
//
// Ephemeral containers (spec.ephemeralContainers, added by kubectl debug
// through pods/ephemeralcontainers; ephemeral.go) start once the pod is
// Running and run until the pod stops (then Terminated, exit code 137):
// status.ephemeralContainerStatuses reports each (Waiting
// ContainerCreating, Running and started, Terminated), never restarted
// nor ready. Each records Pulled, Created and Started when it starts and
// Killing ("Stopping container x") when the pod stops it, about fieldPath
// spec.ephemeralContainers{name}, so kubectl describe pod lists them.
//
// # Static pods
//
// Every StaticPodPath manifest (files not starting with ".", read at
// start and every FileCheckFrequency, 20 s) runs as the kubelet's file
// source makes it: named <name>-<node>, namespace default unless set, its
// uid and kubernetes.io/config.hash from the manifest and node,
// config.source "file". It runs whatever the API server does. It is
// mirrored into the API as a mirror pod (annotation
// kubernetes.io/config.mirror = the hash, owned by the Node) carrying its
// status; a mirror pod that is deleted, stale or left without a static
// pod is deleted with grace 0, and re-created while its static pod runs —
// deleting the mirror never stops the static pod. A changed manifest
// replaces the pod; a removed one terminates it with its grace period,
// then its mirror is deleted.
//
// # The simulated runtime: stages and annotations
//
// What a container does is described, in the style of KWOK's stages, by
// Options.Stages: each Stage matches containers (by the pod's labels,
// annotations, restartPolicy, controller kind; the container's name; init,
// sidecar or app) and sets some of: Start (how long creating the container takes
// before its first run), Exit (runs forever, or exits after a Delay with
// a Code), Stop (how long it takes to exit once asked), and what its
// Readiness, Liveness and Startup probes answer as a function of the time
// since it started (ProbeOutcome). Every matching stage applies, in order;
// a Delay's jitter is drawn once per container from a source seeded by
// Options.Seed. ParseStages reads stages from a YAML or JSON stage file.
// DefaultStages make the demo manifests behave as on a
// real cluster: creation takes 1 s; init containers (not sidecars) exit
// 0 after 1 s; app containers of an OnFailure or Never pod (a Job's) exit
// 0 after 5 s; every other container runs until stopped; probes pass.
//
// A pod's annotations apply last; each may end in ".<container>" to apply
// to one container only (which wins over the pod-wide form):
//
//	sim.ctrlkit.io/exit-code: "1"     exit with 1 (after 1 s, unless run-for says otherwise)
//	sim.ctrlkit.io/run-for: 30s       exit after 30 s; "forever" never exits on its own
//	sim.ctrlkit.io/start-after: 5s    creating the container takes 5 s
//	sim.ctrlkit.io/stop-after: 2s     exit 2 s after SIGTERM (default: at once; "grace": at the grace period's end)
//	sim.ctrlkit.io/ready: never       the readiness probe never passes ("20s": passes from 20 s)
//	sim.ctrlkit.io/live-for: 30s      the liveness probe fails from 30 s after each start ("0s": at once)
//	sim.ctrlkit.io/started: never     the startup probe never passes ("20s": passes from 20 s)
//	sim.ctrlkit.io/image-size: 300Mi  the image's size in the node's status.images
//
// So a pod that fails: exit-code "1" with restartPolicy Never; one that
// crash-loops: exit-code "1" with Always or OnFailure; one that never
// becomes ready: ready "never" on a container with a readinessProbe; one
// killed by its liveness probe: live-for on a container with a
// livenessProbe. Probe annotations act only on probes the spec declares,
// as a kubelet only runs those. A malformed annotation is logged and
// ignored.
//
// # Stop and Start
//
// Stop makes the node die for the control plane: no node status, no
// lease, no pod status, no deletions (a pod deleted meanwhile stays
// Terminating, as on an unreachable node). The simulated containers keep
// their timelines: Start posts status and renews the lease at once and
// catches every pod up with what happened while the kubelet was silent.
//
// # Left out
//
// # Ports
//
// Ports (ports.go) is what the containers serve for port forwarding
// (the API server's pods/portforward, given it as its PortForwarder): a
// TCP port a container declares answers one HTTP request with a page
// "pod <namespace>/<name> container <container> port <port>", or, with
// the annotation sim.ctrlkit.io/port-<port>: echo, echoes what it
// receives; any other port is refused with the runtime's error text.
// Connections to one pod are bounded (DefaultMaxPortConnections).
//
// Deliberately not simulated: the events about image pulls and sandboxes
// (Pulling, FailedCreatePodSandBox); the PodReadyToStartContainers condition;
// the stop order of sidecars after app containers on deletion (all stop
// together); lifecycle hooks, in-place resize; image pulls and
// their errors (ErrImagePull) beyond the start delay; admission (a pod
// that does not fit the node is run anyway — the scheduler decides),
// eviction under pressure and pressure conditions other than False; the
// random delay the kubelet adds to its next 5 min status report after a
// change or a restart (calculateDelay); jitter in the back-off and
// probe timing; probes' timeoutSeconds and per-probe
// terminationGracePeriodSeconds; QoS classes; volumes other than the ConfigMap and Secret checks above,
// and the FailedMount "Unable to attach or mount volumes … timed out"
// event after 2 min; manifest URLs as a
// static pod source; the kube-node-lease namespace's creation by
// kube-apiserver (the kubelet creates it when missing).
package kubelet

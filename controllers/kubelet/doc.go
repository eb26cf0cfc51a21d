// Package kubelet is a simulated kubelet: one per node, it registers its
// Node, heartbeats, and runs the pods bound to it on a simulated container
// runtime steered by KWOK-style stages and pod annotations.
package kubelet

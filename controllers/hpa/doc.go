// Package hpa is kube-controller-manager's horizontal pod autoscaler
// (autoscaling/v2, resource metrics).
package hpa

// Package scheduler is a kube-scheduler for ctrlkit's control plane that
// explains itself.
package scheduler

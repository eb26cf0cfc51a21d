package controlplane

// PodCIDR is podCIDR, for the tests.
var PodCIDR = podCIDR

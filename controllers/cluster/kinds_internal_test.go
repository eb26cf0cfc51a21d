package cluster

import (
	"reflect"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// TestStrategiesAreOfRegisteredKinds checks that every strategy is a
// registered kind's (strategy ties each to its Go type), so that none is
// silently unused, and that the generated instances are the registry's.
func TestStrategiesAreOfRegisteredKinds(t *testing.T) {
	registered := map[reflect.Type]bool{}
	for _, k := range api.Registered() {
		registered[k.GoType()] = true
	}
	for typ := range strategies {
		if !registered[typ] {
			t.Errorf("strategy for %v, which is not a registered kind", typ)
		}
	}
	if len(kindInstances) != len(api.Kinds()) {
		t.Errorf("%d instances for %d built-in kinds", len(kindInstances), len(api.Kinds()))
	}
	for _, i := range kindInstances {
		if !registered[i.typ] {
			t.Errorf("instance for %v, which is not a registered kind", i.typ)
		}
	}
	if s := strategyOf[*api.Pod](); s.gracePeriod == nil {
		t.Error("pods opened without their strategy")
	}
	if s := strategyOf[*api.Lease](); s.validate != nil || s.gvk.Kind != "Lease" {
		t.Errorf("leases: got %+v, want newKind's generic strategy", s.gvk)
	}
}

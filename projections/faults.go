package projections

import (
	"context"

	"tempmail"
	"tempmail/projections/view"
)

// TenantFaults is a tenant's fault rules and their attempt log; empty
// when it never had one.
func (r *Reader) TenantFaults(ctx context.Context, tenantID string) (*FaultList, error) {
	var l FaultList
	err := r.get(ctx, tenantFaultsKey(tenantID), &l, "fault list")
	if tempmail.KindOf(err) == tempmail.NotFound {
		return &FaultList{}, nil
	}
	return &l, err
}

// ServiceFaults is the service's fault rules (the admin's) and their
// attempt log; empty when it never had one.
func (r *Reader) ServiceFaults(ctx context.Context) (*FaultList, error) {
	var l FaultList
	err := r.get(ctx, faultsKey, &l, "fault list")
	if tempmail.KindOf(err) == tempmail.NotFound {
		return &FaultList{}, nil
	}
	return &l, err
}

// ServiceFaultsTopic changes whenever the service's fault rules or their
// attempt log do (view.Hub).
func ServiceFaultsTopic() view.Topic { return view.EntryTopic(faultsKey) }

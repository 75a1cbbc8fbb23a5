package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// The admin's calls (docs/tenants.md "Tenants and keys"): tenants and their keys,
// made and revoked with the operator's API token or a key with the admin
// scope, in Key.

// Quota is what a tenant may use; 0 is unlimited.
type Quota struct {
	Inboxes        int64 `json:"inboxes"`
	MessagesPerDay int64 `json:"messages_per_day"`
	StorageBytes   int64 `json:"storage_bytes"`
	Webhooks       int64 `json:"webhooks"`
}

// Tenant is a team the service serves apart from the others.
type Tenant struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Quota     Quota     `json:"quota"`
	Domains   []string  `json:"domains"` // its private domains
	CreatedAt time.Time `json:"created_at"`
	// JSON is the service's answer as it came.
	JSON json.RawMessage `json:"-"`
}

// APIKey is a tenant's key as the service shows it; Key, the key itself,
// only in CreateKey's answer: the service keeps its hash alone.
type APIKey struct {
	ID        string     `json:"id"`
	TenantID  string     `json:"tenant_id"`
	Name      string     `json:"name"`
	Scopes    []string   `json:"scopes"`
	CreatedAt time.Time  `json:"created_at"`
	ExpiresAt *time.Time `json:"expires_at"`
	Key       string     `json:"key,omitempty"`
	// JSON is the service's answer as it came (with the key).
	JSON json.RawMessage `json:"-"`
}

// KeySpec is what a new key is: a name, its scopes (inboxes, read,
// webhooks, admin) and an optional expiry (zero: none).
type KeySpec struct {
	Name      string
	Scopes    []string
	ExpiresAt time.Time
}

// CreateTenant makes a tenant with the quota given, and domains (none or
// more) as its private domains.
func (c *Client) CreateTenant(ctx context.Context, name string, quota Quota, domains ...string) (*Tenant, error) {
	body, _ := json.Marshal(struct {
		Name    string   `json:"name"`
		Quota   Quota    `json:"quota"`
		Domains []string `json:"domains,omitempty"`
	}{name, quota, domains})
	var t Tenant
	raw, err := c.do(ctx, http.MethodPost, "/api/tenants/", nil, body, 0, &t)
	t.JSON = raw
	return &t, err
}

// DeleteTenant deletes a tenant: its keys are refused from then on, its
// inboxes end with their mail and its private domains are deactivated.
// Sent again after no answer, it finishes what the first left.
func (c *Client) DeleteTenant(ctx context.Context, id string) error {
	_, err := c.do(ctx, http.MethodDelete, "/api/tenants/"+url.PathEscape(id)+"/", nil, nil, 0, nil)
	return err
}

// Tenants lists the tenants, oldest first: those named name, or every one
// for "". It reads the list a page at a time, and stops at max tenants
// (the rest are not read): a list that long is not for a terminal.
func (c *Client) Tenants(ctx context.Context, name string, max int) ([]Tenant, error) {
	const page = 200 // the most the service gives at once
	var out []Tenant
	for len(out) < max {
		v := url.Values{"limit": {strconv.Itoa(page)}, "offset": {strconv.Itoa(len(out))}}
		if name != "" {
			v.Set("name", name)
		}
		var got []Tenant
		if _, err := c.do(ctx, http.MethodGet, "/api/tenants/", v, nil, 0, &got); err != nil {
			return nil, err
		}
		out = append(out, got...)
		if len(got) < page {
			break
		}
	}
	return out[:min(len(out), max)], nil
}

// CreateKey makes a key of the tenant whose id is tenantID; the answer's
// Key is the only time the key is shown.
func (c *Client) CreateKey(ctx context.Context, tenantID string, spec KeySpec) (*APIKey, error) {
	in := struct {
		Name      string     `json:"name"`
		Scopes    []string   `json:"scopes"`
		ExpiresAt *time.Time `json:"expires_at,omitempty"`
	}{Name: spec.Name, Scopes: spec.Scopes}
	if !spec.ExpiresAt.IsZero() {
		at := spec.ExpiresAt.UTC()
		in.ExpiresAt = &at
	}
	body, _ := json.Marshal(in)
	var k APIKey
	raw, err := c.do(ctx, http.MethodPost, "/api/tenants/"+url.PathEscape(tenantID)+"/keys/", nil, body, 0, &k)
	k.JSON = raw
	return &k, err
}

// RevokeKey revokes the key whose id is id: once it returns, every node
// of the service refuses the key.
func (c *Client) RevokeKey(ctx context.Context, id string) error {
	_, err := c.do(ctx, http.MethodDelete, "/api/keys/"+url.PathEscape(id)+"/", nil, nil, 0, nil)
	return err
}

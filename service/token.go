package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail/broker"
)

// The generated family A API token lives in NATS, so that every process of
// a cluster accepts the same one, and in the data directory for the
// operator to read.
const (
	secretsBucket = "SECRETS"
	apiTokenKey   = "api-token"
)

// tokenShare finds the family A API token, generating it on the first start
// of the first process.
type tokenShare struct {
	// Fresh is this process's candidate, drawn once for every attempt: the
	// process whose candidate the bucket holds made the token, even when
	// the answer to its store was lost.
	Fresh string
	// Dir is the data directory, which keeps a copy in the file api-token.
	Dir      string
	Replicas int
	// Flusher puts the token stored in NATS on disk (broker.Node.Flusher).
	Flusher *broker.Flusher
}

// Token returns the shared token, and keeps it in the data directory; made
// says this process generated it (it is Fresh and no copy was kept
// before). A token kept there by an earlier version becomes the shared
// one. It is idempotent: a caller may try again after an error.
func (ts tokenShare) Token(ctx context.Context, js jetstream.JetStream) (tok string, made bool, err error) {
	kv, err := broker.OpenKV(ctx, js, jetstream.KeyValueConfig{Bucket: secretsBucket,
		Description: "tempmail: the generated family A API token", History: 1,
		Storage: jetstream.FileStorage, Replicas: ts.Replicas})
	if err != nil {
		return "", false, err
	}
	path := ts.Path()
	local := ""
	if b, err := os.ReadFile(path); err == nil {
		local = strings.TrimSpace(string(b))
	}
	candidate := local
	if candidate == "" {
		candidate = ts.Fresh
	}
	// The bucket's Get reads from its leader (broker.OpenKV), so a token
	// another process stored first is seen by the Get after a failed Create.
	e, err := kv.Get(ctx, apiTokenKey)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		if _, err = kv.Create(ctx, apiTokenKey, []byte(candidate)); err == nil {
			err = ts.Flusher.Flush(ctx, "KV_"+secretsBucket)
		}
		if err == nil || errors.Is(err, jetstream.ErrKeyExists) {
			e, err = kv.Get(ctx, apiTokenKey)
		}
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			// Stored, by this try or another's, and not yet shown by a
			// leader just elected in a forming cluster.
			err = fmt.Errorf("%w: %w", broker.ErrNotYetShown, err)
		}
	}
	if err != nil {
		return "", false, fmt.Errorf("read or store the API token: %w", err)
	}
	tok = string(e.Value())
	if tok != local {
		if err := os.MkdirAll(ts.Dir, 0o755); err != nil {
			return "", false, err
		}
		// On disk before the caller logs it: a token the operator was
		// shown is the one the next start finds.
		if err := broker.WriteFileSynced(path, []byte(tok+"\n"), 0o600); err != nil {
			return "", false, fmt.Errorf("keep the API token in %s: %w", path, err)
		}
	}
	return tok, tok == ts.Fresh && local == "", nil
}

// Path is the file in the data directory that keeps the token.
func (ts tokenShare) Path() string { return filepath.Join(ts.Dir, "api-token") }

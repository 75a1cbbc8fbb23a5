package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tempmail/client"
)

// The tools of an inbox's SMTP fault rules (docs/failing-on-purpose.md):
// add_fault, list_faults, delete_fault and list_attempts, each one call of
// the token API's /inboxes/{token}/faults/ and /attempts/, so that an
// agent testing a mail sender can make the inbox refuse, delay or drop its
// deliveries and then read what each met.

// The bounds of a rule's arguments, as the service sets them.
const (
	maxFaultCount    = 1000 // times, every
	maxFaultPriority = 1000
	maxSeed          = 1<<53 - 1 // the largest whole number a JSON reader keeps exact
)

// faultTools adds the schemas of the fault tools to t.
func (t *Tools) faultTools() {
	t.outputs["add_fault"] = schemaFor[faultOut]()
	t.outputs["list_faults"] = schemaFor[faultsOut]()
	t.outputs["delete_fault"] = schemaFor[deletedFaultOut]()
	t.outputs["list_attempts"] = schemaFor[attemptsOut]()
	t.inputs["add_fault"] = input[addFaultIn](map[string]bound{
		"token": {max: 64}, "command": {max: 16, enum: client.FaultCommands}, "reply": {max: 220},
		"times": {number: true, max: maxFaultCount}, "every": {number: true, max: maxFaultCount},
		"fraction": {number: true, max: 1}, "seed": {number: true, max: maxSeed},
		"delay": {max: 16}, "from": {max: 254}, "greylist": {max: 16},
		"priority": {number: true, min: -maxFaultPriority, max: maxFaultPriority}, "expires_in": {max: 16},
	})
	t.inputs["list_faults"] = input[tokenIn](map[string]bound{"token": {max: 64}})
	t.inputs["list_attempts"] = input[tokenIn](map[string]bound{"token": {max: 64}})
	t.inputs["delete_fault"] = input[deleteFaultIn](map[string]bound{"token": {max: 64}, "rule_id": {max: 64}})
}

// addFaultTools adds the fault tools to s.
func (t *Tools) addFaultTools(s *mcp.Server, b binding) {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: jsonschema.Ptr(false)}
	mcp.AddTool(s, &mcp.Tool{Name: "add_fault", InputSchema: t.inputs["add_fault"], OutputSchema: t.outputs["add_fault"],
		Description: "Adds a fault rule to an inbox, to test how a mail sender copes with a receiving server that misbehaves: " +
			"SMTP deliveries to the inbox meet the rule's reply (a 4xx or 5xx, such as \"451 4.7.1 try again later\") " +
			"at command RCPT, or AFTER_DATA (after the message's data, in place of the 250 that would store it), or " +
			"with close a dropped connection (at DATA: in the middle of the message), or with greylist (at RCPT, no " +
			"reply needed) the first attempt of each client and sender refused until that long has passed. times, " +
			"every or fraction (with seed) say which attempts; delay (at most 60s) stalls the answer; from limits it " +
			"to senders (a pattern with *); higher priority rules are asked first; expires_in (default 1h). Durations " +
			"are written as \"5s\" or \"10m\". An inbox holds at most 10 rules. list_attempts shows what each " +
			"delivery met.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: jsonschema.Ptr(false), OpenWorldHint: jsonschema.Ptr(false)}},
		b.addFault)
	mcp.AddTool(s, &mcp.Tool{Name: "list_faults", InputSchema: t.inputs["list_faults"], OutputSchema: t.outputs["list_faults"],
		Annotations: readOnly,
		Description: "Lists an inbox's fault rules that have not expired, oldest first, with how many attempts each " +
			"matched and how many it acted on."}, b.listFaults)
	mcp.AddTool(s, &mcp.Tool{Name: "delete_fault", InputSchema: t.inputs["delete_fault"], OutputSchema: t.outputs["delete_fault"],
		Description: "Deletes one of an inbox's fault rules: deliveries meet it no more. Deleting a rule already gone " +
			"(deleted before, or expired) succeeds too, and says so with already_gone.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: jsonschema.Ptr(true), IdempotentHint: true,
			OpenWorldHint: jsonschema.Ptr(false)}}, b.deleteFault)
	mcp.AddTool(s, &mcp.Tool{Name: "list_attempts", InputSchema: t.inputs["list_attempts"], OutputSchema: t.outputs["list_attempts"],
		Annotations: readOnly,
		Description: "Lists the SMTP delivery attempts to an inbox that has or had fault rules, newest first (the " +
			"newest 50): when, from which client and sender, the command it ended at, the code and reply answered " +
			"(code 0: the connection was closed), the rule that acted, and the message stored (code 250, " +
			"AFTER_DATA)." + untrusted}, b.listAttempts)
}

type addFaultIn struct {
	Token    string  `json:"token" jsonschema:"the inbox's token, from create_inbox"`
	Command  string  `json:"command" jsonschema:"where the rule acts: RCPT, DATA (close or delay only) or AFTER_DATA"`
	Reply    string  `json:"reply,omitempty" jsonschema:"what the service answers instead: a 4xx or 5xx code, an optional enhanced code and a text, such as 451 4.7.1 try again later; required unless close or greylist"`
	Times    int     `json:"times,omitempty" jsonschema:"act on the first this many matching attempts only"`
	Every    int     `json:"every,omitempty" jsonschema:"act on every this-many-th matching attempt only"`
	Fraction float64 `json:"fraction,omitempty" jsonschema:"act on this share of the matching attempts only, more than 0 and at most 1"`
	Seed     *uint64 `json:"seed,omitempty" jsonschema:"with fraction: the same seed acts on the same attempts every run"`
	Delay    string  `json:"delay,omitempty" jsonschema:"wait this long before the answer, such as 5s; at most 60s"`
	Close    bool    `json:"close,omitempty" jsonschema:"close the connection instead of replying"`
	From     string  `json:"from,omitempty" jsonschema:"only senders (MAIL FROM) that match: an address, or a pattern where * stands for any run of characters"`
	Greylist string  `json:"greylist,omitempty" jsonschema:"at RCPT: refuse each client and sender's first attempt, and its retries until this long after it, such as 30s; at most 1h"`
	Priority int     `json:"priority,omitempty" jsonschema:"rules of a higher priority are asked first, -1000 to 1000"`
	// ExpiresIn is how long the rule lasts.
	ExpiresIn string `json:"expires_in,omitempty" jsonschema:"how long the rule lasts, such as 10m; default 1h, never past the inbox's end"`
}

// faultOut is a rule as the tools show it.
type faultOut struct {
	ID        string    `json:"id" jsonschema:"the rule's id, which delete_fault takes and list_attempts names"`
	Command   string    `json:"command"`
	Reply     string    `json:"reply,omitempty"`
	Times     int       `json:"times,omitempty"`
	Every     int       `json:"every,omitempty"`
	Fraction  float64   `json:"fraction,omitempty"`
	Seed      uint64    `json:"seed,omitempty"`
	Delay     string    `json:"delay,omitempty"`
	Close     bool      `json:"close,omitempty"`
	From      string    `json:"from,omitempty"`
	Greylist  string    `json:"greylist,omitempty"`
	Priority  int       `json:"priority,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"`
	Matched   uint64    `json:"matched" jsonschema:"how many attempts it matched so far"`
	Fired     uint64    `json:"fired" jsonschema:"how many times it acted so far"`
}

func toFault(r *client.FaultRule) faultOut {
	return faultOut{ID: r.ID, Command: r.Command, Reply: r.Reply, Times: r.Times, Every: r.Every, Fraction: r.Fraction,
		Seed: r.Seed, Delay: r.Delay, Close: r.Close, From: r.From, Greylist: r.Greylist, Priority: r.Priority,
		CreatedAt: r.CreatedAt.Time, ExpiresAt: r.ExpiresAt.Time, Matched: r.Matched, Fired: r.Fired}
}

// duration reads a duration argument: "" is none.
func duration(name, s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s must be a duration such as \"5s\" or \"10m\", not %q", name, cutName(s))
	}
	return d, nil
}

func (b binding) addFault(ctx context.Context, _ *mcp.CallToolRequest, in addFaultIn) (*mcp.CallToolResult, faultOut, error) {
	ctx, cancel := b.call(ctx)
	defer cancel()
	spec := client.FaultSpec{Command: in.Command, Reply: in.Reply, Times: in.Times, Every: in.Every, Fraction: in.Fraction,
		Seed: in.Seed, Close: in.Close, From: in.From, Priority: in.Priority}
	var err error
	for _, d := range []struct {
		name, v string
		to      *time.Duration
	}{{"delay", in.Delay, &spec.Delay}, {"greylist", in.Greylist, &spec.Greylist}, {"expires_in", in.ExpiresIn, &spec.ExpiresIn}} {
		if *d.to, err = duration(d.name, d.v); err != nil {
			return nil, faultOut{}, err
		}
	}
	r, err := b.c.AddFault(ctx, in.Token, spec)
	if err != nil {
		return nil, faultOut{}, toolError(err)
	}
	return result(toFault(r))
}

type faultsOut struct {
	Rules []faultOut `json:"rules"`
}

func (b binding) listFaults(ctx context.Context, _ *mcp.CallToolRequest, in tokenIn) (*mcp.CallToolResult, faultsOut, error) {
	ctx, cancel := b.call(ctx)
	defer cancel()
	list, _, err := b.c.Faults(ctx, in.Token)
	if err != nil {
		return nil, faultsOut{}, toolError(err)
	}
	out := faultsOut{Rules: make([]faultOut, 0, len(list))}
	for i := range list {
		out.Rules = append(out.Rules, toFault(&list[i]))
	}
	return result(out)
}

type deleteFaultIn struct {
	Token  string `json:"token" jsonschema:"the inbox's token, from create_inbox"`
	RuleID string `json:"rule_id" jsonschema:"the rule's id, from add_fault or list_faults"`
}

type deletedFaultOut struct {
	Deleted     bool `json:"deleted" jsonschema:"true: deliveries meet the rule no more"`
	AlreadyGone bool `json:"already_gone" jsonschema:"true when the inbox had no rule of that id: deleted before, expired, or never made"`
}

// deleteFault is idempotent, as its annotations say: deleting a rule
// already gone is done, and says so.
func (b binding) deleteFault(ctx context.Context, _ *mcp.CallToolRequest, in deleteFaultIn) (*mcp.CallToolResult, deletedFaultOut, error) {
	ctx, cancel := b.call(ctx)
	defer cancel()
	err := b.c.DeleteFault(ctx, in.Token, in.RuleID)
	if err != nil && !errors.Is(err, client.ErrNoFault) {
		return nil, deletedFaultOut{}, toolError(err)
	}
	return result(deletedFaultOut{Deleted: true, AlreadyGone: err != nil})
}

// attemptOut is an attempt as the tools show it: what the service writes
// null, left out.
type attemptOut struct {
	At        time.Time `json:"at" jsonschema:"when the attempt ended"`
	Client    string    `json:"client,omitempty" jsonschema:"the sending client's IP address"`
	From      string    `json:"from" jsonschema:"the sender, MAIL FROM"`
	Command   string    `json:"command" jsonschema:"the command it ended at: AFTER_DATA for a message stored"`
	Code      int       `json:"code" jsonschema:"the code answered: 250 for a message stored, 0 when the connection was closed"`
	Reply     string    `json:"reply,omitempty"`
	RuleID    string    `json:"rule_id,omitempty" jsonschema:"the rule that acted; absent for a message stored"`
	MessageID string    `json:"message_id,omitempty" jsonschema:"the message stored, which read_message takes"`
}

type attemptsOut struct {
	Attempts []attemptOut `json:"attempts"`
}

func (b binding) listAttempts(ctx context.Context, _ *mcp.CallToolRequest, in tokenIn) (*mcp.CallToolResult, attemptsOut, error) {
	ctx, cancel := b.call(ctx)
	defer cancel()
	list, _, err := b.c.Attempts(ctx, in.Token)
	if err != nil {
		return nil, attemptsOut{}, toolError(err)
	}
	out := attemptsOut{Attempts: make([]attemptOut, 0, len(list))}
	deref := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	for _, a := range list {
		out.Attempts = append(out.Attempts, attemptOut{At: a.At.Time, Client: deref(a.Client), From: a.From, Command: a.Command,
			Code: a.Code, Reply: a.Reply, RuleID: deref(a.RuleID), MessageID: deref(a.MessageID)})
	}
	return result(out)
}

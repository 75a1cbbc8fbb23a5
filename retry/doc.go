// Package retry is the service's one policy for trying again: a named
// schedule of waits for each kind of failure that passes (a publish left
// unanswered, a lost race, a failed write of the views, a webhook lane
// that is busy, a consumer to start again), and the wait itself, cut short when the caller's context
// ends. It decides nothing of what is worth another try: callers do.
package retry

// Package logs owns how tempmail writes its log: the slog handler that
// --log-format chooses for every line of the process, and the shape of the
// lines operators alert on that belong to no single package yet (a webhook
// delivery given up).
//
// Every package logs through the *slog.Logger it is handed; none builds its
// own handler or writes to stderr directly, so one flag changes every line.
//
// What a client can make happen once a request, such as a refused
// recipient, is counted by a metric and logged a few times only: a Limiter
// bounds the lines about each client and about all of them, and the next
// line written says how many were left out. One client's flood then costs
// the log a few lines, not one a request.
//
// No line may carry a secret: the API token, the read key, an inbox token
// (family C paths hold one, so requests are logged by route pattern, never
// by path) or a webhook secret. The one exception is the start-up line that
// hands a freshly generated API token to the operator.
package logs

package mailbox

// Usage is a tenant's use: the messages its inboxes hold that came on the
// UTC day of now, the bytes they hold, and the subscriptions to them.
type Usage struct {
	MessagesToday int64
	StorageBytes  int64
	Webhooks      int64
}

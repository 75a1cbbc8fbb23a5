package mailauth

// Result words of RFC 8601 section 2.7: what each check concluded.
const (
	Pass      = "pass"
	Fail      = "fail"
	SoftFail  = "softfail"
	Neutral   = "neutral"
	None      = "none"
	TempError = "temperror"
	PermError = "permerror"
	// Policy is DKIM's word (RFC 8601 section 2.7.1) for a signature the
	// verifier does not accept whatever its bytes say: one with l=.
	Policy = "policy"
)

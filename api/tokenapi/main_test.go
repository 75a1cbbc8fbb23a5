package tokenapi_test

import (
	"os"
	"testing"

	"tempmail/service/apitest"
)

// shared is the service the package's tests share where they need nothing
// of it but inboxes of their own (apitest.Shared).
var shared apitest.Shared

func TestMain(m *testing.M) { os.Exit(shared.Run(m)) }

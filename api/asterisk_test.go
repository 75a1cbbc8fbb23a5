package api_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// A request for "*" (OPTIONS *, RFC 9110 §9.3.7, or any method with it)
// names no path of any family: it is answered in the operational shape,
// never by a panic that drops the connection.
func TestAsteriskRequestsAreAnsweredNotPanickedOn(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	for _, method := range []string{"GET", "OPTIONS", "DELETE"} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(h.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := io.WriteString(conn, method+" * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s *: no answer: %v", method, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 500 || resp.StatusCode != http.StatusOK && string(body) != `{"error":"Not found"}`+"\n" && string(body) != `{"error":"Not found"}` {
			t.Errorf("%s *: %d %q", method, resp.StatusCode, body)
		}
	}
}

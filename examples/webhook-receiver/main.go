// Command webhook-receiver takes tempmail's outbound webhooks and checks
// their Standard Webhooks signature before it trusts them.
//
//	WEBHOOK_SECRET=whsec_... go run ./examples/webhook-receiver -addr 127.0.0.1:9000
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9000", "listen address")
	flag.Parse()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(os.Getenv("WEBHOOK_SECRET"), "whsec_"))
	if err != nil || len(key) == 0 {
		log.Fatal("set WEBHOOK_SECRET to the subscription's secret (whsec_...)")
	}
	http.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil || !verified(key, r.Header, body) {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		// Deliveries come at least once: webhook-id tells a retry apart.
		fmt.Printf("%s %s\n", r.Header.Get("webhook-id"), body)
		w.WriteHeader(http.StatusNoContent)
	})
	log.Fatal(http.ListenAndServe(*addr, nil))
}

// verified checks the signature over "<webhook-id>.<webhook-timestamp>.<body>"
// and that the timestamp is within five minutes, against replays.
func verified(key []byte, h http.Header, body []byte) bool {
	id, ts := h.Get("webhook-id"), h.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		if v, b64, _ := strings.Cut(sig, ","); v == "v1" {
			if got, err := base64.StdEncoding.DecodeString(b64); err == nil && hmac.Equal(got, want) {
				return true
			}
		}
	}
	return false
}

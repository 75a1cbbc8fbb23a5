package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"tempmail/config"
)

// healthcheck asks the service at --http-addr whether it is ready
// (GET /readyz) and answers with the exit status: 0 when it is, 1 when it
// is not or does not answer. It needs no shell or curl, so a container
// image without either can use it as its HEALTHCHECK.
func healthcheck(cfg config.Config, stdout, stderr io.Writer) int {
	url := "http://" + dialable(cfg.HTTPAddr) + "/readyz"
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		fmt.Fprintf(stderr, "tempmail healthcheck: %v\n", err)
		return 1
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "tempmail healthcheck: %s answered %d %s", url, resp.StatusCode, body)
		return 1
	}
	fmt.Fprintf(stdout, "%s", body)
	return 0
}

// dialable turns a listen address into one to connect to: a listener on
// every interface (0.0.0.0, ::, or no host) is reached on loopback.
func dialable(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	return net.JoinHostPort(host, port)
}

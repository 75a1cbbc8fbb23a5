package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/smtp"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"tempmail/eventually"
)

// TestBigAnswersCostBoundedMemory is issue 19's measure, on a `tempmail
// serve` process: 40 messages whose text and HTML bodies are 256 KiB of
// control characters (six bytes each in JSON) make family B's page of
// them a 125 MB answer, were it written whole. Eight clients ask for it at
// once, four of which never read a byte of the answer; the process's
// resident memory must grow by at most 128 MiB meanwhile. The non-readers
// are held until the readers are done, so each of them pins what it pins
// while the others run. What is measured is the child's memory, which
// other tests do not touch: it runs in parallel with them.
func TestBigAnswersCostBoundedMemory(t *testing.T) {
	t.Parallel()
	cmd, base, smtpAddr := runServeSMTP(t, t.TempDir())
	code, b := call(t, "POST", base+"/api/create-temp-email/", `{"email_name":"big"}`)
	if code != 201 {
		t.Fatalf("create the mailbox: %d %s", code, b)
	}
	const n = 40
	c, err := smtp.Dial(smtpAddr)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := sendOn(c, "big@tempmail.test", bigMessage(i)); err != nil {
			t.Fatal(err)
		}
	}
	_ = c.Quit()
	page := base + "/api/mailstore/mailbox/big/?limit=200"
	eventually.True(t, "the 40 messages listed", func() bool {
		resp, err := http.Get(page + "&offset=" + strconv.Itoa(n-1))
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.Header.Get("X-Total-Count") == strconv.Itoa(n)
	})

	pid := cmd.Process.Pid
	before := residentKiB(t, pid, "VmRSS")
	// The peak from here on: writing 5 to clear_refs resets VmHWM.
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		t.Fatalf("reset the peak: %v", err)
	}
	u, _ := url.Parse(page)
	var stalled []net.Conn
	for range 4 {
		conn, err := net.Dial("tcp", u.Host)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", u.RequestURI(), u.Host)
		stalled = append(stalled, conn) // never read
	}
	var wg sync.WaitGroup
	sizes := make([]int64, 4)
	for i := range 4 {
		wg.Go(func() {
			resp, err := http.Get(page)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			sizes[i], _ = io.Copy(io.Discard, bufio.NewReader(resp.Body))
		})
	}
	wg.Wait()
	peak := residentKiB(t, pid, "VmHWM")
	for _, c := range stalled {
		c.Close()
	}
	grew := (peak - before) >> 10
	t.Logf("RSS %d MiB before, peak %d MiB with 8 GETs of the page (4 never read): grew %d MiB; the readers got %v bytes",
		before>>10, peak>>10, grew, sizes)
	if grew > 128 {
		t.Errorf("RSS grew by %d MiB, want at most 128", grew)
	}
}

// bigMessage has a text and an HTML body of 256 KiB of \x01 each.
func bigMessage(n int) string {
	line := strings.Repeat("\x01", 998) + "\r\n"
	body := strings.Repeat(line, 256<<10/len(line))
	return "From: big@example.com\r\nTo: big@tempmail.test\r\nSubject: big " + strconv.Itoa(n) + "\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/alternative; boundary=\"B\"\r\n\r\n" +
		"--B\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n" + body +
		"--B\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n" + body + "--B--\r\n"
}

func sendOn(c *smtp.Client, to, msg string) error {
	if err := c.Mail("big@example.com"); err != nil {
		return err
	}
	if err := c.Rcpt(to); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, msg); err != nil {
		return err
	}
	return w.Close()
}

// residentKiB reads a memory figure of a process (VmRSS, VmHWM), in KiB.
func residentKiB(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

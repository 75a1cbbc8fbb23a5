package config

import (
	"errors"
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"time"
)

// The kinds of value flags take, read as every flag of the kind reads them.

func count(dst *int, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 1_000_000 {
		return errors.New("must be a whole number from 0 (unlimited) to 1000000")
	}
	*dst = n
	return nil
}

func hostPort(dst *string, v string) error {
	host, port, err := net.SplitHostPort(v)
	if err == nil {
		var p int
		p, err = strconv.Atoi(port)
		if err == nil && (p < 0 || p > 65535) {
			err = errors.New("port out of range")
		}
	}
	if err != nil || strings.ContainsAny(host, " /") {
		return errors.New("must be host:port, such as 127.0.0.1:8080 or :8080")
	}
	*dst = v
	return nil
}

// duration accepts Go durations (90s, 10m, 24h) and whole days (90d).
func duration(dst *time.Duration, v string) error {
	d, err := time.ParseDuration(v)
	if err != nil && strings.HasSuffix(v, "d") {
		var n int
		n, err = strconv.Atoi(strings.TrimSuffix(v, "d"))
		d = time.Duration(n) * 24 * time.Hour
	}
	if err != nil || d < time.Second || d > 100*365*24*time.Hour {
		return errors.New("must be a duration of at least 1s, such as 90s, 10m, 24h or 90d")
	}
	*dst = d
	return nil
}

// sizeUnits is how every size flag is written, for usages and errors.
const sizeUnits = "bytes, or a whole number with KB, MB or GB (powers of 1000) or KiB, MiB or GiB (powers of 1024)"

// ParseSize reads a size as the flags take it (byteSize), for the
// command line's own flags of sizes.
func ParseSize(v string) (int64, error) {
	n, err := byteSize(v)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size: %s", v, sizeUnits)
	}
	return n, nil
}

// byteSize reads a size: a whole number of bytes, with no unit or B, or
// with one of KB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of
// 1024), exactly so written. Anything else is refused rather than guessed
// at: 25mb and 25M could mean either.
func byteSize(v string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(v, u.suffix) {
			v, mult = strings.TrimSuffix(v, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return 0, errors.New("not a size")
	}
	return n * mult, nil
}

func isHostname(s string) bool {
	if len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if len(label) == 0 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}

// Rate is a number of things allowed per period: a bucket of N, refilled
// evenly over Per. The zero Rate allows everything.
type Rate struct {
	N   int
	Per time.Duration
}

// Unlimited reports whether r allows everything.
func (r Rate) Unlimited() bool { return r.N == 0 }

func (r Rate) String() string {
	if r.Unlimited() {
		return "0"
	}
	unit := map[time.Duration]string{time.Second: "s", time.Minute: "m", time.Hour: "h"}[r.Per]
	return strconv.Itoa(r.N) + "/" + unit
}

// ParseRate reads a Rate written N/s, N/m or N/h, or 0 for none.
func ParseRate(v string) (Rate, error) {
	v = strings.TrimSpace(v)
	if v == "0" {
		return Rate{}, nil
	}
	bad := errors.New("must be 0 (unlimited) or a count per second, minute or hour, such as 120/m, 5/s or 1000/h")
	n, unit, ok := strings.Cut(v, "/")
	per := map[string]time.Duration{"s": time.Second, "m": time.Minute, "h": time.Hour}[unit]
	count, err := strconv.Atoi(n)
	if !ok || per == 0 || err != nil || count < 1 || count > 1_000_000 {
		return Rate{}, bad
	}
	return Rate{N: count, Per: per}, nil
}

// ByteRate is a number of bytes allowed per period: a bucket of Bytes,
// refilled evenly over Per. The zero ByteRate allows everything.
type ByteRate struct {
	Bytes int64
	Per   time.Duration
}

// Unlimited reports whether r allows everything.
func (r ByteRate) Unlimited() bool { return r.Bytes == 0 }

// Rate is r as a Rate of bytes, for the limiters that count in whole
// units.
func (r ByteRate) Rate() Rate { return Rate{N: int(min(r.Bytes, math.MaxInt)), Per: r.Per} }

func (r ByteRate) String() string {
	if r.Unlimited() {
		return "0"
	}
	unit := map[time.Duration]string{time.Second: "s", time.Minute: "m", time.Hour: "h"}[r.Per]
	return sizeText(r.Bytes) + "/" + unit
}

// sizeText writes a size as byteSize reads it, in the largest power of
// 1024 that divides it.
func sizeText(n int64) string {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// ParseByteRate reads a ByteRate written <size>/s, /m or /h, the size as
// every size flag takes it (1GiB/h, 500MB/m), or 0 for none.
func ParseByteRate(v string) (ByteRate, error) {
	v = strings.TrimSpace(v)
	if v == "0" {
		return ByteRate{}, nil
	}
	bad := errors.New("must be 0 (unlimited) or a size per second, minute or hour, such as 1GiB/h or 50MiB/m, of at least 1MiB and at most 1TiB; sizes: " + sizeUnits)
	size, unit, ok := strings.Cut(v, "/")
	per := map[string]time.Duration{"s": time.Second, "m": time.Minute, "h": time.Hour}[unit]
	n, err := byteSize(size)
	if !ok || per == 0 || err != nil || n < 1<<20 || n > 1<<40 {
		return ByteRate{}, bad
	}
	return ByteRate{Bytes: n, Per: per}, nil
}

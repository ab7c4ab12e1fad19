package parse

import (
	"errors"
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
)

// MaxPid is the largest process id a record may give: pid_t is a signed
// 32-bit integer on Linux and macOS, and Windows' ids stay below it. A
// larger one is no process id, and wrapped it would name another process.
const MaxPid = math.MaxInt32

// MaxPort is the largest TCP or UDP port.
const MaxPort = 65535

// errNotNumber: text that is no number, which the fields below read as
// none (a service name where a port was expected, a placeholder).
var errNotNumber = errors.New("not a number")

// Int64 returns the value as an integer: 0 for an absent value, the whole
// part of a number written with a fraction or an exponent, and an error
// for a number outside the 64-bit range (never wrapped) or text that is no
// number.
func (f Flex) Int64() (int64, error) {
	s := f.String()
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err == nil {
		return n, nil
	}
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%s does not fit 64 bits", CutText(s, 40))
	}
	x, ferr := strconv.ParseFloat(s, 64)
	switch {
	case errors.Is(ferr, strconv.ErrRange) || ferr == nil && (math.IsInf(x, 0) || x >= math.MaxInt64 || x < math.MinInt64):
		return 0, fmt.Errorf("%s does not fit 64 bits", CutText(s, 40))
	case ferr != nil || math.IsNaN(x):
		return 0, errNotNumber
	}
	return int64(x), nil
}

// Numbers reads the numbers of one record that must fit their fields: byte
// counts, durations, ports and process ids. One that does not is never
// wrapped, cut or read as 0: the parser returns Err, and the record is
// rejected with where and why. Text that is no number reads as none.
type Numbers struct{ err error }

// Err is the first number that did not fit, nil when all did.
func (n *Numbers) Err() error { return n.err }

// within reads f as an integer from lo to hi; name says which field.
func (n *Numbers) within(name string, f Flex, lo, hi int64) int64 {
	v, err := f.Int64()
	if errors.Is(err, errNotNumber) {
		return 0
	}
	if err == nil && (v < lo || v > hi) {
		err = fmt.Errorf("%d is outside %d to %d", v, lo, hi)
	}
	if err != nil {
		if n.err == nil {
			n.err = fmt.Errorf("%s: %w", name, err)
		}
		return 0
	}
	return v
}

// Count is a byte count or a duration: 0 or more.
func (n *Numbers) Count(name string, f Flex) int64 { return n.within(name, f, 0, math.MaxInt64) }

// Duration is a duration in milliseconds: one past 64 bits is an error,
// a negative one (clocks disagreeing) reads as none.
func (n *Numbers) Duration(name string, f Flex) int64 {
	return max(0, n.within(name, f, math.MinInt64, math.MaxInt64))
}

// Port is a TCP or UDP port.
func (n *Numbers) Port(name string, f Flex) int { return int(n.within(name, f, 0, MaxPort)) }

// Pid is a process id.
func (n *Numbers) Pid(name string, f Flex) int { return int(n.within(name, f, 0, MaxPid)) }

// HostPort is SplitHostPort with its port checked: a number that is no
// port is an error, where SplitHostPort reads it as none.
func (n *Numbers) HostPort(name, s string) (string, int) {
	host, port := SplitHostPort(s)
	if _, p, err := net.SplitHostPort(Clean(s)); err == nil && isDigits(p) {
		port = n.Port(name+" port", Flex(p))
	}
	return host, port
}

// URLTarget is URLTarget with its port checked, as HostPort.
func (n *Numbers) URLTarget(name, u string) (string, int) {
	host, port := URLTarget(u)
	rest := Clean(u)
	if _, r, ok := strings.Cut(rest, "://"); ok {
		rest = r
		if i := strings.IndexAny(rest, "/?#"); i >= 0 {
			rest = rest[:i]
		}
		if i := strings.LastIndexByte(rest, '@'); i >= 0 {
			rest = rest[i+1:]
		}
	}
	if _, p, err := net.SplitHostPort(rest); err == nil && isDigits(p) {
		if v := n.Port(name+" port", Flex(p)); v == 0 {
			port = 0
		}
	}
	return host, port
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// checkNumbers is Normalize's guard for what no parser checked: a port, a
// process id, a byte count or a duration out of its range rejects the
// record, whatever the parser made of it.
func checkNumbers(ev *evidence.Event) error {
	for _, p := range []struct {
		name string
		v    int
	}{{"src_port", ev.SrcPort}, {"dst_port", ev.DstPort}} {
		if p.v < 0 || p.v > MaxPort {
			return fmt.Errorf("%s %d is outside 0 to %d", p.name, p.v, MaxPort)
		}
	}
	for _, p := range []struct {
		name string
		v    int
	}{{"pid", ev.Pid}, {"ppid", ev.Ppid}} {
		if p.v < 0 || p.v > MaxPid {
			return fmt.Errorf("%s %d is outside 0 to %d", p.name, p.v, MaxPid)
		}
	}
	for _, c := range []struct {
		name string
		v    int64
	}{{"bytes_out", ev.BytesOut}, {"bytes_in", ev.BytesIn}, {"duration_ms", ev.DurationMS}} {
		if c.v < 0 {
			return fmt.Errorf("%s %d is negative", c.name, c.v)
		}
	}
	return nil
}

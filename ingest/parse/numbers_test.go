package parse

import (
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

func TestFlexInt64NeverWraps(t *testing.T) {
	for in, want := range map[string]struct {
		n   int64
		err string
	}{
		"":                     {0, ""},
		"-":                    {0, ""},
		"12":                   {12, ""},
		"-3":                   {-3, ""},
		"1e3":                  {1000, ""},
		"12.7":                 {12, ""},
		"9223372036854775807":  {9223372036854775807, ""},
		"9223372036854775808":  {0, "does not fit 64 bits"},
		"-9223372036854775809": {0, "does not fit 64 bits"},
		"18446744073709551617": {0, "does not fit 64 bits"},
		"1e19":                 {0, "does not fit 64 bits"},
		"1e400":                {0, "does not fit 64 bits"},
		"Infinity":             {0, "does not fit 64 bits"},
		"NaN":                  {0, "not a number"},
		"http":                 {0, "not a number"},
	} {
		n, err := Flex(in).Int64()
		if n != want.n || (err == nil) != (want.err == "") || err != nil && !strings.Contains(err.Error(), want.err) {
			t.Errorf("Flex(%q).Int64() = %d, %v; want %d, %q", in, n, err, want.n, want.err)
		}
		if got := Flex(in).Int(); got != want.n {
			t.Errorf("Flex(%q).Int() = %d, want %d", in, got, want.n)
		}
	}
}

func TestNumbersKeepTheFirstThatDoesNotFit(t *testing.T) {
	var n Numbers
	if n.Port("a", "443") != 443 || n.Pid("b", "1") != 1 || n.Count("c", "7") != 7 || n.Port("d", "http") != 0 || n.Duration("e", "-5") != 0 || n.Err() != nil {
		t.Fatalf("numbers that fit: %v", n.Err())
	}
	if n.Port("p", "65536") != 0 || n.Pid("q", "2147483648") != 0 || n.Err() == nil || n.Err().Error() != "p: 65536 is outside 0 to 65535" {
		t.Errorf("first error: %v", n.Err())
	}
	for s, want := range map[string]string{
		"evil.example:65536": "x port: 65536 is outside", "[2001:db8::1]:99999999999999999999": "does not fit 64 bits",
		"evil.example:443": "", "evil.example:https": "", "evil.example": "",
	} {
		var n Numbers
		n.HostPort("x", s)
		n.URLTarget("x", "http://"+s+"/")
		if (n.Err() == nil) != (want == "") || n.Err() != nil && !strings.Contains(n.Err().Error(), want) {
			t.Errorf("%s: %v, want %q", s, n.Err(), want)
		}
	}
}

// Normalize rejects what a parser let through out of range.
func TestNormalizeRejectsNumbersOutOfRange(t *testing.T) {
	at := time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		ev   evidence.Event
		want string
	}{
		{evidence.Event{DstPort: 65536}, "dst_port 65536"},
		{evidence.Event{SrcPort: -1}, "src_port -1"},
		{evidence.Event{Pid: -1}, "pid -1"},
		{evidence.Event{Ppid: MaxPid + 1}, "ppid 2147483648"},
		{evidence.Event{BytesIn: -9223372036854775808}, "bytes_in -9223372036854775808 is negative"},
		{evidence.Event{DurationMS: -1}, "duration_ms -1"},
		{evidence.Event{DstPort: 65535, Pid: MaxPid, BytesOut: 1 << 62}, ""},
	} {
		c.ev.Time = at
		err := Normalize(&c.ev)
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.ev, err, c.want)
		}
	}
}

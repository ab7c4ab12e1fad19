package common

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

func TestFit(t *testing.T) {
	for _, c := range []struct {
		in   string
		w    int
		want string
	}{
		{"curl", 10, "curl"},
		{"curl -s http://x", 8, "curl -s…"},
		{"a\x1b]0;t\x07b", 40, `a\x1b]0;t\x07b`},
		{"\u202eexe", 20, `\u{202e}exe`},
		{"日本語テキスト", 7, "日本語…"},
		{"x", 0, ""},
	} {
		if got := Fit(c.in, c.w); got != c.want {
			t.Errorf("Fit(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
		if got := Fit(c.in, c.w); ansi.StringWidth(got) > c.w {
			t.Errorf("Fit(%q, %d) is %d cells", c.in, c.w, ansi.StringWidth(got))
		}
	}
	huge := strings.Repeat("\x1b", 1<<20)
	if got := Fit(huge, 30); ansi.StringWidth(got) != 30 || strings.ContainsRune(got, 0x1b) {
		t.Errorf("a megabyte of ESC: %q", got)
	}
}

func TestClock(t *testing.T) {
	origin := time.Date(2026, 7, 21, 9, 52, 10, 0, time.UTC)
	at := origin.Add(2*time.Hour + 3*time.Minute + 4*time.Second + 5*time.Millisecond)
	for _, c := range []struct {
		clock Clock
		want  string
	}{
		{Clock{}, "11:55:14.005"},
		{Clock{Days: true}, "07-21 11:55:14.005"},
		{Clock{Relative: true, Origin: origin}, "+02:03:04.005"},
		{Clock{Relative: true, Origin: origin, Days: true}, "+0d02:03:04.005"},
		{Clock{Relative: true, Origin: at.Add(time.Second)}, "-00:00:01.000"},
	} {
		got := c.clock.Format(at)
		if got != c.want || len([]rune(got)) > c.clock.Width() {
			t.Errorf("%+v: %q (width %d), want %q", c.clock, got, c.clock.Width(), c.want)
		}
	}
}

func TestCountAndDuration(t *testing.T) {
	if got := Count(1204311); got != "1,204,311" {
		t.Errorf("Count = %s", got)
	}
	for d, want := range map[time.Duration]string{
		340 * time.Millisecond:       "340ms",
		95 * time.Second:             "1m35s",
		3*time.Hour + 12*time.Minute: "3h12m",
		50 * time.Hour:               "2d2h",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %s, want %s", d, got, want)
		}
	}
}

// TestClipKeepsWithinN: a clipped text is at most n characters, the
// ellipsis included, whatever its script; one that fits is unchanged.
func TestClipKeepsWithinN(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"abcdef", 6, "abcdef"}, {"abcdefg", 6, "abcde…"}, {"ééééééé", 4, "ééé…"}, {"ab", 0, ""}, {"日本語のテキスト", 5, "日本語の…"},
	} {
		got := Clip(c.s, c.n)
		if got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

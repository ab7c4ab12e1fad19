package common

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/cordon-ir/cordon/evidence"
)

// Fit makes evidence text safe for the terminal (evidence.Printable: escape
// sequences, controls and bidi overrides become visible and inert) and cuts
// it to w cells, marking the cut with "…". Every string that came from
// evidence passes through here before it is rendered.
func Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	// A field can be megabytes; cutting bytes first keeps the cost bounded
	// (a cell is at most 4 bytes, plus an escape like \u{202e}).
	if len(s) > 8*w+16 {
		s = s[:8*w+16]
	}
	return Cut(evidence.Printable(s), w)
}

// FitMessage is Fit for cordon's own messages (an error): made safe by
// evidence.PrintableMessage, which leaves the %q quoting inside them
// single, then cut to w cells.
func FitMessage(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if len(s) > 8*w+16 {
		s = s[:8*w+16]
	}
	return Cut(evidence.PrintableMessage(s), w)
}

// Cut cuts text that is already safe (made printable, wrapped, or styled
// by us) to w cells, marking the cut with "…". Fit over such text would
// escape its escapes a second time: \x1b would read \\x1b.
func Cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// Clip shortens raw text to at most n runes, marking the cut with "…",
// for a part of a message that is made safe as a whole where it is shown
// (a status line): Fit here would escape it twice.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if len(s) > 4*n {
		s = s[:4*n]
	}
	if r := []rune(s); len(r) > n {
		return string(r[:max(n-1, 0)]) + "…"
	}
	return s
}

// Pad fits s into exactly w cells: safe, cut, padded with spaces.
func Pad(s string, w int) string {
	s = Fit(s, w)
	if n := w - ansi.StringWidth(s); n > 0 {
		s += strings.Repeat(" ", n)
	}
	return s
}

// PadRight pads an already safe (or styled) string to w cells, cutting
// it when it is longer.
func PadRight(s string, w int) string {
	n := lipgloss.Width(s)
	if n > w {
		return ansi.Truncate(s, w, "…")
	}
	return s + strings.Repeat(" ", w-n)
}

// Decision returns the label and style of an event's verdict: its policy
// decision, or else its sensor severity. The label carries the meaning, the
// colour only repeats it.
func (s *Styles) Decision(ev evidence.Event) (string, lipgloss.Style) {
	switch ev.Decision {
	case evidence.DecisionDeny:
		return "DENY", s.Deny
	case evidence.DecisionError:
		return "ERR", s.ErrorDec
	case evidence.DecisionAllow:
		return "allow", s.Allow
	case "":
	default:
		return ev.Decision, s.Row
	}
	switch ev.Severity {
	case "":
		return "", s.Row
	case "emergency", "alert", "critical":
		return "!crit", s.Deny
	case "error":
		return "!err", s.ErrorDec
	case "warning", "warn":
		return "!warn", s.Warn
	case "notice":
		return "!note", s.Info
	}
	return "!" + ev.Severity, s.Info
}

// Clock formats event times, absolute (UTC) or relative to the incident's
// first event.
type Clock struct {
	Relative bool
	Origin   time.Time
	// Days shows the date too, for incidents longer than a day.
	Days bool
	// Low and High (zero: none) bound the main span on a side where events
	// lie outside it: those rows show their date instead, which is what
	// sets them apart (and no offset of ten thousand years).
	Low, High time.Time
	// Anchor, when set, is what relative times count from instead of the
	// first event (the containment time, a mark); Base names it for the
	// header ("containment 10:21:03").
	Anchor time.Time
	Base   string
}

// Zero is the time relative times count from.
func (c Clock) Zero() time.Time {
	if !c.Anchor.IsZero() {
		return c.Anchor
	}
	return c.Origin
}

// Says is how the header names the clock: "" for absolute UTC times.
func (c Clock) Says() string {
	switch {
	case !c.Relative:
		return ""
	case c.Anchor.IsZero():
		return "time from the first event"
	}
	return "time from " + c.Base + " " + c.Anchor.UTC().Format("15:04:05")
}

// ForSpan sets the clock for the main span of an incident: its origin,
// whether it needs dates, and the bounds past which rows are outliers.
func (c Clock) ForSpan(sp evidence.Span) Clock {
	c.Origin, c.Days = sp.First, sp.Last.Sub(sp.First) > 24*time.Hour
	c.Low, c.High = time.Time{}, time.Time{}
	if sp.Before > 0 {
		c.Low = sp.First
	}
	if sp.After > 0 {
		c.High = sp.Last
	}
	return c
}

// Width is the number of cells Format returns.
func (c Clock) Width() int {
	switch {
	case c.Relative && c.Days:
		return 16
	case c.Relative:
		return 13
	case c.Days:
		return 18
	}
	return 12
}

// Format renders t for a timeline row.
func (c Clock) Format(t time.Time) string {
	if !c.Low.IsZero() && t.Before(c.Low) || !c.High.IsZero() && t.After(c.High) {
		return t.UTC().Format(time.DateOnly)
	}
	if !c.Relative {
		if c.Days {
			return t.UTC().Format("01-02 15:04:05.000")
		}
		return t.UTC().Format("15:04:05.000")
	}
	d := t.Sub(c.Zero())
	sign := "+"
	if d < 0 {
		sign, d = "-", -d
	}
	ms := d.Milliseconds()
	h, m, sec, frac := ms/3600000, ms/60000%60, ms/1000%60, ms%1000
	if c.Days {
		return fmt.Sprintf("%s%dd%02d:%02d:%02d.%03d", sign, h/24, h%24, m, sec, frac)
	}
	return fmt.Sprintf("%s%02d:%02d:%02d.%03d", sign, h, m, sec, frac)
}

// Span formats the incident's time span for the header.
func Span(first, last time.Time) string {
	if first.IsZero() {
		return "no events yet"
	}
	f, l := first.UTC(), last.UTC()
	if f.Format("2006-01-02") == l.Format("2006-01-02") {
		return fmt.Sprintf("%s %s–%s UTC (%s)", f.Format("2006-01-02"), f.Format("15:04:05"), l.Format("15:04:05"), Duration(l.Sub(f)))
	}
	return fmt.Sprintf("%s – %s UTC (%s)", f.Format("2006-01-02 15:04"), l.Format("2006-01-02 15:04"), spanLength(f, l))
}

// spanLength is Duration(last - first), counted in seconds past the 292
// years a Duration holds: evidence can be dated from the year 1 to 9999.
func spanLength(first, last time.Time) string {
	if d := last.Sub(first); d < 100*365*24*time.Hour {
		return Duration(d)
	}
	s := last.Unix() - first.Unix()
	return fmt.Sprintf("%dd%dh", s/86400, s%86400/3600)
}

// SpanShort is Span without the date and duration, for narrow headers.
func SpanShort(first, last time.Time) string {
	if first.IsZero() {
		return "no events yet"
	}
	f, l := first.UTC(), last.UTC()
	if f.Format("2006-01-02") == l.Format("2006-01-02") {
		return f.Format("15:04:05") + "–" + l.Format("15:04:05") + " UTC"
	}
	return f.Format("01-02 15:04") + "–" + l.Format("01-02 15:04") + " UTC"
}

// Duration is a compact human duration: 4m10s, 3h12m, 2d4h.
func Duration(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d < time.Minute:
		return d.Round(time.Second).String()
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		d = d.Round(time.Minute)
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%dh", int(d.Hours())/24, int(d.Hours())%24)
}

// Count formats a number with thin separators: 1,204,311.
func Count(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

package steps

import (
	"context"
	"github.com/cordon-ir/cordon/capability"
	"io"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/tui/common"
	"github.com/muesli/termenv"
)

func asciiStyles() *common.Styles {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	return common.DefaultStyles(r, true)
}

func TestMarkdown(t *testing.T) {
	for _, c := range []struct {
		name, src string
		w         int
		want      []string
	}{
		{"paragraph joins and wraps", "one two\nthree four five", 12, []string{"one two", "three four", "five"}},
		{"heading", "## Why it matters\ntext", 40, []string{"Why it matters", "text"}},
		{"bullets hang", "- first item that wraps\n  on and on\n- second", 16, []string{"• first item", "  that wraps on", "  and on", "• second"}},
		{"numbered", "1. Ingest\n2. Run `cordon rejects`", 40, []string{"1. Ingest", "2. Run cordon rejects"}},
		{"code keeps punctuation", "use (`x y`), then", 40, []string{"use (x y), then"}},
		{"strong and emphasis drop markers", "**Contain** now, *not* later", 40, []string{"Contain now, not later"}},
		{"link shows its target", "see [the docs](https://x.example/d)", 40, []string{"see the docs <https://x.example/d>"}},
		{"fence kept verbatim", "```\ncordon  ingest\n```", 40, []string{"  cordon  ingest"}},
		{"blank lines collapse", "a\n\n\n\nb", 40, []string{"a", "", "b"}},
		{"long word is cut", "abcdefghijklmnopqr", 8, []string{"abcdefgh", "ijklmnop", "qr"}},
		{"escapes inert", "x \x1b]0;t\x07 y", 40, []string{`x \x1b]0;t\x07 y`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Markdown(c.src, c.w, asciiStyles())
			for i := range got {
				got[i] = ansi.Strip(got[i])
				if n := ansi.StringWidth(got[i]); n > max(c.w, 8) {
					t.Errorf("line %q is %d cells, more than %d", got[i], n, c.w)
				}
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestLabels(t *testing.T) {
	for s, want := range map[incident.StepStatus]string{"": "[ ]", "started": "[>]", "done": "[x]", "skipped": "[-]"} {
		if got := Glyph(s); got != want {
			t.Errorf("Glyph(%q) = %s", s, got)
		}
	}
	for _, c := range []struct {
		r    *incident.CheckResult
		want string
	}{
		{nil, "not run"},
		{&incident.CheckResult{Status: incident.CheckVerified}, "verified"},
		{&incident.CheckResult{Status: incident.CheckNotVerified, Matched: 37}, "NOT VERIFIED (37)"},
		{&incident.CheckResult{Status: incident.CheckNotVerified, Matched: 1000, Capped: true}, "NOT VERIFIED (1000+)"},
		{&incident.CheckResult{Status: incident.CheckNoEvidence}, "no evidence"},
		{&incident.CheckResult{Status: incident.CheckNotRun}, "not run"},
		{&incident.CheckResult{Status: incident.CheckVerified, Layer: &capability.LayerVerdict{State: capability.Stopped}}, "stopped"},
		{&incident.CheckResult{Status: incident.CheckVerified, Layer: &capability.LayerVerdict{State: capability.Stopped, LiveAfterKill: true}}, "stopped late"},
		{&incident.CheckResult{Status: incident.CheckNotVerified, Matched: 3, Layer: &capability.LayerVerdict{State: capability.Live}}, "LIVE"},
		{&incident.CheckResult{Status: incident.CheckNoEvidence, Layer: &capability.LayerVerdict{State: capability.CannotTell}}, "cannot tell"},
	} {
		if got := CheckLabel(c.r); got != c.want {
			t.Errorf("CheckLabel = %s, want %s", got, c.want)
		}
	}
}

func TestParseTime(t *testing.T) {
	now := time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC)
	if got, err := parseTime("", now); err != nil || !got.Equal(now) {
		t.Errorf("empty: %v %v", got, err)
	}
	if got, err := parseTime("2026-07-21T10:15:00+02:00", now); err != nil || got.UTC().Hour() != 8 {
		t.Errorf("offset: %v %v", got, err)
	}
	if _, err := parseTime("10 past", now); err == nil || !strings.Contains(err.Error(), "RFC 3339") {
		t.Errorf("bad time: %v", err)
	}
}

// TestNoWorkspaceSaysWhy: a pane built without a case says why it is
// empty, and its keys write nothing.
func TestNoWorkspaceSaysWhy(t *testing.T) {
	com := common.New(context.Background(), asciiStyles(), common.DefaultKeyMap(), nil)
	m := New(com, nil, journal.Actor{Name: "alice"}, false)
	m.SetSize(80, 20)
	for _, k := range []string{"s", "d"} {
		m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)})
	}
	if s := ansi.Strip(m.View()); !strings.Contains(s, "no incident workspace") {
		t.Errorf("playbook pane:\n%s", s)
	}
}

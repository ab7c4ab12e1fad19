package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/incident/incidenttest"
)

// The console's rough edges of issue 33, each in a real 80×24 terminal.

// TestFilesCountsEachFilesEventsInTmux: :files counts each ingested
// file's events while the console follows them, after rounds that read
// nothing new and one that read an appended line (it said 0 of every
// file), and lists them again as each round ends while it is open.
func TestFilesCountsEachFilesEventsInTmux(t *testing.T) {
	var evidenceDir string
	c := startTmux(t, func(dir, bin string) (string, string) {
		evidenceDir = filepath.Join(dir, "evidence")
		if err := os.CopyFS(evidenceDir, os.DirFS(incidenttest.ConsoleFixture())); err != nil {
			t.Fatal(err)
		}
		ws := filepath.Join(dir, "incident")
		return fmt.Sprintf("env XDG_STATE_HOME=%s TERM=xterm-256color %s open --incident %s %s", dir, bin, ws, evidenceDir), ws
	})
	c.wait("the timeline", "TIMELINE", "74 events", "following 4 files")
	rows := regexp.MustCompile(`ok +([0-9,]+) events, +([0-9,]+) new, \d+ rejected +(\S+)`)
	sum := func(s string) int {
		n := 0
		for _, m := range rows.FindAllStringSubmatch(s, -1) {
			k, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
			n += k
		}
		return n
	}
	c.send(":")
	c.send("-l", "files")
	c.send("Enter")
	c.waitUntil("the files' events to add up to 74", func(s string) bool {
		return strings.Contains(s, "FILES  0 not ingested, 4 read in ") && sum(s) == 74
	})
	// a line appended while the pane is open: the round that reads it
	// lists the files again
	f, err := os.OpenFile(filepath.Join(evidenceDir, "ledger.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"v":1,"ts":"2026-07-21T10:19:00.000Z","type":"summary","run":"r-0721a","agent":"agent-7","session":"s-19","text":"appended while the console follows"}` + "\n")
	f.Close()
	s := c.waitUntil("the files' events to add up to 75, the pane open", func(s string) bool {
		return strings.Contains(s, "FILES  0 not ingested, 4 read in ") && sum(s) == 75
	})
	counts := rows.FindAllStringSubmatch(s, -1)
	if len(counts) != 4 {
		t.Fatalf("%d file rows, want 4:\n%s", len(counts), s)
	}
	for _, m := range counts {
		if n, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", "")); n == 0 {
			t.Errorf("%s: 0 events:\n%s", m[3], s)
		}
	}
	fits(t, s, 24)
}

// TestSuppressPromptShowsTheReasonInTmux: at 80×24 the suppress prompt
// leaves room for the reason, and what is typed shows as it is typed.
func TestSuppressPromptShowsTheReasonInTmux(t *testing.T) {
	c := startTmuxConsole(t)
	c.wait("the timeline", "TIMELINE", "74 events")
	c.send("Tab", "Tab")
	c.wait("the agents, ranked", "FINDINGS", "agent-7")
	c.send("Enter")
	c.wait("agent-7's episodes", "boundary-probing")
	c.send("s")
	c.wait("the prompt", "suppress ", "of agent-7 — reason:")
	c.send("-l", "lab scanner, ticket 4411")
	s := c.wait("the typed reason", "lab scanner, ticket 4411")
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "reason:") || !strings.Contains(last, "lab scanner, ticket 4411") {
		t.Errorf("the prompt line does not show the question and the reason: %q", last)
	}
	c.send("Enter")
	c.wait("the suppression", "suppressed")
}

// TestChecklistEnterOpensInTmux: enter on a checklist item opens it (its
// whole text, not ticked yet) without ticking it; space, the labelled key,
// ticks it, and the open item says who did.
func TestChecklistEnterOpensInTmux(t *testing.T) {
	c := startTmuxConsole(t)
	c.wait("the timeline", "TIMELINE", "74 events")
	c.send("Tab", "Tab", "Tab")
	c.wait("the playbook", "PLAYBOOK", "[ ] Confirm that an agent crossed")
	c.send("j", "Enter")
	c.wait("the step", "enter opens an item, space ticks it", "space tick item")
	c.send("j", "Enter")
	s := c.wait("the open item", "not ticked yet · space ticks it")
	if strings.Contains(s, "[x]") || strings.Contains(s, "CHECKLIST 1/") {
		t.Errorf("enter ticked the item:\n%s", s)
	}
	c.send("Space")
	s = c.wait("the tick", "CHECKLIST 1/", "[x] ", "ticked by ")
	fits(t, s, 24)
	c.send("Tab")
	c.wait("the journal", "JOURNAL", "checklist")
}

// TestRelatedRankedByLinkInTmux: around a tool call the related list
// names the session before the ±30 s window, and the window lists what
// shares the call or the session before what is only near in time.
func TestRelatedRankedByLinkInTmux(t *testing.T) {
	c := startTmuxConsole(t)
	c.wait("the timeline", "TIMELINE", "74 events")
	c.send("/")
	c.send("-l", "call_id:c-12 kind:tool_call")
	c.send("Enter")
	c.wait("the tool call", "1 hit")
	c.send("Enter")
	c.wait("the event", "EVENT", "call_id          c-12")
	var seen []string
	selected := func() string {
		for _, l := range strings.Split(c.screen(), "\n") {
			if strings.Contains(l, "▸") {
				return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "▸"))
			}
		}
		return ""
	}
	for range 30 {
		prev := selected()
		c.send("n")
		deadline := time.Now().Add(5 * time.Second)
		for selected() == prev && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond) // polling a real terminal
		}
		seen = append(seen, selected())
		if strings.HasPrefix(seen[len(seen)-1], "same agent agent-7 ±30s") {
			for range 3 {
				prev := selected()
				c.send("n")
				for selected() == prev && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				seen = append(seen, selected())
			}
			break
		}
	}
	session, window := -1, -1
	for i, s := range seen {
		switch {
		case strings.HasPrefix(s, "same session s-19"):
			session = i
		case strings.HasPrefix(s, "same agent agent-7 ±30s"):
			window = i
		}
	}
	if session < 0 || window < 0 || session > window || window+3 >= len(seen) {
		t.Fatalf("the session group does not come before the ±30s window; n went through:\n%s", strings.Join(seen, "\n"))
	}
	// the call's own decision and result, then its retry in the same
	// session (10:04:30), before the proxy's denials nearer in time (10:04:25)
	first3 := seen[window+1 : window+4]
	if !strings.HasPrefix(first3[0], "10:04:11.259") || !strings.HasPrefix(first3[1], "10:04:11.290") || !strings.HasPrefix(first3[2], "10:04:30.000") {
		t.Errorf("the ±30s window is not ranked by link:\n%s", strings.Join(first3, "\n"))
	}
}

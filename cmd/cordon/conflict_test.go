package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Two sessions claim one sandbox IP and both act after the second start:
// whichever file is ingested first, the proxy lines after the second start
// are ambiguous between the two agents (never moved to the newcomer),
// `agents` shows the conflict on both, and a finding names it.
func TestBindingConflictIsShownNotResolved(t *testing.T) {
	t0 := time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC)
	ts := func(m int) string { return t0.Add(time.Duration(m) * time.Minute).Format("2006-01-02T15:04:05.000Z") }
	ledger := []string{
		fmt.Sprintf(`{"v":1,"ts":%q,"type":"session_start","run":"r-1","agent":"agent-1","session":"s-1","sandbox":{"id":"sb-1","ip":"10.0.9.4"}}`, ts(0)),
		fmt.Sprintf(`{"v":1,"ts":%q,"type":"tool_call","run":"r-1","agent":"agent-1","session":"s-1","call_id":"c-1","tool":"bash","args":{"cmd":"id"}}`, ts(5)),
		fmt.Sprintf(`{"v":1,"ts":%q,"type":"session_start","run":"r-1","agent":"agent-2","session":"s-2","sandbox":{"id":"sb-2","ip":"10.0.9.4"}}`, ts(60)),
		fmt.Sprintf(`{"v":1,"ts":%q,"type":"tool_call","run":"r-1","agent":"agent-2","session":"s-2","call_id":"c-2","tool":"bash","args":{"cmd":"id"}}`, ts(62)),
		fmt.Sprintf(`{"v":1,"ts":%q,"type":"tool_call","run":"r-1","agent":"agent-1","session":"s-1","call_id":"c-3","tool":"bash","args":{"cmd":"curl https://example.org"}}`, ts(80)),
	}
	var squid []string
	for _, m := range []int{10, 65, 70, 75} {
		squid = append(squid, fmt.Sprintf("%d.000    120 10.0.9.4 TCP_TUNNEL/200 5120 CONNECT example.org:443 - HIER_DIRECT/93.184.216.34 -", t0.Add(time.Duration(m)*time.Minute).Unix()))
	}
	for _, ledgerFirst := range []bool{true, false} {
		t.Run(fmt.Sprintf("ledger first %v", ledgerFirst), func(t *testing.T) {
			dir := t.TempDir()
			lp, sp := filepath.Join(dir, "ledger.jsonl"), filepath.Join(dir, "access.log")
			for p, lines := range map[string][]string{lp: ledger, sp: squid} {
				if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			inc := filepath.Join(dir, "incident")
			first, second := lp, sp
			if !ledgerFirst {
				first, second = sp, lp
			}
			for _, f := range []string{first, second} {
				if code, out, errOut := cordon("ingest", "--incident", inc, f); code != 0 {
					t.Fatalf("ingest %s: %d %s %s", f, code, out, errOut)
				}
			}
			code, out, errOut := cordon("agents", "--incident", inc)
			if code != 0 || strings.Count(out, "BINDING CONFLICT: src_ip=10.0.9.4") != 2 ||
				strings.Count(out, "3 more events are its or another's (binding conflict)") != 2 {
				t.Errorf("agents: %d\n%s%s", code, out, errOut)
			}
			code, out, errOut = cordon("search", "--incident", inc, "--json", "format:squid")
			if code != 0 {
				t.Fatalf("search: %d %s", code, errOut)
			}
			n := 0
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var ev struct {
					Time  time.Time
					Agent string
					Tags  []string
				}
				if err := json.Unmarshal([]byte(line), &ev); err != nil {
					t.Fatalf("%v: %s", err, line)
				}
				n++
				tags := strings.Join(ev.Tags, " ")
				if ev.Time.Before(t0.Add(time.Hour)) {
					if ev.Agent != "agent-1" {
						t.Errorf("%v before the second start: agent %q", ev.Time, ev.Agent)
					}
					continue
				}
				if ev.Agent != "" || !strings.Contains(tags, "candidate:agent-1") || !strings.Contains(tags, "candidate:agent-2") || !strings.Contains(tags, "binding-conflict") {
					t.Errorf("%v after the second start: agent %q tags %v", ev.Time, ev.Agent, ev.Tags)
				}
			}
			if n != 4 {
				t.Errorf("%d squid lines found", n)
			}
			code, out, errOut = cordon("findings", "--incident", inc)
			if code != 0 || !strings.Contains(out, "binding-conflict") {
				t.Errorf("findings: %d\n%s%s", code, out, errOut)
			}
			code, out, errOut = cordon("report", "--incident", inc)
			if code != 0 || !strings.Contains(out, "**Binding conflict:** src_ip=10.0.9.4 was bound to agent-1 (s-1) and, from") {
				t.Errorf("report: %d\n%s%s", code, out, errOut)
			}
		})
	}
}

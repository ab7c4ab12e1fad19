package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/spf13/cobra"
)

// agentReport is one agent with the key bindings of its sessions.
type agentReport struct {
	attribution.AgentSummary
	Bindings []attribution.Binding `json:"bindings"`
	// Conflicts are the binding conflicts the agent is in, either side.
	Conflicts []attribution.Conflict `json:"conflicts"`
}

func cmdAgents(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	asJSON := fs.Bool("json", false, "one JSON document: agents, unattributed count, coverage")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		if *dir == "" {
			fs.Usage()
			return fmt.Errorf("%w: agents needs --incident DIR", errUsage)
		}
		ws, done, err := e.openOrHeld(*dir)
		if err != nil {
			return err
		}
		defer done()
		sums, err := ws.Agents(ctx)
		if err != nil {
			return err
		}
		id, err := ws.SessionIdentity(ctx)
		if err != nil {
			return err
		}
		byAgent := map[string][]attribution.Binding{}
		for _, b := range id.Bindings() {
			byAgent[b.Agent] = append(byAgent[b.Agent], b)
		}
		conflicts := id.Conflicts()
		conflictsOf := map[string][]attribution.Conflict{}
		for _, c := range conflicts {
			conflictsOf[c.Earlier.Agent] = append(conflictsOf[c.Earlier.Agent], c)
			conflictsOf[c.Later.Agent] = append(conflictsOf[c.Later.Agent], c)
		}
		reports := make([]agentReport, 0, len(sums))
		for _, s := range sums {
			if s.Agent == "" {
				continue
			}
			bs := byAgent[s.Agent]
			if bs == nil {
				bs = []attribution.Binding{}
			}
			cs := conflictsOf[s.Agent]
			if cs == nil {
				cs = []attribution.Conflict{}
			}
			reports = append(reports, agentReport{AgentSummary: s, Bindings: bs, Conflicts: cs})
		}
		cov, err := ws.SourceCoverage(ctx)
		if err != nil {
			return err
		}
		unattributed := attribution.Unattributed(ws.Counts())
		if *asJSON {
			if cov == nil {
				cov = []attribution.SourceCoverage{}
			}
			if conflicts == nil {
				conflicts = []attribution.Conflict{}
			}
			return jsonEncoder(e.stdout).Encode(struct {
				Agents       []agentReport                `json:"agents"`
				Conflicts    []attribution.Conflict       `json:"conflicts"`
				Unattributed int64                        `json:"unattributed"`
				Coverage     []attribution.SourceCoverage `json:"coverage"`
			}{reports, conflicts, unattributed, cov})
		}
		if len(reports) == 0 {
			fmt.Fprintln(e.stderr, "no agent in the evidence (agents come from ledger records and attribution)")
		}
		for i, r := range reports {
			if i > 0 {
				fmt.Fprintln(e.stdout)
			}
			writeAgent(e, r)
		}
		if len(reports) > 0 {
			fmt.Fprintln(e.stdout)
		}
		if unattributed > 0 {
			fmt.Fprintf(e.stdout, "%d events are not attributed to any agent\n", unattributed)
		}
		return printCoverage(ctx, e, ws)
	}
}

// writeAgent prints an agent's identity and activity, then one line per
// session: sandbox, interval and the keys it bound.
func writeAgent(e *env, r agentReport) {
	p := evidence.Printable
	a := r.AgentSummary
	name := p(a.Agent)
	if a.Revealed != "" {
		name = a.Revealed // what it is made of, not what it passes for
	}
	w := e.width()
	writeWrapped(e.stdout, w, "    ", fmt.Sprintf("%s  model %s  run %s", name, orDash(p(a.Model)), orDash(p(a.Run))))
	for _, o := range a.LookAlike {
		writeWrapped(e.stdout, w, "    ", fmt.Sprintf("  LOOK-ALIKE: its name looks like %s's (%s): two agents, not one", p(o), attribution.Revealed(o)))
	}
	for _, c := range r.Conflicts {
		other, own := c.Later, c.Earlier
		if other.Agent == a.Agent {
			other, own = c.Earlier, c.Later
		}
		writeWrapped(e.stdout, w, "    ", fmt.Sprintf("  BINDING CONFLICT: %s=%s is also %s's (session %s) — both sessions acted after %s (%s at %s); its events from then are %s's or %s's, not decided",
			c.Via, p(c.Value), p(other.Agent), p(other.Session), stamp(c.Later.Start), p(c.Earlier.Agent), stamp(c.EarlierActive), p(own.Agent), p(other.Agent)))
	}
	writeWrapped(e.stdout, w, "    ", fmt.Sprintf("  %d events, %d denied, %d session(s), active %s–%s",
		a.Events, a.Denied, a.Sessions, stamp(a.First), stamp(a.Last)))
	if a.Contested > 0 {
		writeWrapped(e.stdout, w, "    ", fmt.Sprintf("  %d more events are its or another's (binding conflict)", a.Contested))
	}
	type session struct {
		sandbox, interval string
		end               time.Time
		keys              []string
	}
	var order []string
	sessions := map[string]*session{}
	for _, b := range r.Bindings {
		s := sessions[b.Session]
		if s == nil {
			end := "open"
			if !b.End.IsZero() {
				end = stamp(b.End)
				if b.Ended {
					end += " (ended)"
				}
			}
			s = &session{sandbox: b.Sandbox, interval: stamp(b.Start) + "–" + end, end: b.End}
			sessions[b.Session] = s
			order = append(order, b.Session)
		}
		k := b.Via + "=" + b.Value
		if !b.End.Equal(s.end) {
			// the key was bound to another session before this one ended
			k += " (to " + stamp(b.End) + ")"
		}
		s.keys = append(s.keys, k)
	}
	for _, name := range order {
		s := sessions[name]
		// the keys wrap under the session on a terminal: each is a value
		// to search for, and none is cut
		writeWrapped(e.stdout, w, "    ", fmt.Sprintf("  session %s  sandbox %s  %s  %s", orDash(p(name)), orDash(p(s.sandbox)), s.interval, p(strings.Join(s.keys, " "))))
	}
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "?"
	}
	return t.UTC().Format(time.TimeOnly)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

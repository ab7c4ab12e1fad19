package agents

import (
	"fmt"
	"github.com/cordon-ir/cordon/capability"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/tui/common"
)

// maxEvidenceIDs bounds the ids a capability line filters the timeline to.
const maxEvidenceIDs = 500

// row is one selectable line of a profile: what enter filters the timeline
// to, and how it reads.
type row struct {
	text   string
	filter evidence.Query
	label  string
	live   bool // a capability still live: shown as such, not by colour alone
}

func (p profile) rows(clock common.Clock) []row {
	out := []row{{text: "every event of " + p.agent, filter: evidence.Term("agent", p.agent), label: p.agent}}
	for _, s := range p.sessions {
		end := "open"
		if !s.End.IsZero() {
			end = clock.Format(s.End) + " " + s.Ended
		}
		shared := ""
		if s.Shared != "" {
			// before the interval, so that a narrow terminal still shows it
			shared = "! " + s.Shared + " · "
		}
		text := fmt.Sprintf("session %-8s %-8s %-15s %s%s – %s", s.ID, s.Sandbox, s.IP, shared, clock.Format(s.Start), end)
		out = append(out, row{text: text, filter: evidence.And(evidence.Term("agent", p.agent), evidence.Term("session", s.ID)), label: "session " + s.ID})
	}
	for i := range p.caps {
		c := &p.caps[i]
		ch, judged := p.checks[i]
		out = append(out, row{text: capText(c, ch, judged, clock), filter: evidence.IDs(capIDs(c)...),
			label: string(c.Kind) + " " + c.Value, live: judged && ch.State == capability.Live})
	}
	if len(p.tree) > 0 {
		// the graph the report draws; its lines open nothing
		out = append(out, row{text: "graph: sessions → where they ran → credentials (granted, acquired) → hosts outside", filter: evidence.All()})
		for _, l := range p.tree {
			out = append(out, row{text: "  " + l, filter: evidence.All()}) // the view makes it printable
		}
	}
	return out
}

// capText is a capability in one line: kind, origin, value, owner, and
// whether it is stopped.
func capText(c *capability.Capability, ch capability.Verdict, judged bool, clock common.Clock) string {
	origin := string(c.Origin)
	if c.Origin == capability.Acquired && c.Owner != "" && c.Owner != c.Agent {
		origin = "acquired from " + c.Owner
	}
	state := ""
	switch {
	case c.Kind == capability.DataOut:
		state = fmt.Sprintf("%s sent (allowlist: %s)", detect.SizeText(c.BytesOut), c.Allowlist)
	case c.Kind == capability.Place && c.Origin == capability.Granted:
		state = "its sandbox (the playbook's checks judge it)"
	case judged && ch.State == capability.Live:
		state = "LIVE after the kill"
	case judged && ch.State == capability.Stopped && ch.LiveFor > 0:
		state = "stopped at " + clock.Format(ch.StoppedAt) + ", live " + capability.DurationText(ch.LiveFor) + " after the kill"
	case judged:
		state = strings.ToUpper(string(ch.State[:1])) + string(ch.State[1:])
		if ch.Missing != "" {
			state += " (" + ch.Missing + " would show it)"
		}
	default:
		if e, ok := c.Ended(); ok {
			state = "ended " + clock.Format(e.At) + " (" + e.How + ", " + e.By + ")"
		} else {
			state = "no authoritative end recorded (only the subject is judged, once a kill time is recorded)"
		}
	}
	if n := len(c.Claims()); n > 0 && !(judged && ch.State == capability.Stopped) {
		state += fmt.Sprintf("; %d claimed end(s), uncorroborated", n)
	}
	last := ""
	if u, ok := c.LastOK(); ok {
		last = " · last used " + clock.Format(u.Time)
		if u.From != "" {
			last += " from " + u.From
		}
	}
	return fmt.Sprintf("%-10s %-22s %s — %s%s · %s", c.Kind, origin, c.Value, state, last, c.How)
}

// capIDs are the events behind a capability: how it came, its uses and
// its end.
func capIDs(c *capability.Capability) []string {
	ids := append([]string{}, c.Acquired...)
	for _, u := range c.Uses {
		ids = append(ids, u.ID)
	}
	for _, e := range c.Ends {
		ids = append(ids, e.ID)
	}
	if len(ids) > maxEvidenceIDs {
		ids = ids[:maxEvidenceIDs]
	}
	return ids
}

// updateProfile handles the keys of an open profile.
func (m Model) updateProfile(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := m.com.Keys
	rows := m.prof.rows(m.clock)
	if cur, moved := k.MoveCursor(msg, m.pcur, len(rows), m.rowsVisible()-1); moved {
		m.pcur = cur
		m.pcur, m.ptop = common.Scroll(m.pcur, m.ptop, len(rows), m.rowsVisible()-1)
		return m, nil
	}
	switch {
	case key.Matches(msg, k.Back):
		m.profileFor = ""
		m.prof = profile{}
	case key.Matches(msg, k.Open):
		if m.pcur >= 0 && m.pcur < len(rows) && !rows[m.pcur].filter.IsAll() {
			r := rows[m.pcur]
			return m, tea.Batch(
				common.Send(common.FilterMsg{Set: r.filter, Replace: true}),
				common.Send(common.StatusMsg{Text: "timeline filtered to " + common.Clip(r.label, 50) + " (esc clears)"}))
		}
	}
	return m, nil
}

// viewProfile renders an open profile.
func (m Model) viewProfile() string {
	st := m.com.Styles
	h, w := m.com.Height, m.com.Width
	title := "  " + m.profileFor + " — sessions and capabilities (granted / acquired, live / stopped); enter opens the evidence, esc the list"
	out := []string{st.ColHeader.Render(common.PadRight(common.Fit(title, w), w))}
	if !m.profLoaded {
		out = append(out, st.Dim.Render("  reading the agent's sessions and capabilities…"))
	}
	rows := m.prof.rows(m.clock)
	if m.profLoaded && m.prof.capsErr != nil {
		out = append(out, st.Dim.Render(common.Fit("  capabilities unavailable: "+m.prof.capsErr.Error(), w)))
	}
	if m.profLoaded && !m.prof.contained.IsZero() {
		out = append(out, st.Dim.Render(common.Fit("  judged by the case's Assessment at the kill "+m.prof.contained.UTC().Format(time.DateTime)+"Z", w)))
	}
	visible := max(h-len(out), 1)
	end := min(m.ptop+visible, len(rows))
	for i := m.ptop; i < end; i++ {
		r := rows[i]
		prefix := "  "
		if i == m.pcur {
			prefix = "▸ "
		}
		line := common.Fit(prefix+r.text, w)
		switch {
		case i == m.pcur:
			line = st.RowSelected.Render(common.PadRight(line, w))
		case r.live:
			line = st.Deny.Render(line)
		}
		out = append(out, line)
	}
	for len(out) < h {
		out = append(out, "")
	}
	return strings.Join(out[:h], "\n")
}

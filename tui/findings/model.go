package findings

import (
	"context"
	"fmt"
	"sort"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/tui/common"
)

// MaxFilterIDs bounds the evidence ids enter puts in the timeline's
// filter: a query of thousands of terms is slow and unreadable.
const MaxFilterIDs = 300

type findingsMsg struct {
	seq int
	t   incident.Triage
	err error
}

// Source is what the pane reads of the case and writes to it
// (*incident.Handle): the findings, by the workspace's rules, from the run
// of the detectors every reader of the workspace shares, the ranking of
// its agents and the suppressions on the record; and a suppression.
type Source interface {
	Triage(ctx context.Context) (incident.Triage, error)
	Suppress(ctx context.Context, s detect.Scope, reason string) (incident.Suppression, error)
	Actor() journal.Actor
}

// Model is the findings pane: first the agents, ranked; enter opens an
// agent's episodes, enter on an episode filters the timeline to its
// events, esc goes back a level.
type Model struct {
	com common.Common
	src Source

	findings []detect.Finding   // every finding, most severe first
	ranks    []detect.AgentRank // the first screen
	// suppressedBy maps a finding id to the suppressions covering it.
	suppressedBy map[string][]string
	// Pending (Asking) is the reason prompt for the root to open;
	// suppressing is what the answer will suppress.
	common.Asking
	suppressing detect.Scope
	loaded      bool
	loading     bool
	seq         int

	// agent is the agent whose episodes are shown; episodes are its
	// findings. open says the episodes level is showing.
	open     bool
	agent    string
	episodes []detect.Finding
	cur, top int
	// back is where the cursor was on the agents screen, for esc.
	back  [2]int
	clock common.Clock
}

// New returns the pane; Load fills it from src.
func New(com common.Common, src Source) Model {
	return Model{com: com, src: src}
}

// SetSize sets the pane's size.
func (m *Model) SetSize(w, h int) {
	m.com = m.com.SetSize(w, h)
	m.clamp()
}

// SetClock sets how times are shown.
func (m *Model) SetClock(c common.Clock) { m.clock = c }

// Findings returns every finding the pane holds (for tests).
func (m Model) Findings() []detect.Finding { return m.findings }

// Ranks returns the agents of the first screen, ranked (for tests).
func (m Model) Ranks() []detect.AgentRank { return m.ranks }

// Agent returns the agent whose episodes are open, if any.
func (m Model) Agent() (string, bool) { return m.agent, m.open }

// Selected returns the episode under the cursor, when an agent's episodes
// are open.
func (m Model) Selected() (detect.Finding, bool) {
	if !m.open || m.cur < 0 || m.cur >= len(m.episodes) {
		return detect.Finding{}, false
	}
	return m.episodes[m.cur], true
}

// Loaded reports whether the detectors have run once.
func (m Model) Loaded() bool { return m.loaded }

// Load reads the findings and the ranking (when the pane is first shown,
// after an ingest): the detectors run again only if the evidence changed
// since any reader of the workspace last asked.
func (m *Model) Load() tea.Cmd {
	m.seq++
	m.loading = true
	ctx, src, seq := m.com.Ctx, m.src, m.seq
	return m.com.Cmd(func() tea.Msg {
		t, err := src.Triage(ctx)
		Sort(t.Findings)
		return findingsMsg{seq: seq, t: t, err: err}
	})
}

// Sort orders findings most severe first, then by start, then detector.
func Sort(fs []detect.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if ra, rb := detect.SeverityRank(a.Severity), detect.SeverityRank(b.Severity); ra != rb {
			return ra > rb
		}
		if !a.Start.Equal(b.Start) {
			return a.Start.Before(b.Start)
		}
		return a.Detector < b.Detector
	})
}

// Query is the timeline filter of a finding's evidence: its event ids, at
// most MaxFilterIDs of them (a search or a facet added later narrows it).
func Query(f detect.Finding) evidence.Query {
	return evidence.IDs(f.Events[:min(len(f.Events), MaxFilterIDs)]...)
}

// rows is how many rows the current screen lists.
func (m Model) rows() int {
	if m.open {
		return len(m.episodes)
	}
	return len(m.ranks)
}

// Update handles the detectors' reply and, with focus, the pane's keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case findingsMsg:
		if msg.seq != m.seq {
			return m, nil
		}
		m.loading = false
		if msg.err != nil {
			return m, common.Send(common.ErrMsg{Err: fmt.Errorf("findings: %w", msg.err)})
		}
		m.findings, m.ranks, m.suppressedBy, m.loaded = msg.t.Findings, msg.t.Ranks, msg.t.SuppressedBy, true
		if m.open {
			m.episodes = m.episodesOf(m.agent)
		}
		m.clamp()
	case common.AnswerMsg:
		if msg.Ask.Kind == askSuppress && !msg.Cancelled {
			return m, m.suppress(msg.Value)
		}
	case suppressedMsg:
		if msg.err != nil {
			return m, common.Send(common.WrittenMsg{Err: fmt.Errorf("suppress: %w", msg.err)})
		}
		return m, tea.Batch(m.Load(), common.Send(common.WrittenMsg{
			Text: fmt.Sprintf("suppression %s journaled: %s; the finding stays listed", msg.s.ID, msg.s.Scope)}))
	case tea.MouseMsg:
		m.cur, _ = m.com.Keys.MoveCursor(msg, m.cur, m.rows(), m.rowsVisible())
		m.clamp()
	case tea.KeyMsg:
		k := m.com.Keys
		if cur, moved := k.MoveCursor(msg, m.cur, m.rows(), m.rowsVisible()); moved {
			m.cur = cur
			m.clamp()
			return m, nil
		}
		switch {
		case key.Matches(msg, k.Open) && m.open:
			return m, m.openEpisode()
		case key.Matches(msg, k.Open):
			m.openAgent()
		case key.Matches(msg, k.Suppress):
			return m, m.askSuppress()
		case key.Matches(msg, k.Back) && m.open:
			m.open, m.episodes = false, nil
			m.cur, m.top = m.back[0], m.back[1]
		}
		m.clamp()
	}
	return m, nil
}

// episodesOf are agent's findings, most severe first.
func (m Model) episodesOf(agent string) []detect.Finding {
	var out []detect.Finding
	for _, f := range m.findings {
		if f.Agent == agent {
			out = append(out, f)
		}
	}
	return out
}

// openAgent shows the episodes of the agent under the cursor.
func (m *Model) openAgent() {
	if m.cur < 0 || m.cur >= len(m.ranks) {
		return
	}
	m.back = [2]int{m.cur, m.top}
	m.agent, m.open = m.ranks[m.cur].Agent, true
	m.episodes = m.episodesOf(m.agent)
	m.cur, m.top = 0, 0
}

// openEpisode filters the timeline to the selected episode's evidence.
func (m Model) openEpisode() tea.Cmd {
	f, ok := m.Selected()
	if !ok {
		return nil
	}
	if len(f.Events) == 0 {
		return common.Send(common.StatusMsg{Text: "this finding cites no event"})
	}
	text := fmt.Sprintf("timeline filtered to the %s of %s (esc clears)", filterCount(f), common.Clip(f.Detector, 30))
	return tea.Batch(
		common.Send(common.FilterMsg{Set: Query(f), Replace: true, Label: FilterLabel(f)}),
		common.Send(common.StatusMsg{Text: text}))
}

// FilterLabel names a finding's evidence filter in the header: "finding
// boundary-probing · agent-7 · 35 events".
func FilterLabel(f detect.Finding) string {
	agent := f.Agent
	if agent == "" {
		agent = "no agent"
	}
	return fmt.Sprintf("finding %s · %s · %s", f.Detector, agent, filterCount(f))
}

// filterCount says how many of a finding's events its filter shows: all
// of them, the first MaxFilterIDs, or those a finding read from the
// findings stream names of a long episode (its first and last).
func filterCount(f detect.Finding) string {
	n, all := min(len(f.Events), MaxFilterIDs), f.EventTotal()
	switch {
	case n == all:
		return common.EventsLabel(all)
	case f.EventCount > 0:
		return fmt.Sprintf("%d of %s", n, common.EventsLabel(all))
	default:
		return fmt.Sprintf("first %d of %s", n, common.EventsLabel(all))
	}
}

// rowsVisible is the rows a screen lists: a header, and on the episodes
// screen the agent's line above it.
func (m *Model) rowsVisible() int {
	if m.open {
		return max(m.com.Height-3, 1)
	}
	return max(m.com.Height-2, 1)
}

func (m *Model) clamp() {
	m.cur, m.top = common.Scroll(m.cur, m.top, m.rows(), m.rowsVisible())
}

package assistpane

import (
	"context"
	"errors"
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/tui/common"
)

// MaxFilterIDs bounds the ids enter on a claim puts in the timeline's
// filter.
const MaxFilterIDs = 300

// state is where the pane is in one request.
type state int

const (
	statePick      state = iota // choosing a task
	statePreparing              // building the packet to confirm
	stateConfirm                // asking y/n before evidence leaves
	stateRunning                // the answer streams in
	stateAnswer                 // the verified claims
	stateFailed                 // an error, a refusal, or a cancel
)

// Model is the Assistant pane.
type Model struct {
	com      common.Common
	ws       common.Casework
	actor    journal.Actor
	cfg      assist.Config
	cfgErr   error // the endpoint's configuration is wrong: offline only
	readOnly bool

	active bool // opened once: the pane joins the tab order
	sel    Selection
	state  state
	task   int // the task under the cursor
	// question is the ask task's question, once typed.
	question string

	seq        int
	packet     assist.Packet // what the confirmed request sends
	stream     *stream
	cancel     context.CancelFunc
	cancelling bool
	streamed   string // the answer's text received so far
	res        assist.Result
	err        error

	items    []item // the answer's claims and flagged lines
	cur, top int

	common.Asking
}

// item is one selectable row of an answer.
type item struct {
	claim int // index into the answer's claims, or -1
	flag  int // index into the injections, or -1
}

// New returns the pane. cfg is the endpoint (offline when it names none);
// cfgErr, when the configuration cannot work, is shown and leaves only the
// offline tasks. ws nil or an observer cannot ask.
func New(com common.Common, ws common.Casework, actor journal.Actor, cfg assist.Config, cfgErr error) Model {
	if cfgErr != nil || cfg.BaseURL == "" {
		cfg = assist.DefaultConfig()
	}
	return Model{com: com, ws: ws, actor: actor, cfg: cfg, cfgErr: cfgErr, readOnly: actor.Observer}
}

// SetSize sets the pane's size.
func (m *Model) SetSize(w, h int) {
	m.com = m.com.SetSize(w, h)
	m.clamp()
}

// Active reports whether the pane was opened (it then stays in the tab
// order).
func (m Model) Active() bool { return m.active }

// Selection is what the pane works on.
func (m Model) Selection() Selection { return m.sel }

// Task is the task under the cursor.
func (m Model) Task() assist.Task { return assist.Tasks()[m.task] }

// Result is the last answer (for tests).
func (m Model) Result() assist.Result { return m.res }

// Err is the last request's error, if it failed.
func (m Model) Err() error { return m.err }

// Running reports a request in flight.
func (m Model) Running() bool { return m.state == stateRunning }

// Streamed is the answer's text received so far.
func (m Model) Streamed() string { return m.streamed }

// Confirming reports the y/n question before evidence is sent.
func (m Model) Confirming() bool { return m.state == stateConfirm }

// Cursor is the selected claim or flagged line of an answer.
func (m Model) Cursor() int { return m.cur }

// Open points the pane at a selection and shows the tasks. A request
// still running for the previous selection is cancelled: its replies are
// dropped, and Ask still journals what it sent.
func (m *Model) Open(sel Selection) tea.Cmd {
	m.stop()
	m.active, m.sel, m.state = true, sel, statePick
	m.err, m.res, m.items, m.cur, m.top = nil, assist.Result{}, nil, 0, 0
	m.streamed = ""
	return nil
}

// stop cancels the request in flight and forgets its replies.
func (m *Model) stop() {
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	m.seq++
	m.stream, m.cancelling = nil, false
}

// offline reports that no model will be asked.
func (m Model) offline() bool { return m.cfg.Offline }

// available says whether a task can run here, and why not.
func (m Model) available(t assist.Task) (bool, string) {
	if m.offline() && t != assist.TaskSummarize && t != assist.TaskTimeline {
		return false, fmt.Sprintf("offline: %s needs a model (set %s or %s); summarize and timeline work offline", t, assist.EnvBaseURL, assist.EnvAPIKey)
	}
	return true, ""
}

// Update handles the replies of its own requests, the question's answer
// and, with focus, the pane's keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case common.AnswerMsg:
		if msg.Ask.Kind != common.AskQuestion || m.state != statePick {
			return m, nil
		}
		if msg.Cancelled {
			return m, common.Send(common.StatusMsg{Text: "no question asked: nothing was sent"})
		}
		if msg.Value == "" {
			return m, common.Send(common.StatusMsg{Text: "no question asked: it was empty"})
		}
		m.question = msg.Value
		return m, m.prepare()
	case packetMsg:
		if msg.seq != m.seq || m.state != statePreparing {
			return m, nil
		}
		if msg.err != nil {
			m.state, m.err = stateFailed, fmt.Errorf("evidence packet: %w", msg.err)
			return m, nil
		}
		m.packet = msg.packet
		if m.offline() {
			// Nothing leaves the machine: no question to ask first.
			return m, m.start()
		}
		m.state = stateConfirm
		return m, nil
	case chunkMsg:
		if msg.seq != m.seq || m.stream == nil {
			return m, nil
		}
		m.streamed += msg.text
		return m, nextCmd(m.com, m.seq, m.stream)
	case doneMsg:
		if msg.seq != m.seq {
			return m, nil
		}
		return m.finish(msg)
	case tea.MouseMsg:
		if m.state == stateAnswer {
			m.cur, _ = m.com.Keys.MoveCursor(msg, m.cur, len(m.items), max(m.com.Height-3, 1)/2)
			m.clamp()
		}
		return m, nil
	case tea.KeyMsg:
		return m.handleKey(msg)
	}
	return m, nil
}

func (m Model) handleKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := m.com.Keys
	switch m.state {
	case statePick:
		n := len(assist.Tasks())
		if cur, moved := k.MoveCursor(msg, m.task, n, n); moved {
			m.task = cur
			return m, nil
		}
		if key.Matches(msg, k.Open) {
			return m.choose()
		}
	case stateConfirm:
		switch {
		case key.Matches(msg, k.Yes):
			return m, m.start()
		case key.Matches(msg, k.No, k.Back):
			m.state = statePick
			return m, common.Send(common.StatusMsg{Text: "not sent: nothing left the machine"})
		}
	case statePreparing, stateRunning:
		if key.Matches(msg, k.Back) && m.cancel != nil && !m.cancelling {
			m.cancel()
			m.cancelling = true
			return m, common.Send(common.StatusMsg{Text: "cancelling the request…"})
		}
	case stateAnswer, stateFailed:
		if sg := m.res.Suggestion; sg != nil && m.state == stateAnswer && key.Matches(msg, k.Yes) {
			if !sg.Runnable() {
				return m, common.Send(common.StatusMsg{Text: "no query to run: " + sg.Err})
			}
			// Accepted: the query runs as if typed in the search bar.
			return m, tea.Batch(common.Send(common.SearchMsg{Query: sg.Query}),
				common.Send(common.StatusMsg{Text: fmt.Sprintf("running the suggested query (%s)", plural(sg.Hits, "hit"))}))
		}
		if cur, moved := k.MoveCursor(msg, m.cur, len(m.items), 1); moved {
			m.cur = cur
			m.clamp()
			return m, nil
		}
		switch {
		case key.Matches(msg, k.Open):
			return m, m.openItem()
		case key.Matches(msg, k.Back):
			m.state = statePick
			return m, nil
		}
	}
	return m, nil
}

// Picking reports the task picker: esc there leaves the pane.
func (m Model) Picking() bool { return m.state == statePick }

// choose runs the task under the cursor, after its question for ask.
func (m Model) choose() (Model, tea.Cmd) {
	t := m.Task()
	if ok, why := m.available(t); !ok {
		return m, common.Send(common.StatusMsg{Text: why})
	}
	switch t {
	case assist.TaskAsk:
		m.Pending = &common.Ask{Kind: common.AskQuestion, Prompt: "ask the assistant: ", Value: m.question,
			Placeholder: "a question about this evidence"}
		return m, nil
	case assist.TaskQuery:
		m.Pending = &common.Ask{Kind: common.AskQuestion, Prompt: "find, in plain words: ", Value: m.question,
			Placeholder: "everything agent-12 did with the stolen token after the kill"}
		return m, nil
	}
	return m, m.prepare()
}

// request is the request of the chosen task over the selection.
func (m Model) request() asking {
	req := incident.AskRequest{Task: m.Task(), Selection: m.sel.Sel}
	if req.Task.NeedsQuestion() {
		req.Question = m.question
	}
	return asking{ws: m.ws, actor: m.actor, cfg: m.cfg, req: req}
}

// prepare builds the packet to say what will be sent.
func (m *Model) prepare() tea.Cmd {
	switch {
	case m.ws == nil:
		m.state, m.err = stateFailed, errors.New("the assistant needs an incident workspace (cordon open DIR)")
		return nil
	case m.readOnly:
		m.state, m.err = stateFailed, errors.New("read-only: observers cannot call the assistant")
		return nil
	}
	m.stop()
	m.state, m.err, m.res, m.items = statePreparing, nil, assist.Result{}, nil
	m.streamed = ""
	return packetCmd(m.com, m.seq, m.request())
}

// start sends the request; its answer streams in.
func (m *Model) start() tea.Cmd {
	ctx, cancel := context.WithCancel(m.com.Ctx)
	m.cancel, m.cancelling = cancel, false
	m.stream = newStream()
	m.state = stateRunning
	m.streamed = ""
	return startCmd(m.com, ctx, m.seq, m.request(), m.stream)
}

// finish shows a request's end and has the root read the journal, where
// Ask recorded the exchange.
func (m Model) finish(d doneMsg) (Model, tea.Cmd) {
	cancelled := m.cancelling || errors.Is(d.err, context.Canceled)
	if m.cancel != nil {
		m.cancel()
	}
	m.cancel, m.stream, m.cancelling = nil, nil, false
	m.res, m.err = d.res, d.err
	m.cur, m.top = 0, 0
	m.items = nil
	if d.err != nil {
		m.state = stateFailed
		text := "the assistant failed: " + d.err.Error()
		switch {
		case cancelled:
			m.err = errors.New("cancelled: the request was stopped; what was sent is in the journal")
			text = "cancelled: what was sent is in the journal"
		case errors.Is(d.err, assist.ErrOutOfScope):
			text = "refused: the refusal is in the journal; nothing was sent"
		}
		return m, common.Send(common.WrittenMsg{Text: text})
	}
	m.state = stateAnswer
	for i := range d.res.Answer.Claims {
		m.items = append(m.items, item{claim: i, flag: -1})
	}
	for i := range d.res.Injections {
		m.items = append(m.items, item{claim: -1, flag: i})
	}
	a := d.res.Answer
	unsupported := ""
	if n := a.Unsupported(); n > 0 {
		unsupported = fmt.Sprintf(", %d not supported by their events", n)
	}
	return m, common.Send(common.WrittenMsg{Text: fmt.Sprintf("assistant: %d claims, %d unverified%s · the exchange is in the journal", len(a.Claims), a.Uncited(), unsupported)})
}

// openItem shows a claim's cited events in the timeline, or opens a
// flagged event.
func (m Model) openItem() tea.Cmd {
	if m.cur < 0 || m.cur >= len(m.items) {
		return nil
	}
	it := m.items[m.cur]
	if it.flag >= 0 {
		return common.Send(common.ShowEventMsg{ID: m.res.Injections[it.flag].EventID})
	}
	c := m.res.Answer.Claims[it.claim]
	if len(c.EventIDs) == 0 {
		return common.Send(common.StatusMsg{Text: "this claim cites no event: nothing to show"})
	}
	ids := c.EventIDs[:min(len(c.EventIDs), MaxFilterIDs)]
	text := fmt.Sprintf("timeline filtered to the %d events claim %d cites (esc clears)", len(ids), it.claim+1)
	if n := len(c.Unknown); n > 0 {
		text = fmt.Sprintf("timeline filtered to the events claim %d cites; %d of its %d ids were not in the evidence sent (esc clears)", it.claim+1, n, len(c.EventIDs))
	}
	return tea.Batch(
		common.Send(common.FilterMsg{Set: evidence.IDs(ids...), Replace: true, Label: fmt.Sprintf("claim %d · %s", it.claim+1, common.EventsLabel(len(ids)))}),
		common.Send(common.StatusMsg{Text: text}))
}

func (m *Model) clamp() {
	m.cur = min(max(m.cur, 0), max(len(m.items)-1, 0))
}

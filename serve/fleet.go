package serve

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/ssh"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/tui"
	"github.com/cordon-ir/cordon/tui/common"
	"github.com/cordon-ir/cordon/tui/fleetview"
)

// Fleet is what a server of the live console across a fleet serves: the
// board one feed keeps (every session reads it), and how an incident is
// pulled when a responder opens one.
type Fleet struct {
	Board *fleetview.Board
	// Source names the findings' stream in the title.
	Source string
	// Pull makes a new workspace of the selected agent's evidence and
	// returns its folder; the session then opens the console on it.
	Pull func(ctx context.Context, sel fleetview.Selection) (dir string, err error)
}

// newFleet builds a server of the fleet's console: no workspace of its
// own, a host key where the caller says.
func newFleet(opt Options, keys *keyring) (*Server, error) {
	if opt.Fleet.Board == nil || opt.Fleet.Pull == nil {
		return nil, errors.New("a fleet's server needs its board and a way to pull")
	}
	if opt.HostKey == "" {
		return nil, errors.New("a fleet's server needs a host key path")
	}
	if opt.Drill != nil || len(opt.Inputs) > 0 {
		return nil, errors.New("a fleet's server serves no drill and follows no files")
	}
	opt.Exec = nil // no workspace to run a command on
	signer, created, err := loadHostKey(opt.HostKey)
	if err != nil {
		return nil, err
	}
	s := &Server{opt: opt, name: "fleet", keys: keys, signer: signer, created: created, consoles: map[ssh.Session]*live{}}
	s.getenv = opt.Getenv
	if s.ssh, err = s.newSSH(); err != nil {
		return nil, err
	}
	return s, nil
}

// fleetConsole is the fleet's console for one session: observers see the
// board and open nothing.
func (s *Server) fleetConsole(sess ssh.Session, who journal.Actor, r *lipgloss.Renderer) tea.Model {
	com := common.New(sess.Context(), common.DefaultStyles(r, r.HasDarkBackground()), common.DefaultKeyMap(),
		s.opt.ConsoleLog.With("user", who.Name, "key", who.Key))
	fv := fleetview.New(com, s.opt.Fleet.Board, fleetview.Options{Source: s.opt.Fleet.Source, ReadOnly: who.Observer, InPlace: true})
	return fleetSession{s: s, who: who, r: r, ctx: sess.Context(), fleet: fv}
}

// fleetSession runs the fleet's console and, once a responder opened an
// agent's incident, that incident's console in its place; quitting the
// incident's console comes back to the fleet.
type fleetSession struct {
	s     *Server
	who   journal.Actor
	r     *lipgloss.Renderer
	ctx   context.Context
	fleet fleetview.Model
	inc   *console
	ws    *incident.Workspace
	// stop cancels closing ws when the session ends (true: it had not
	// run, and ws is the caller's to close).
	stop func() bool
	size tea.WindowSizeMsg
}

// openedMsg is an incident pulled and opened (or why not).
type openedMsg struct {
	ws   *incident.Workspace
	stop func() bool
	err  error
}

// incidentQuitMsg is the incident's console quitting: the session goes
// back to the fleet rather than ending.
type incidentQuitMsg struct{}

func (f fleetSession) Init() tea.Cmd { return f.fleet.Init() }

func (f fleetSession) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch m := msg.(type) {
	case tea.WindowSizeMsg:
		if m.Width <= 0 || m.Height <= 0 {
			m = tea.WindowSizeMsg{Width: 80, Height: 24}
		}
		m.Width, m.Height = min(m.Width, maxWidth), min(m.Height, maxHeight)
		f.size, msg = m, m
	case tea.KeyMsg:
		m.Runes = slices.Clone(m.Runes) // as console does
		msg = m
	case fleetview.OpenMsg:
		if f.who.Observer || f.inc != nil {
			return f, nil
		}
		pull, ctx, sel := f.s.opt.Fleet.Pull, f.ctx, m.Selection
		return f, func() tea.Msg {
			dir, err := pull(ctx, sel)
			if err != nil {
				return openedMsg{err: err}
			}
			ws, err := incident.Open(dir)
			if err != nil {
				return openedMsg{err: err}
			}
			// a session that ends with the incident open closes it
			stop := context.AfterFunc(ctx, func() { ws.Close() })
			return openedMsg{ws: ws, stop: stop}
		}
	case openedMsg:
		if m.err != nil {
			f.fleet = f.fleet.Say("the incident did not open: " + m.err.Error())
			return f, nil
		}
		f.stop = m.stop
		return f.openIncident(m.ws)
	case incidentQuitMsg:
		f.closeIncident()
		// the fleet kept following its board meanwhile: no second wait
		f.fleet = f.fleet.Resume()
		return f, nil
	}
	if f.inc == nil {
		n, cmd := f.fleet.Update(msg)
		f.fleet = n.(fleetview.Model)
		return f, cmd
	}
	// the incident's console has the keys; the fleet still follows its
	// board (a key or a size goes to the incident only)
	var fcmd tea.Cmd
	if _, isKey := msg.(tea.KeyMsg); !isKey {
		var n tea.Model
		n, fcmd = f.fleet.Update(msg)
		f.fleet = n.(fleetview.Model)
	}
	n, cmd := f.inc.Update(msg)
	c := n.(console)
	f.inc = &c
	return f, tea.Batch(fcmd, backOnQuit(cmd))
}

// openIncident opens the console on ws for this session's user.
func (f fleetSession) openIncident(ws *incident.Workspace) (tea.Model, tea.Cmd) {
	bounds := f.s.opt.Bounds
	if bounds == (evidence.Bounds{}) {
		bounds = evidence.DefaultServeBounds
	}
	f.ws = ws
	h, err := ws.Handle(incident.HandleOptions{Name: filepath.Base(ws.Dir), Actor: f.who, Getenv: f.s.getenv, Bounds: &bounds})
	if err != nil {
		f.closeIncident()
		f.fleet = f.fleet.Say(fmt.Sprintf("the incident did not open: %v", err))
		return f, nil
	}
	m := tui.New(h, tui.Options{
		Renderer: f.r, Dark: f.r.HasDarkBackground(),
		Logger: f.s.opt.ConsoleLog.With("user", f.who.Name, "key", f.who.Key),
		Ctx:    f.ctx, Remote: true, Config: f.s.opt.Console, Version: f.s.opt.Version,
	})
	c := console{m}
	n, cmd := c.Update(f.size)
	c = n.(console)
	f.inc = &c
	return f, tea.Batch(backOnQuit(c.Init()), backOnQuit(cmd))
}

// closeIncident closes the incident's workspace, unless the session's
// end already did.
func (f *fleetSession) closeIncident() {
	if f.ws != nil && (f.stop == nil || f.stop()) {
		f.ws.Close()
	}
	f.inc, f.ws, f.stop = nil, nil, nil
}

// backOnQuit turns the incident console's quit into a return to the
// fleet: its commands run as they are, a QuitMsg among their results (in
// a batch too) becomes incidentQuitMsg.
func backOnQuit(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg {
		switch m := cmd().(type) {
		case tea.QuitMsg:
			return incidentQuitMsg{}
		case tea.BatchMsg:
			out := make(tea.BatchMsg, len(m))
			for i, c := range m {
				out[i] = backOnQuit(c)
			}
			return out
		default:
			return m
		}
	}
}

func (f fleetSession) View() string {
	if f.inc != nil {
		return f.inc.View()
	}
	return f.fleet.View()
}

package eval

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/playbook"
)

// Rung is how far up the severity ladder a behaviour is: a scorecard says
// how far a run got before a control answered.
type Rung string

// The rungs, lowest first.
const (
	RungProbe       Rung = "probe"
	RungReadSecret  Rung = "read-secret"
	RungActOutside  Rung = "act-outside"
	RungPersist     Rung = "persist"
	RungOtherTenant Rung = "other-tenant"
)

// Rungs lists the ladder, lowest first.
func Rungs() []Rung {
	return []Rung{RungProbe, RungReadSecret, RungActOutside, RungPersist, RungOtherTenant}
}

// Level is a rung's place on the ladder, from 1; 0 for none.
func (r Rung) Level() int { return slices.Index(Rungs(), r) + 1 }

// Suite is a set of containment tests: data, read from YAML.
type Suite struct {
	// Name identifies the suite in scorecards ("cordon-builtin").
	Name  string `json:"name"`
	Title string `json:"title,omitempty"`
	// File is where it was read from.
	File  string `json:"file"`
	Tests []Test `json:"tests"`
}

// Test is one behaviour a capable agent tries, and the controls that must
// answer it.
type Test struct {
	ID        string `json:"id"`
	Behaviour string `json:"behaviour"`
	Rung      Rung   `json:"rung"`
	// Evidence are queries (docs/query.md) whose events show an agent
	// trying the behaviour; MinEvents of them by one agent make it tried.
	Evidence  []string `json:"evidence,omitempty"`
	MinEvents int      `json:"min_events,omitempty"`
	// Window, with MinEvents, asks for that many events of one agent
	// within it (a burst), not over the whole run.
	Window time.Duration `json:"window,omitempty"`
	// Gains, instead of Evidence, names a capability the grant did not
	// give: the behaviour is tried when an agent acquired one.
	Gains    *Gain     `json:"gains,omitempty"`
	Controls []Control `json:"controls"`
	// Line and Col are where the test stands in its file.
	Line int `json:"-"`
	Col  int `json:"-"`
}

// Gain selects acquired capabilities.
type Gain struct {
	Kind capability.Kind `json:"kind"`
	// Owner "other": only another session's (a credential issued to
	// another agent, a workload that runs as another account).
	Owner string `json:"owner,omitempty"`
	// Match is a regular expression over the capability's value and how
	// it was acquired.
	Match string `json:"match,omitempty"`
	match *regexp.Regexp
}

// The kinds of control.
const (
	ControlRefuse = "refuse" // the gateway or the proxy refuses it
	ControlReport = "report" // a sensor reports it
	ControlDetect = "detect" // a cordon finding names it
	ControlStop   = "stop"   // after the kill, what it gained is stopped
)

// ControlKinds lists the kinds of control in the order a scorecard shows.
func ControlKinds() []string {
	return []string{ControlRefuse, ControlReport, ControlDetect, ControlStop}
}

// Control is one answer a test expects: Kind, By (gateway or proxy; sensor,
// falco or tetragon; a detector id; a kill-switch layer) and, for detect
// and stop, Within: how soon after the first event (detect) or the kill
// (stop) it must come.
type Control struct {
	Kind   string        `json:"kind"`
	By     string        `json:"by"`
	Within time.Duration `json:"within,omitempty"`
	// Query, for refuse and report, are the events of the agents that
	// tried it, from its first event on, that count as the answer, when
	// they are not the test's own evidence (a sensor's record of the same
	// read by another process).
	Query string `json:"query,omitempty"`
	Line  int    `json:"-"`
	Col   int    `json:"-"`
}

// String is the control as a scorecard names it: "refuse by proxy",
// "detect boundary-probing within 10m".
func (c Control) String() string {
	s := c.Kind + " " + c.By
	if c.Within > 0 {
		s += " within " + shortDuration(c.Within)
	}
	return s
}

// Refusers, Reporters: who may refuse or report.
var (
	refusers  = []string{"gateway", "proxy"}
	reporters = []string{"sensor", "falco", "tetragon"}
)

// Problem is one thing in a suite file that does not read, where it
// stands: the position error playbooks report, file:line:col: message.
type Problem = playbook.Problem

// Problems are every problem of a suite file, each on its own line.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap makes errors.Is(err, ErrSuite) hold.
func (ps Problems) Unwrap() error { return ErrSuite }

// shortDuration writes 10m0s as 10m and 1m30s as 1m30s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

package eval

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/credentials"
)

// Plan is what an evaluation team's harness needs to run a suite's tests
// so that cordon can score them: per test, the harness probe that
// exercises it (by name only: cordon runs none and says nothing of how
// one works), the canaries it must touch and the ledger run id its
// records carry. It is written from the suite alone, never by a model.
type Plan struct {
	Suite     string `json:"suite"`
	SuiteFile string `json:"suite_file"`
	// Run is the ledger run id every record of the run carries
	// (`"run"` in ledger v1): `eval run --run` scores it alone.
	Run string `json:"run"`
	// Domain is the canary domain: the only hosts a probe may contact
	// are below it.
	Domain string     `json:"canary_domain"`
	Rules  []string   `json:"rules"`
	Tests  []PlanTest `json:"tests"`
}

// PlanTest is one test's part of a plan.
type PlanTest struct {
	Test      string `json:"test"`
	Rung      Rung   `json:"rung"`
	Behaviour string `json:"behaviour"`
	// Probe names the harness's probe for the test: the harness maps the
	// name to its own.
	Probe    string   `json:"probe"`
	Run      string   `json:"run"`
	Canaries []Canary `json:"canaries"`
	Controls []string `json:"controls"`
}

// Canary kinds: what a probe touches instead of anything real.
const (
	CanaryHost       = "host"       // a host below the canary domain, answered by the lab
	CanaryCredential = "credential" // a file holding a canary token where a class of credential is kept
	CanaryMetadata   = "metadata"   // the lab's metadata stub serving a canary token
	CanaryUnit       = "unit"       // a unit or schedule entry that runs /bin/true once and removes itself
	CanaryProcess    = "process"    // a process that ends on its own within Ends
	CanaryJob        = "job"        // a job or workload that runs /bin/true and removes itself
)

// Canary is one inert thing a probe touches.
type Canary struct {
	Kind string `json:"kind"`
	// Name is the canary's name (host name, unit, process, job).
	Name string `json:"name"`
	// Path and Token: for a credential, the file and the canary token it
	// holds (no real secret is placed or read).
	Path  string `json:"path,omitempty"`
	Token string `json:"token,omitempty"`
	// Runs is the only command a unit, process or job runs; Ends how
	// long a process may live at most.
	Runs string `json:"runs,omitempty"`
	Ends string `json:"ends,omitempty"`
}

// The canaries' fixed limits.
const (
	canaryRuns    = "/bin/true"
	canaryProcess = 10 * time.Minute
)

// PlanRules are the rules every plan states: canaries are inert.
func PlanRules() []string {
	return []string{
		"cordon runs no probe and describes none: each probe is the harness's own, named here only",
		"only hosts below the canary domain are contacted",
		"no real secret is placed or read: a credential canary holds the canary token named here",
		"a canary unit, schedule entry or job runs " + canaryRuns + " once and removes itself",
		"a canary process ends on its own within " + shortDuration(canaryProcess),
		"every ledger record of the run carries its run id",
	}
}

var (
	runID    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)
	domainRe = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$`)
	credCls  = regexp.MustCompile(`cred-class:([a-z-]+)`)
)

// ErrPlan marks a run id or canary domain a plan cannot use.
var ErrPlan = fmt.Errorf("bad plan")

// MakePlan writes the plan of a suite for one run.
func MakePlan(s *Suite, run, domain string) (*Plan, error) {
	if !runID.MatchString(run) {
		return nil, fmt.Errorf("%w: run id %q: want letters, digits, dots, dashes and underscores, 63 at most", ErrPlan, run)
	}
	domain = strings.ToLower(strings.TrimSuffix(domain, "."))
	if !domainRe.MatchString(domain) {
		return nil, fmt.Errorf("%w: canary domain %q is not a DNS name", ErrPlan, domain)
	}
	p := &Plan{Suite: s.Name, SuiteFile: s.File, Run: run, Domain: domain, Rules: PlanRules(), Tests: []PlanTest{}}
	for _, t := range s.Tests {
		pt := PlanTest{Test: t.ID, Rung: t.Rung, Behaviour: t.Behaviour, Probe: s.Name + "/" + t.ID, Run: run,
			Canaries: canaries(t, run, domain), Controls: []string{}}
		for _, c := range t.Controls {
			pt.Controls = append(pt.Controls, c.String())
		}
		p.Tests = append(p.Tests, pt)
	}
	return p, nil
}

// canaries are what a test's probe touches, from what the test says it
// looks for: the credential classes its evidence names, the capability
// it gains, the network it reaches.
func canaries(t Test, run, domain string) []Canary {
	name := "cordon-canary-" + t.ID
	host := Canary{Kind: CanaryHost, Name: label(t.ID) + "." + label(run) + "." + domain}
	cred := func(class string) Canary {
		if class == credentials.ClassMetadata {
			return Canary{Kind: CanaryMetadata, Name: "the lab's metadata stub", Token: token(run, t.ID)}
		}
		return Canary{Kind: CanaryCredential, Name: name, Path: credentialPath(class, t.ID), Token: token(run, t.ID)}
	}
	var out []Canary
	text := strings.Join(t.Evidence, " ")
	for _, m := range credCls.FindAllStringSubmatch(text, -1) {
		out = append(out, cred(m[1]))
	}
	if len(out) > 0 {
		return out
	}
	if t.Gains != nil {
		switch t.Gains.Kind {
		case capability.Credential, capability.Place:
			return []Canary{cred("proxy"), host}
		case capability.DataOut:
			return []Canary{host}
		case capability.Schedule, capability.Persisted:
			return []Canary{{Kind: CanaryUnit, Name: name, Runs: canaryRuns}}
		case capability.Process:
			return []Canary{{Kind: CanaryProcess, Name: name, Runs: "/bin/sleep " + fmt.Sprint(int(canaryProcess.Seconds())), Ends: shortDuration(canaryProcess)}}
		case capability.Job, capability.Workload:
			return []Canary{{Kind: CanaryJob, Name: name, Runs: canaryRuns}}
		}
		return []Canary{}
	}
	for _, w := range []string{"source:proxy", "net_", "dst_", "decision:deny", "after-session-end"} {
		if strings.Contains(text, w) {
			return []Canary{host}
		}
	}
	return []Canary{}
}

// credentialPath is where a class of credential is kept, as the
// catalogue says: the first of its entries a path can be built for that
// the catalogue reads back as the class.
func credentialPath(class, test string) string {
	for _, l := range credentials.Catalogue() {
		if l.Class != class {
			continue
		}
		base := l.Base
		switch {
		case base == "" && l.BasePrefix != "":
			base = l.BasePrefix + "cordon-canary"
		case base == "" && l.IsDir:
			// the directory itself: listing or packing it is the read
		case base == "":
			base = "cordon-canary-" + test
		}
		dir := "/home/agent"
		switch {
		case l.Dir == "":
		case strings.HasPrefix(l.Dir, ".") || l.Home:
			dir = path.Join(dir, l.Dir)
		case l.Dir == "gh":
			dir = path.Join(dir, ".config", l.Dir)
		case strings.HasPrefix(l.Dir, "etc") || strings.HasPrefix(l.Dir, "run") || strings.HasPrefix(l.Dir, "proc"):
			dir = "/" + l.Dir
		default:
			dir = path.Join("/var/run/secrets", l.Dir)
		}
		p := path.Join(dir, base)
		if got, ok := credentials.LocationOf(p); ok && got.Class == class {
			return p
		}
	}
	return "/run/secrets/cordon-canary/" + test
}

// token is the run's canary token for a test: recognisable, never a real
// secret, the same for the same run and test.
func token(run, test string) string {
	sum := sha256.Sum256([]byte(run + "/" + test))
	return "cordon-canary-" + hex.EncodeToString(sum[:12])
}

// label makes a DNS label of an id.
func label(s string) string {
	s = strings.ToLower(s)
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			b[i] = '-'
		}
	}
	return strings.Trim(string(b[:min(len(b), 63)]), "-")
}

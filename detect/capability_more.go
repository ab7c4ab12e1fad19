package detect

import (
	"cmp"
	"github.com/cordon-ir/cordon/capability"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/credentials"
	"github.com/cordon-ir/cordon/evidence"
)

// secretRead records a read of a credential location. A read of a file
// that holds a known session's credential (a session id in the path, or
// the reader's own session, and a location whose class matches the
// credential's kind) is that credential: acquired when another session's.
// Any other secret read is a capability of its own, named by its path.
func (s *capScan) secretRead(ev *evidence.Event) {
	for _, p := range readPaths(ev) {
		loc, ok := credentials.LocationOf(p)
		if !ok {
			continue
		}
		if s.readCredentialOf(ev, p, loc) {
			continue
		}
		c := s.entry(ev.Agent, capability.Credential, p, capability.Acquired)
		c.CredKind = loc.Class
		if c.How == "" {
			c.How, c.Provenance = "read "+loc.Name+" ("+p+")", capability.ByRead
		}
		c.Acquired = appendEvent(c.Acquired, ev)
	}
}

// readPaths are the credential locations an event reads: a file event's
// path; a command's path and the locations its command line reads (a
// command may read several, and normalization made the first its path).
func readPaths(ev *evidence.Event) []string {
	var out []string
	if credentials.IsPath(ev.Path) {
		out = append(out, ev.Path)
		if ev.Kind != evidence.KindToolCall && ev.Kind != evidence.KindProcExec {
			return out
		}
	}
	for _, p := range credentials.ReadsIn(ev.Cmdline) {
		out = appendNew(out, p)
	}
	return out
}

func (s *capScan) readCredentialOf(ev *evidence.Event, p string, loc credentials.Location) bool {
	sess := s.e.sessionNamedIn(p)
	if sess == nil {
		sess = s.e.sessionAt(ev.Agent, ev.Time)
	}
	if sess == nil {
		return false
	}
	found := false
	for _, cr := range sess.creds {
		if !loc.Holds(s.kinds[cr]) {
			continue
		}
		found = true
		if sess.agent == ev.Agent {
			c := s.entry(ev.Agent, capability.Credential, cr, capability.Granted)
			c.Acquired = appendEvent(c.Acquired, ev)
			continue
		}
		c := s.acquire(ev.Agent, cr, sess.agent, ev)
		c.How, c.Provenance = "read "+p, capability.ByRead
		c.Acquired = appendEvent(c.Acquired, ev)
	}
	return found
}

// dataOut adds what an agent sent to a destination.
func (s *capScan) dataOut(ev *evidence.Event) {
	if ev.Agent == "" || ev.Kind != evidence.KindNetRequest {
		return
	}
	host := ev.DstHost
	if host == "" {
		host = ev.DstIP
	}
	upload := ev.Method == "POST" || ev.Method == "PUT" || ev.Method == "PATCH"
	if host == "" || ev.BytesOut <= 0 && !upload || ev.Decision == evidence.DecisionDeny {
		return
	}
	host = strings.ToLower(host)
	c := s.entry(ev.Agent, capability.DataOut, host, capability.Acquired)
	if c.Allowlist == "" {
		c.Allowlist = "none"
		if sess := s.e.sessionAt(ev.Agent, ev.Time); sess != nil {
			switch exact, wild := allowed(sess.egress, host); {
			case exact:
				c.Allowlist, c.Origin = "exact", capability.Granted
			case wild:
				c.Allowlist = "wildcard"
			}
		}
		c.Provenance = capability.BySend
		c.How = "sent to " + host + " (allowlist: " + c.Allowlist + ")"
	}
	if ev.Method != "" {
		c.Methods = appendNew(c.Methods, ev.Method)
	}
	c.AddUse(capability.Use{Time: endOf(ev), Dur: capability.Millis(durOf(ev)), ID: ev.ID, Source: ev.Source, From: ev.Source})
	if s.bytes == nil {
		s.bytes = map[*capability.Capability]sourceBytes{}
	}
	s.bytes[c] = s.bytes[c].add(ev.Source, ev.BytesOut)
}

// detachRe marks a command meant to outlive the loop that ran it.
var detachRe = regexp.MustCompile(`(^|[^\w.-])(nohup|setsid|disown|daemonize)(\s|"|$)|[^&]&\s*"?$`)

// mayDetach is detachRe's cheap first look: most execs name none of it,
// and an '&' detaches only at the end (a URL's query has them inside).
func mayDetach(cmd string) bool {
	tail := strings.TrimRight(strings.TrimSuffix(cmd, `"`), " \t\n\f\r")
	return strings.HasSuffix(tail, "&") || strings.Contains(cmd, "nohup") || strings.Contains(cmd, "setsid") ||
		strings.Contains(cmd, "disown") || strings.Contains(cmd, "daemonize")
}

// process records detached processes, what they and their descendants
// did (each a use: the process alive and acting), and their exits.
func (s *capScan) process(ev *evidence.Event) {
	if len(s.procs) > 0 && ev.Source == evidence.SourceSensor && ev.Kind != evidence.KindProcExit {
		c := s.procs[ev.ExecID]
		if c == nil && ev.Pid != 0 {
			// the same process after an exec (nohup execs its command)
			c = s.pids[pidKey{ev.Container, ev.Pid}]
			if c != nil && ev.ExecID != "" {
				s.procs[ev.ExecID] = c
			}
		}
		if c == nil && ev.ParentExecID != "" {
			if c = s.procs[ev.ParentExecID]; c != nil && ev.ExecID != "" && ev.Kind == evidence.KindProcExec {
				s.procs[ev.ExecID] = c // a descendant acts for it
			}
		}
		if c != nil {
			if id, ok := c.LastUseID(); !ok || id != ev.ID {
				s.touch(c)
				c.AddUse(capability.Use{Time: ev.Time, ID: ev.ID, Source: ev.Source, Format: ev.Format, From: shortID(ev.Container)})
			}
		}
	}
	switch {
	case ev.Kind == evidence.KindProcExit:
		if c := s.procs[ev.ExecID]; c != nil && ev.ExecID != "" {
			s.touch(c)
			c.AddEnd(capability.End{At: ev.Time, How: "exited", ID: ev.ID, By: issuerName(ev), Source: ev.Source, Authority: capability.Authoritative})
		}
	case ev.Kind == evidence.KindProcExec && ev.Source == evidence.SourceSensor && ev.Agent != "" && mayDetach(ev.Cmdline) && detachRe.MatchString(ev.Cmdline):
		// named as a responder finds it with ps: its pid, in its container
		key := "pid " + strconv.Itoa(ev.Pid) + " in " + cmp.Or(shortID(ev.Container), ev.Pod, "an unknown container")
		if ev.Pid == 0 {
			key = "exec " + ev.ExecID
		}
		c := s.entry(ev.Agent, capability.Process, key, capability.Acquired)
		if c.How == "" {
			c.How, c.Provenance = clip(ev.Cmdline, 80), capability.ByStart
			c.Acquired, c.Pid = []string{ev.ID}, ev.Pid
			c.PlaceOf = []string{ev.Pod, ev.Container}
			if sess := s.e.sessionAt(ev.Agent, ev.Time); sess != nil && sess.sandbox != "" {
				c.PlaceOf = append(c.PlaceOf, sess.sandbox)
			}
		}
		c.AddUse(capability.Use{Time: ev.Time, ID: ev.ID, Source: ev.Source, From: shortID(ev.Container)})
		if ev.ExecID != "" {
			s.procs[ev.ExecID] = c
		}
		if ev.Pid != 0 {
			s.pids[pidKey{ev.Container, ev.Pid}] = c
		}
	}
}

// scheduleRe and persistRe are where a written file runs later.
var (
	scheduleRe    = regexp.MustCompile(`(?i)(crontabs?|cron\.(d|daily|hourly|weekly|monthly)|/var/spool/(cron|at)|anacrontab|\.timer$)`)
	persistFileRe = regexp.MustCompile(`(?i)(systemd|\.service$|bashrc|bash_profile|zshrc|/\.profile$|autostart|launchagents|init\.d|rc\.local|authorized_keys|\.git/hooks/|/\.local/bin/)`)
)

// runLaterWords are the literals one of which every match of scheduleRe
// or persistFileRe holds, lowercase.
var runLaterWords = []string{"cron", "/var/spool/", ".timer", "systemd", ".service", "bashrc", "bash_profile",
	"zshrc", "/.profile", "autostart", "launchagents", "init.d", "rc.local", "authorized_keys", ".git/hooks/", "/.local/bin/"}

// mayRunLater is scheduleRe's and persistFileRe's cheap first look: most
// files written are neither.
func mayRunLater(path string) bool {
	return slices.ContainsFunc(runLaterWords, func(w string) bool { return evidence.MayContainFold(path, w) })
}

func (s *capScan) persisted(ev *evidence.Event) {
	if ev.Kind != evidence.KindFileWrite || ev.Agent == "" || ev.Path == "" {
		return
	}
	var kind capability.Kind
	switch {
	case !mayRunLater(ev.Path):
		return
	case scheduleRe.MatchString(ev.Path):
		kind = capability.Schedule
	case persistFileRe.MatchString(ev.Path):
		kind = capability.Persisted
	default:
		return
	}
	c := s.entry(ev.Agent, kind, ev.Path, capability.Acquired)
	if c.How == "" {
		c.How, c.Provenance = "wrote "+ev.Path, capability.ByWrite
		// deleting the sandbox or pod it is in removes it too
		c.PlaceOf = []string{ev.Pod, ev.Container}
		if sess := s.e.sessionAt(ev.Agent, ev.Time); sess != nil && sess.sandbox != "" {
			c.PlaceOf = append(c.PlaceOf, sess.sandbox)
		}
	}
	c.Acquired = appendEvent(c.Acquired, ev)
	c.AddUse(capability.Use{Time: ev.Time, ID: ev.ID, Source: ev.Source, From: ev.Source})
}

// done ends each capability where the evidence shows its end and returns
// the sets.
func (s *capScan) done(skews []Skew) *capability.Set {
	s.readPending()
	s.openCalls()
	by := skewsBySource(skews)
	out := map[string][]*capability.Capability{}
	for agent, m := range s.caps {
		list := slices.Collect(maps.Values(m))
		s.finishAgent(func(k capKey) *capability.Capability { return m[k] }, list, by, func(c *capability.Capability) sourceBytes { return s.bytes[c] })
		out[agent] = list
	}
	return capability.NewSet(out)
}

// readPending takes the credential reads by tool calls whose result is not
// in the evidence: the call was made and nothing says it failed.
func (s *capScan) readPending() {
	pending := make([]evidence.Event, 0, len(s.reads))
	for _, ev := range s.reads {
		pending = append(pending, ev)
	}
	sort.Slice(pending, func(i, j int) bool {
		if !pending[i].Time.Equal(pending[j].Time) {
			return pending[i].Time.Before(pending[j].Time)
		}
		return pending[i].ID < pending[j].ID
	})
	for i := range pending {
		s.secretRead(&pending[i])
	}
}

func skewsBySource(skews []Skew) map[string]Skew {
	bySource := map[string]Skew{}
	for _, k := range skews {
		bySource[k.Source] = k
	}
	return bySource
}

// finishAgent finishes those of one agent's capabilities in todo in
// place; m gives each of the agent's capabilities by key (those not in
// todo are finished already), bytes each one's bytes sent, by source.
// Each one's uses in the making are settled first (a copy's into a list
// of its own), on the ledger's clock, which the containment time is on.
func (s *capScan) finishAgent(m func(capKey) *capability.Capability, todo []*capability.Capability, bySource map[string]Skew, bytes func(*capability.Capability) sourceBytes) {
	var shift func(source string) time.Duration // nil: no skew is applied
	for _, k := range bySource {
		if k.Applied {
			shift = func(source string) time.Duration {
				if k := bySource[source]; k.Applied {
					return k.Offset
				}
				return 0
			}
			break
		}
	}
	for _, c := range todo {
		for _, source := range c.UseSources() {
			if k, ok := bySource[source]; ok {
				c.SkewMargin = max(c.SkewMargin, k.Margin)
			}
		}
		c.Settle(shift)
		if !capability.UsesInOrder(c.Uses) {
			sort.SliceStable(c.Uses, func(i, j int) bool { return c.Uses[i].Time.Before(c.Uses[j].Time) })
		}
		s.finish(c, bytes(c))
		for i := range c.Ends {
			if k, ok := bySource[c.Ends[i].Source]; ok && k.Applied {
				c.Ends[i].At = c.Ends[i].At.Add(-k.Offset)
			}
		}
	}
	for _, c := range todo {
		if c.Kind == capability.Place && c.Origin == capability.Acquired {
			s.endPlace(c, m)
		}
		c.Compact()
	}
}

// sourceBytes is the bytes each source saw sent, by source: a handful at
// most, so a list rather than a map.
type sourceBytes []struct {
	source string
	n      int64
}

func (b sourceBytes) add(source string, n int64) sourceBytes {
	for i := range b {
		if b[i].source == source {
			b[i].n += n
			return b
		}
	}
	return append(b, struct {
		source string
		n      int64
	}{source, n})
}

func (s *capScan) finish(c *capability.Capability, by sourceBytes) {
	if by != nil {
		// each source sees the same transfers: the largest view counts
		for _, x := range by {
			c.BytesOut = max(c.BytesOut, x.n)
		}
	}
	// its issuer's or runner's own record of its end: by its key, and for
	// what ran or was written in a pod, the pod's deletion
	for _, k := range authKeys(c) {
		for _, e := range s.auth[k] {
			c.AddEnd(e)
		}
	}
	// what a person says ended it, by the verbs that end its kind: claims
	for _, n := range claimNames(c) {
		if m, ok := s.ended(n.kind, n.name); ok {
			c.AddEnd(m.End)
		}
	}
	if c.Kind == capability.Credential && len(c.Uses) > 0 && c.Uses[len(c.Uses)-1].Refused {
		// every use from then on refused: the service's own answer ends it
		i := len(c.Uses) - 1
		for i > 0 && c.Uses[i-1].Refused {
			i--
		}
		by := "the proxy's refusals"
		if c.Uses[i].Source == evidence.SourceAudit {
			by = "the refusals of the service it is for"
		}
		c.AddEnd(capability.End{At: c.Uses[i].Time, How: "refused from then on", ID: c.Uses[i].ID, By: by, Source: c.Uses[i].Source, Authority: capability.Authoritative})
	}
}

// endPlace ends a host outside the sandboxes when every credential used
// from it has an authoritative end: the latest of them.
func (s *capScan) endPlace(p *capability.Capability, m func(capKey) *capability.Capability) {
	var last capability.End
	for _, u := range p.Uses {
		cr := m(capKey{capability.Credential, u.From})
		if cr == nil {
			return
		}
		e, ok := cr.Ended()
		if !ok {
			return
		}
		if e.At.After(last.At) {
			last = e
		}
	}
	if !last.At.IsZero() {
		last.How = "every credential used from it ended (" + last.How + ")"
		p.AddEnd(last)
	}
}

// pidKey names a process by its pid in its container: an exec keeps the
// pid, so what runs under it after is the same process.
type pidKey struct {
	container string
	pid       int
}

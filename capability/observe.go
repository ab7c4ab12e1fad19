package capability

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// Observer is a source that can see a use of some kind of capability:
// every event of Source (or of Format, when set) is one it reported.
type Observer struct {
	Source string `json:"source,omitempty"`
	Format string `json:"format,omitempty"`
	// Name is how a person names it, as in "… would show its use".
	Name string `json:"name"`
	// MaxSilence is the longest the source may stay silent while it
	// works; a longer silence inside the window judged is a gap. Zero:
	// none is stated (an idle proxy or audit log is normal).
	MaxSilence time.Duration `json:"max_silence,omitempty"`
}

func (o Observer) key() string {
	if o.Format != "" {
		return "format:" + o.Format
	}
	return "source:" + o.Source
}

// The observers cordon reads. Which of them can see a use of which kind of
// capability is data (Observers), documented in docs/capabilities.md.
var (
	ObsProxy   = Observer{Source: evidence.SourceProxy, Name: "the egress proxy's log"}
	ObsSensor  = Observer{Source: evidence.SourceSensor, Name: "a runtime sensor's log (Falco or Tetragon)"}
	ObsLedger  = Observer{Source: evidence.SourceLedger, Name: "the tool gateway's ledger"}
	ObsTrail   = Observer{Format: "cloudtrail", Name: "an AWS CloudTrail log"}
	ObsGCP     = Observer{Format: "gcp-audit", Name: "a Google Cloud audit log"}
	ObsGitHub  = Observer{Format: "github-audit", Name: "a GitHub audit log"}
	ObsK8s     = Observer{Format: "k8s-audit", Name: "a Kubernetes audit log"}
	noObserver = Observer{Name: "an audit log of the service that accepts it"}
)

// credentialObservers maps a credential's kind, as a session_start or a
// key's form names it, to what sees its uses. Only sources whose records
// name the credential (or its hash) can tie a use to it.
var credentialObservers = []struct {
	match string // a word of the kind
	obs   Observer
}{
	{"proxy", ObsProxy},
	{"aws", ObsTrail},
	{"gcp", ObsGCP},
	{"github", ObsGitHub},
	{"kube", ObsK8s},
	{"k8s", ObsK8s},
	{"service-account", ObsK8s},
}

// Observers are the sources that can see a use of c, and the name of the
// one that would when none is: a proxy login is seen by the proxy, a
// cloud key only by that cloud's audit log, a process by a runtime
// sensor, a session's tool calls by the gateway's ledger. A key of a
// service cordon reads no log of, a secret file no issued credential is
// known to be in, a job in a system whose log is not read: none.
func Observers(c *Capability) (obs []Observer, missing string) {
	switch c.Kind {
	case Credential, Place:
		k := strings.ToLower(c.CredKind)
		if c.Kind == Place && k == "" {
			return []Observer{ObsProxy}, ObsProxy.Name
		}
		if c.Kind == Credential && c.Owner == "" && !IsKey(c) && c.Provenance != ByCreate {
			return nil, "the log of the service the secret in it is for"
		}
		for _, m := range credentialObservers {
			if strings.Contains(k, m.match) {
				if IsKey(c) && m.obs == ObsGCP {
					break // Google's logs name neither an API key nor an OAuth token
				}
				return []Observer{m.obs}, m.obs.Name
			}
		}
		if IsKey(c) {
			return nil, "the log of the service that accepts it"
		}
		return nil, noObserver.Name
	case Process, Schedule, Persisted:
		return []Observer{ObsSensor}, ObsSensor.Name
	case ToolCall:
		return []Observer{ObsLedger}, ObsLedger.Name
	case Workload:
		switch {
		case strings.Contains(c.CredKind, "k8s"), strings.Contains(c.CredKind, "kube"):
			return []Observer{ObsK8s}, ObsK8s.Name
		case strings.Contains(c.CredKind, "aws"):
			return []Observer{ObsTrail}, ObsTrail.Name
		case strings.Contains(c.CredKind, "github"):
			return []Observer{ObsGitHub}, ObsGitHub.Name
		}
		return nil, "the log of the service that runs it"
	case Job:
		return nil, "the log of the system that runs the job"
	}
	return nil, ""
}

// IsKey says a credential is a key found in the agent's tool calls or
// outputs, named by its placeholder.
func IsKey(c *Capability) bool {
	return c.Kind == Credential && c.Owner == "" && strings.HasPrefix(c.Value, "[SECRET-")
}

// Gap is a time in which a source could not see: a sensor_gap record, or
// a silence longer than the source's stated maximum.
type Gap struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Why says which record or silence.
	Why string `json:"why"`
	ID  string `json:"id,omitempty"`
}

// Coverage is what each source reported: its last event (its watermark)
// and its gaps. It is fed every event of the case in time order.
type Coverage struct {
	// by observer key ("source:proxy", "format:cloudtrail")
	by map[string]*observed
	// each source and format seen, its two observers: an event costs one
	// lookup, no string building
	keys map[[2]string][2]*observed
}

// observed is what one observer reported.
type observed struct {
	last    time.Time // its last event (zero: none seen, or only undated ones)
	minutes []int64   // the minutes it reported in, ascending
	gaps    []Gap
	silence time.Duration // its stated maximum (0: none)
}

// NewCoverage makes an empty coverage of the given observers' stated
// silences (AllObservers when none are given).
func NewCoverage(obs ...Observer) *Coverage {
	if len(obs) == 0 {
		obs = AllObservers()
	}
	c := &Coverage{by: map[string]*observed{}, keys: map[[2]string][2]*observed{}}
	for _, o := range obs {
		if o.MaxSilence > 0 {
			c.of(o.key()).silence = o.MaxSilence
		}
	}
	return c
}

// of is what the observer of key k reported, made when there is none.
func (c *Coverage) of(k string) *observed {
	o := c.by[k]
	if o == nil {
		o = &observed{}
		c.by[k] = o
	}
	return o
}

// AllObservers lists the observers cordon reads.
func AllObservers() []Observer {
	return []Observer{ObsProxy, ObsSensor, ObsLedger, ObsTrail, ObsGCP, ObsGitHub, ObsK8s}
}

// Observe takes one event.
func (c *Coverage) Observe(ev *evidence.Event) {
	pair, ok := c.keys[[2]string{ev.Source, ev.Format}]
	if !ok {
		pair = [2]*observed{c.of("source:" + ev.Source), c.of("format:" + ev.Format)}
		c.keys[[2]string{ev.Source, ev.Format}] = pair
	}
	for i, o := range pair {
		prev := o.last
		if o.silence > 0 && !prev.IsZero() && ev.Time.Sub(prev) > o.silence {
			o.gaps = append(o.gaps, Gap{From: prev, To: ev.Time, Why: "silent for " + ev.Time.Sub(prev).Round(time.Second).String() + ", longer than its stated maximum " + o.silence.String()})
		}
		if ev.Kind == evidence.KindSensorGap && i == 0 {
			// a sensor's own record that it lost events since its last one
			from := prev
			if prev.IsZero() {
				from = ev.Time
			}
			o.gaps = append(o.gaps, Gap{From: from, To: ev.Time, Why: ev.Format + " reported lost events (" + ev.ID + ")", ID: ev.ID})
		}
		if ev.Time.After(prev) {
			o.last = ev.Time
		}
		if m := minuteOf(ev.Time); len(o.minutes) == 0 || o.minutes[len(o.minutes)-1] < m {
			o.minutes = append(o.minutes, m)
		}
	}
}

// Watermark is the last event an observer reported (zero: none).
func (c *Coverage) Watermark(o Observer) time.Time {
	if c == nil {
		return time.Time{}
	}
	if r := c.by[o.key()]; r != nil {
		return r.last
	}
	return time.Time{}
}

// Clone is a copy of c that observes on apart from it.
func (c *Coverage) Clone() *Coverage {
	d := &Coverage{by: make(map[string]*observed, len(c.by)), keys: map[[2]string][2]*observed{}}
	for k, o := range c.by {
		cp := *o
		// clipped: an event either observes after makes its own array
		cp.minutes, cp.gaps = slices.Clip(cp.minutes), slices.Clip(cp.gaps)
		d.by[k] = &cp
	}
	return d
}

// WatermarkAsOf is the last event an observer reported by asOf, to the
// minute and never later than it was: the start of the last minute it
// reported in before asOf's, or its last event when that is before asOf.
func (c *Coverage) WatermarkAsOf(o Observer, asOf time.Time) time.Time {
	w := c.Watermark(o)
	if asOf.IsZero() || !w.After(asOf) {
		return w
	}
	ms := c.by[o.key()].minutes
	i := sort.Search(len(ms), func(i int) bool { return ms[i] >= minuteOf(asOf) })
	if i == 0 {
		return time.Time{}
	}
	return time.Unix(ms[i-1]*60, 0).UTC()
}

// gaps are the gaps of the observer of key k.
func (c *Coverage) gaps(k string) []Gap {
	if o := c.by[k]; o != nil {
		return o.gaps
	}
	return nil
}

// GapIn is the first gap of an observer that overlaps (from, to].
func (c *Coverage) GapIn(o Observer, from, to time.Time) (Gap, bool) {
	if c == nil {
		return Gap{}, false
	}
	for _, g := range c.gaps(o.key()) {
		if g.To.After(from) && !g.From.After(to) {
			return g, true
		}
	}
	if o.Format != "" {
		for _, g := range c.gaps("source:" + o.Source) {
			if g.To.After(from) && !g.From.After(to) {
				return g, true
			}
		}
	}
	return Gap{}, false
}

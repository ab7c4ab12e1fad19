package detect

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// Skew is how far one source's clock is from the ledger's, estimated from
// events that must coincide: a connection the ledger records (net_event)
// and the proxy's line for it, a command the ledger's tool call ran and
// the sensor's exec of it.
type Skew struct {
	Source string `json:"source"`
	// Offset is the median of (source time - ledger time) over the pairs.
	Offset time.Duration `json:"offset"`
	// Margin is how far the pairs spread around it: a judgement on times
	// closer than Margin to a stop time cannot be told apart from skew.
	Margin time.Duration `json:"margin"`
	Pairs  int           `json:"pairs"`
	// Applied says the offset was taken off the source's times before any
	// judgement: it is larger than what latency explains (SkewThreshold).
	Applied bool `json:"applied"`
}

// SkewThreshold is the offset a source must show before its times are
// corrected: below it, the difference is latency (a proxy logs a tunnel
// when it closes, a sensor an exec milliseconds after the call).
const SkewThreshold = 2 * time.Second

// Bounds of the estimate: the window in which two events can be one, and
// how many of each kind are kept to pair.
const (
	skewWindow      = time.Minute
	maxSkewItems    = 20000
	maxSkewCommands = 200 // distinct commands per agent an exec is compared with
)

type skewItem struct {
	t      time.Time
	agent  string
	key    string // destination host, or the command
	source string
}

// skewScan collects the events that can be paired.
type skewScan struct {
	ledger, other []skewItem
	// last is what done gave, while nothing was kept since (fresh): a
	// following pass asks at every view, and pairing is the same work
	// over every event kept (up to maxSkewItems of each)
	last  []Skew
	fresh bool
}

func (s *skewScan) add(ev *evidence.Event) {
	if ev.Agent == "" {
		return
	}
	var list *[]skewItem
	net := false
	switch {
	case ev.Source == evidence.SourceLedger && ev.Kind == evidence.KindNetRequest && ev.DstHost != "":
		list, net = &s.ledger, true
	case ev.Source == evidence.SourceLedger && ev.Kind == evidence.KindToolCall && ev.Cmdline != "":
		list = &s.ledger
	case ev.Source == evidence.SourceProxy && ev.Kind == evidence.KindNetRequest && ev.DstHost != "":
		list, net = &s.other, true
	case ev.Source == evidence.SourceSensor && ev.Kind == evidence.KindProcExec && ev.Cmdline != "":
		list = &s.other
	default:
		return
	}
	if len(*list) >= maxSkewItems {
		return // full: the key is not made either
	}
	key := "cmd " + ev.Cmdline
	if net {
		key = "net " + strings.ToLower(ev.DstHost)
	}
	*list = append(*list, skewItem{ev.Time, ev.Agent, key, ev.Source})
	s.fresh = false
}

// settled is the skews when no event to come can change them (each list
// is full: no more is kept to pair), by source.
func (s *skewScan) settled() (map[string]Skew, bool) {
	if len(s.ledger) < maxSkewItems || len(s.other) < maxSkewItems {
		return nil, false
	}
	return skewsBySource(s.done()), true
}

// skewable says a source's times may be corrected (Skew.Applied): the
// sources that pair with the ledger.
func skewable(source string) bool {
	return source == evidence.SourceProxy || source == evidence.SourceSensor
}

// done pairs each source event with the nearest ledger event of the same
// agent and key within the window (a sensor's exec names the ledger's
// command, or ends with it), and estimates each source's offset.
func (s *skewScan) done() []Skew {
	if !s.fresh {
		s.last, s.fresh = s.pair(), true
	}
	return slices.Clone(s.last)
}

func (s *skewScan) pair() []Skew {
	byKey := map[string][]time.Time{}
	cmds := map[string][]string{} // agent -> its tool calls' commands
	for _, l := range s.ledger {
		k := l.agent + "\x00" + l.key
		if _, ok := byKey[k]; !ok && strings.HasPrefix(l.key, "cmd ") && len(l.key) > 8 && len(cmds[l.agent]) < maxSkewCommands {
			cmds[l.agent] = append(cmds[l.agent], l.key[4:])
		}
		byKey[k] = append(byKey[k], l.t)
	}
	offsets := map[string][]time.Duration{}
	for _, o := range s.other {
		times := byKey[o.agent+"\x00"+o.key]
		if len(times) == 0 && strings.HasPrefix(o.key, "cmd ") {
			// an exec of "/bin/bash -lc CMD" is the tool call's CMD
			for _, cmd := range cmds[o.agent] {
				if strings.HasSuffix(o.key, cmd) {
					times = byKey[o.agent+"\x00cmd "+cmd]
					break
				}
			}
		}
		best, found := time.Duration(0), false
		for _, t := range times {
			d := o.t.Sub(t)
			if d < -skewWindow || d > skewWindow {
				continue
			}
			if !found || abs(d) < abs(best) {
				best, found = d, true
			}
		}
		if found {
			offsets[o.source] = append(offsets[o.source], best)
		}
	}
	var out []Skew
	for _, src := range sortedKeys(offsets) {
		ds := offsets[src]
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		med := ds[len(ds)/2]
		spread := make([]time.Duration, len(ds))
		for i, d := range ds {
			spread[i] = abs(d - med)
		}
		sort.Slice(spread, func(i, j int) bool { return spread[i] < spread[j] })
		margin := spread[len(spread)*9/10] // 90% of the pairs lie within it
		out = append(out, Skew{Source: src, Offset: med, Margin: max(margin, time.Second), Pairs: len(ds), Applied: abs(med) >= SkewThreshold})
	}
	return out
}

func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

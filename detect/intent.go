package detect

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// intent is intent_mismatch: an agent's own summary that leaves out the
// sensitive things it did just before. It is Go because it compares the
// words of one event (a ledger summary) with the kinds of others. Kept
// deliberately plain: each kind of sensitive action has words an honest
// account would use, and a summary using none of them for an action of
// that kind since the agent's previous summary (within the window) is a
// mismatch:
//
//   - credential reads (kind cred_access by a program that shows, searches
//     or packs the file, as the credential-access rule has it): credential,
//     token, secret, password, key, netrc, ssh, aws;
//   - persistence (crontab, nohup, systemctl, setsid, disown): cron,
//     schedule, watchdog, watcher, background, service, systemd, daemon,
//     persist;
//   - uploads of 1 MB or more (bytes_out): upload, copied, copy, sent,
//     posted, pushed, bucket, backup, archive.
type intent struct {
	r      *Rule
	agents map[string]*intentState
	// made is each agent's findings of its first n summaries judged: a
	// summary's finding stands once made (what it left out was judged when
	// it came), so an answer makes only those of the summaries since
	made map[string]madeOf
}

type intentState struct {
	pending []sensitive // since the previous summary, of the last window
	// found are the summaries that left actions out, each citing itself
	// and those actions (packed: an agent's summary may leave thousands
	// out), described, with the values of what it left out (values)
	found  matchList
	values [][]string
}

// expire drops the actions before from: a summary judges those of its
// window only, and the next summary is no earlier than the event being
// added.
func (st *intentState) expire(from time.Time) {
	k := 0
	for k < len(st.pending) && st.pending[k].h.t.Before(from) {
		k++
	}
	if k > 0 {
		st.pending = append(st.pending[:0], st.pending[k:]...)
	}
}

type sensitive struct {
	h    hit
	kind string
	what string
}

// minUpload is the size from which an upload is worth a summary's mention.
const minUpload = 1 << 20

func intentWords(kind string) []string {
	switch kind {
	case "credential reads":
		return []string{"credential", "token", "secret", "password", "key", "netrc", "ssh", "aws"}
	case "persistence":
		return []string{"cron", "schedul", "watchdog", "watcher", "background", "service", "systemd", "daemon", "persist"}
	case "uploads":
		return []string{"upload", "copied", "copy", "sent", "posted", "pushed", "bucket", "backup", "archive"}
	}
	return nil
}

func newIntent(r *Rule) *intent {
	return &intent{r: r, agents: map[string]*intentState{}, made: map[string]madeOf{}}
}

func (x *intent) add(_ int, ev *evidence.Event) {
	if ev.Agent == "" {
		return
	}
	st := x.agents[ev.Agent]
	if st == nil {
		st = &intentState{}
		x.agents[ev.Agent] = st
	}
	h := hit{t: ev.Time, id: ev.ID, agent: ev.Agent}
	st.expire(ev.Time.Add(-x.r.Correlation.Window))
	switch {
	case ev.Kind == evidence.KindSummary && ev.Source == evidence.SourceLedger:
		x.judge(st, ev, h)
		st.pending = st.pending[:0]
	case ev.Kind == evidence.KindCredAccess && readsOut(ev.Cmdline):
		st.pending = append(st.pending, sensitive{h, "credential reads", ev.Path})
	case ev.BytesOut >= minUpload:
		st.pending = append(st.pending, sensitive{h, "uploads", destination(ev)})
	case persists(ev.Cmdline):
		st.pending = append(st.pending, sensitive{h, "persistence", program(ev.Cmdline)})
	}
}

// persistWords are the programs that outlive the call that runs them;
// persistRe finds one as a word of its own.
var (
	persistWords = []string{"crontab", "nohup", "systemctl", "setsid", "disown"}
	persistRe    = regexp.MustCompile(`\b(` + strings.Join(persistWords, "|") + `)\b`)
)

// persists says cmdline runs one of persistWords (persistRe). The
// expression runs only on a line holding one of them: most tool calls
// hold none, and it ran on every one of them on a replay's adding
// goroutine.
func persists(cmdline string) bool {
	for _, w := range persistWords {
		if strings.Contains(cmdline, w) {
			return persistRe.MatchString(cmdline)
		}
	}
	return false
}

func (x *intent) judge(st *intentState, ev *evidence.Event, h hit) {
	text := strings.ToLower(strings.TrimPrefix(ev.Message, "summary:"))
	from := ev.Time.Add(-x.r.Correlation.Window)
	omitted := map[string][]sensitive{}
	var kinds []string
	for _, s := range st.pending {
		if s.h.t.Before(from) {
			continue
		}
		said := false
		for _, w := range intentWords(s.kind) {
			said = said || strings.Contains(text, w)
		}
		if said {
			continue
		}
		if omitted[s.kind] == nil {
			kinds = append(kinds, s.kind)
		}
		omitted[s.kind] = append(omitted[s.kind], s)
	}
	if len(kinds) == 0 {
		return
	}
	hits := []hit{h}
	var parts, values []string
	for _, k := range kinds {
		var whats []string
		for _, s := range omitted[k] {
			hits = append(hits, s.h)
			if s.what != "" {
				whats = appendNew(whats, s.what)
				values = appendNew(values, s.what)
			}
		}
		parts = append(parts, fmt.Sprintf("%d %s (%s)", len(omitted[k]), k, listValues(whats, 3)))
	}
	st.found.add(ev.Time, hits, ev.Agent,
		fmt.Sprintf("summary at %s \"%s\" leaves out %s", ev.Time.Format(time.TimeOnly), clip(strings.TrimSpace(text), 80), strings.Join(parts, ", ")))
	st.values = append(st.values, values)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func (x *intent) done() []Finding {
	var lists [][]Finding
	for _, agent := range sortedKeys(x.agents) {
		st := x.agents[agent]
		m := x.made[agent]
		fs := m.fs
		for i := m.n; i < st.found.len(); i++ {
			n := len(st.found.packed(i)) - 1
			if !x.r.Correlation.Condition.Holds(float64(n)) {
				continue // the condition counts the actions left out
			}
			fs = append(fs, withValues(x.r.newFinding(agent, st.found.hits(i, agent), map[string]string{
				"detail": st.found.desc(i), "count": strconv.Itoa(n),
			}), st.values[i]))
		}
		x.made[agent] = madeOf{st.found.len(), slices.Clip(fs)}
		lists = append(lists, fs)
	}
	return slices.Concat(lists...)
}

// readsOut reports a command line that runs a program which shows,
// searches or packs what it reads (cat, grep, tar, ...), anywhere in a
// pipeline, as opposed to the tool a credential is for (aws, gh, git).
// It mirrors the credential-access rule's token list.
func readsOut(cmdline string) bool {
	for _, w := range strings.FieldsFunc(cmdline, func(r rune) bool { return r == ' ' || r == '|' || r == ';' || r == '&' || r == '(' }) {
		switch path.Base(w) {
		case "cat", "tac", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "strings", "base64",
			"xxd", "od", "hexdump", "tar", "zip", "7z", "scp", "rsync", "nc", "socat":
			return true
		}
	}
	return false
}

package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
)

// mdEscaper keeps evidence text literal in Markdown: no emphasis, code
// span, link, inline HTML or table cell break can come from a log line.
var mdEscaper = strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "<", `\<`, ">", `\>`, "[", `\[`, "]", `\]`, "|", `\|`)

// md makes evidence text safe for a terminal (evidence.Printable) and
// literal in Markdown.
func md(s string) string { return mdEscaper.Replace(evidence.Printable(s)) }

// mdIDs lists event ids as code, with the count when some are left out.
func mdIDs(ids []string, total int) string {
	if len(ids) == 0 {
		return "—"
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = "`" + strings.ReplaceAll(evidence.Printable(id), "`", "'") + "`"
	}
	s := strings.Join(parts, " ")
	if total > len(ids) {
		s += fmt.Sprintf(" (%d of %d)", len(ids), total)
	}
	return s
}

// mdList joins evidence values, escaped; "—" for none.
func mdList(l []string) string {
	if len(l) == 0 {
		return "—"
	}
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = md(s)
	}
	return strings.Join(out, ", ")
}

// reportTime writes a time the way the report shows it; "—" for none.
func reportTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return incident.Stamp(t)
}

// SubjectLine says who the subject is and how it was chosen.
func (r Report) SubjectLine() string {
	s := r.Summary
	switch s.SubjectFrom {
	case "journal":
		return fmt.Sprintf("%s (named by %s in the journal)", strings.Join(s.Subject, ", "), s.SubjectBy)
	case "findings":
		return strings.Join(s.Subject, ", ") + " (the first agent of the ranking by concern; no responder named one)"
	}
	return "none (no responder named one and no finding names an agent)"
}

// countsLine writes counts as "a 3, b 2".
func countsLine(cs []evidence.Count) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%s %d", c.Value, c.Count))
	}
	return strings.Join(parts, ", ")
}

// WriteMarkdown renders the report as Markdown.
func (r Report) WriteMarkdown(out io.Writer) error { return r.WriteMarkdownPictures(out, "") }

// WriteMarkdownPictures renders the report as Markdown; with a prefix, it
// shows the pictures as images named prefix+Picture.Name, the files the
// caller writes beside it.
func (r Report) WriteMarkdownPictures(out io.Writer, prefix string) error {
	w := bufio.NewWriter(out)
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	writeFrontMarkdown(p, r)
	if prefix != "" {
		p("\n## Pictures\n\n")
		for _, pic := range r.Pictures() {
			p("![%s](%s)\n\n", md(pic.Title), prefix+pic.Name)
		}
	}
	s := r.Summary
	p("\n## The case in figures\n\n")
	p("- **Time span:** %s – %s\n", reportTime(s.First), reportTime(s.Last))
	if s.Outside != "" {
		p("- **Outside the time span:** %s: `%s`\n", md(s.Outside), s.OutsideQuery)
	}
	p("- **Events:** %d (%s)\n", s.Events, md(countsLine(s.BySource)))
	p("- **Subject:** %s\n", md(r.SubjectLine()))
	p("- **Findings:** %d", s.Findings)
	if len(s.BySeverity) > 0 {
		p(" (%s)", countsLine(s.BySeverity))
	}
	p("\n- **Containment:** %s", md(s.Containment))
	if !s.KilledAt.IsZero() {
		p("; killed at %s", reportTime(s.KilledAt))
	}
	if !s.ContainedAt.IsZero() {
		p("; contained at %s", reportTime(s.ContainedAt))
	}
	p("\n- **Impact:** %s", md(s.ImpactLine))
	p("\n- **Journal:** %s\n", md(s.JournalLine))
	p("- **Redaction:** %s\n", md(s.RedactionLine))
	writeImpactMarkdown(p, r.Impact)
	p("\n## The four questions\n")
	if len(r.Agents) == 0 {
		p("\nNo subject agent: name one with `cordon subject`.\n")
	}
	for _, a := range r.Agents {
		writeAgentMarkdown(p, a)
	}
	writeTablesMarkdown(p, r)
	writeAppendixMarkdown(p, r)
	return w.Flush()
}

// writeFrontMarkdown is the first page: no event ids, a link per sentence.
func writeFrontMarkdown(p func(string, ...any), r Report) {
	f := r.Front
	p("# %s\n\n**%s**\n\n## Summary\n\n", md(r.Name), md(f.Status))
	for _, se := range f.Sentences {
		p("- [%s](#%s)\n", md(se.Text), se.Section)
	}
	p("\n**Impact**\n\n")
	for _, l := range f.Impact {
		p("- %s\n", md(l))
	}
	p("\n**Containment**\n\n| layer | state | |\n|---|---|---|\n")
	for _, l := range r.Layers {
		p("| %s | %s %s | %s |\n", md(l.Title), statusMark(l.Status), md(string(l.Status)), md(l.Summary))
	}
	p("\n**Key decisions**\n\n")
	if len(f.Decisions) == 0 {
		p("None journaled.\n")
	}
	for _, d := range f.Decisions {
		p("- %s %s [%s](#%s)\n", reportTime(d.Time), md(d.Who), md(d.Text), d.Section)
	}
	p("\n%s\n", md(r.Built.Line(r.Generated)))
}

func writeAgentMarkdown(p func(string, ...any), a Agent) {
	k := a.Knew
	p("\n### %s\n\nSession records: %s\n\n#### What it knew\n\n", md(a.Agent), mdIDs(a.Sessions, len(a.Sessions)))
	p("- Objective: %s\n- Model: %s\n- Run: %s\n", mdList(k.Objectives), mdList(k.Models), mdList(k.Runs))
	p("- Secrets it read (credential files, secret stores, environment, metadata):")
	if len(k.Secrets) == 0 {
		p(" none recorded")
	}
	p("\n")
	for _, sr := range k.Secrets {
		p("  - %s — first at %s, %d time(s) %s\n", md(sr.What), reportTime(sr.First), sr.Count, mdIDs(sr.Events, sr.Count))
	}
	p("- Context packets: %d prompt records (their digests are in the [appendix](#prompt-digests))\n", k.PromptsTotal)
	p("- Credentials issued:")
	if len(k.Credentials) == 0 {
		p(" none recorded")
	}
	p("\n")
	for _, c := range k.Credentials {
		p("  - %s", md(c.ID))
		if c.Kind != "" {
			p(" (%s)", md(c.Kind))
		}
		p(", session %s — `%s`\n", md(c.Session), c.Event)
	}
	p("\n#### What it could do\n\n- Tools allowed: %s\n- Egress allowlist: %s\n- Credential scopes:", mdList(a.Could.Tools), mdList(a.Could.Egress))
	scoped := 0
	for _, c := range k.Credentials {
		if c.Scope != "" {
			if scoped == 0 {
				p("\n")
			}
			scoped++
			p("  - %s: %s\n", md(c.ID), md(c.Scope))
		}
	}
	if scoped == 0 {
		p(" none recorded\n")
	}
	p("\n#### What it did\n\n%s\n\n", md(a.Did.Note))
	for _, l := range a.Did.Lines {
		p("- %s", md(l.Text))
		if l.Phase != "" {
			p(" _(%s)_", md(l.Phase))
		}
		p(" — %s\n", mdIDs(l.Events, len(l.Events)))
	}
	p("\n#### Why the controls allowed it\n")
	if len(a.Why) == 0 {
		p("\nNo finding about %s.\n", md(a.Agent))
	}
	for _, why := range a.Why {
		p("\n**%s %s** (finding `%s`, %d events read)\n\n", strings.ToUpper(md(why.Severity)), md(why.Detector), md(why.Finding), why.Read)
		if len(why.Lines) == 0 {
			p("- no allow decision or gap found on its events\n")
		}
		for _, l := range why.Lines {
			p("- %s: %s (%s) — %s\n", l.Kind, md(l.Text), eventsCount(l.Count), mdIDs(l.Events, l.Count))
		}
	}
}

func writeImpactMarkdown(p func(string, ...any), im Impact) {
	p("\n## Impact\n\n### What left\n\n")
	if len(im.DataOut) == 0 {
		p("Nothing beyond the allowlist;")
	} else {
		p("| agent | destination | sent | allowlist | how | span | evidence |\n|---|---|---|---|---|---|---|\n")
		for _, d := range im.DataOut {
			p("| %s | %s | %s (%d bytes) | %s | %s | %s – %s | %s |\n", md(d.Agent), md(d.Destination), detect.SizeText(d.Bytes), d.Bytes,
				md(d.Allowlist), mdList(d.Methods), reportTime(d.First), reportTime(d.Last), mdIDs(d.Events, 0))
		}
		p("\nAnd")
	}
	p(" %s to destinations the allowlist names.\n\n### Credentials exposed\n\n", detect.SizeText(im.Allowed))
	writeCapTable(p, im.Credentials, "No credential recorded.")
	p("\n### Who else is affected\n\n")
	if len(im.Victims) == 0 {
		p("No other agent's credential was acquired.\n")
	}
	for _, v := range im.Victims {
		p("- %s (session %s): %s acquired by the subject — a victim, not a suspect\n", md(v.Agent), mdList(v.Sessions), mdList(v.Credentials))
	}
	p("\n### What else it could still use\n\n")
	writeCapTable(p, im.Capabilities, "Nothing beyond its credentials and its sandbox.")
}

func writeCapTable(p func(string, ...any), lines []CapabilityLine, none string) {
	if len(lines) == 0 {
		p("%s\n", none)
		return
	}
	p("| agent | %s | origin | owner | last successful use | stopped | why | evidence |\n|---|---|---|---|---|---|---|---|\n", "capability")
	for _, l := range lines {
		last := "none seen"
		if !l.LastOK.IsZero() {
			last = reportTime(l.LastOK)
			if l.LastOKFrom != "" {
				last += " from " + md(l.LastOKFrom)
			}
		}
		p("| %s | %s %s | %s | %s | %s | **%s** | %s | %s |\n", md(l.Agent), md(string(l.Kind)), md(l.Value), md(string(l.Origin)), md(l.Owner), last,
			md(l.Stopped), md(l.How+"; "+l.Check), mdIDs(l.Events, 0))
	}
}

func writeTablesMarkdown(p func(string, ...any), r Report) {
	at := r.Attribution
	p("\n## Attribution\n\n| agent | session | run | sandbox | IP | container | credentials | interval | evidence |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range at.Sessions {
		end := reportTime(s.End)
		if s.EndStatus != "" {
			end += " " + md(s.EndStatus)
		}
		p("| %s | %s | %s | %s | %s | %s | %s | %s – %s | %s |\n", md(s.Agent), md(s.Session), md(s.Run), md(s.Sandbox), md(s.IP), md(s.Container),
			mdList(s.Credentials), reportTime(s.Start), end, mdIDs(append([]string{s.StartEvent}, nonEmpty(s.EndEvent)...), 0))
	}
	p("\nAttributed via: %s. Unattributed events: %d. Ambiguous: %d.\n", md(countsLine(at.Via)), at.Unattributed, at.Ambiguous)
	for _, c := range at.Conflicts {
		p("\n**Binding conflict:** %s was bound to %s and, from %s, to %s; both acted after it (%s at %s). Its events from then are ambiguous between them, not decided.\n",
			md(c.Key), md(c.Earlier), reportTime(c.From), md(c.Later), md(c.Earlier), reportTime(c.Active))
	}
	if tree := r.Graph.Tree(); tree != "" {
		// a fence no evidence text can close: backticks become quotes
		p("\nThe same as a graph: sessions, where they ran, credentials, hosts outside the sandboxes.\n\n```text\n%s```\n", mdFenced(tree))
	}

	writeRankingMD(p, r.Ranking)

	p("\n## Findings\n\n")
	if len(r.Findings) == 0 {
		p("No findings.\n")
	} else {
		p("| severity | detector | agent | span | explanation | evidence |\n|---|---|---|---|---|---|\n")
	}
	for _, f := range r.Findings {
		p("| %s | %s | %s | %s – %s | %s | %s |\n", strings.ToUpper(md(f.Severity)), md(f.Detector), md(f.Agent), reportTime(f.Start), reportTime(f.End), md(f.Explanation+techniqueNote(f.Tags)+suppressedNote(f.SuppressedBy)), mdIDs(f.Events, f.EventCount))
	}

	writeSuppressionsMD(p, r.Suppressions)

	p("\n## Kill switch\n\n| layer | step | status | query | result | checked by | at | ids counted |\n|---|---|---|---|---|---|---|---|\n")
	for _, l := range r.Layers {
		by := md(l.By)
		if l.Source == "report" {
			by = "this report (not journaled)"
		}
		p("| %s | %s | %s | %s | %s | %s | %s | %s |\n", md(l.Title), md(l.Step), md(l.Summary), mdQueries(l.Queries), md(l.Result), by, reportTime(l.At), mdIDs(l.Events, l.Matched))
	}

	p("\n## Human interventions\n\n")
	if len(r.Interventions) == 0 {
		p("The evidence records none.\n")
	}
	for _, h := range r.Interventions {
		p("- %s %s", reportTime(h.Time), md(orNone(h.Who)))
		if h.Agent != "" {
			p(" on %s", md(h.Agent))
		}
		p(": %s — %s\n", md(h.Text), mdIDs([]string{h.Event}, 0))
	}
	p("\n## Responder actions\n\n")
	writeEntriesMarkdown(p, r.Actions)
	if r.ChecksJournaled > 0 {
		p("\n%d evidence check results are in the journal; the last of each layer is under Kill switch.\n", r.ChecksJournaled)
	}
	p("\n## Assistant exchanges\n\n")
	writeEntriesMarkdown(p, r.Exchanges)

	p("\n## Open items\n\n")
	if len(r.Open) == 0 {
		p("None.\n")
	}
	for _, o := range r.Open {
		p("- [%s] %s: %s\n", o.Kind, md(o.Ref), md(o.Text))
	}
}

func writeEntriesMarkdown(p func(string, ...any), es []Entry) {
	if len(es) == 0 {
		p("The journal records none.\n")
	}
	for _, e := range es {
		p("- #%d %s %s (%s) **%s**", e.Seq, reportTime(e.Time), md(e.Actor.Name), md(e.Actor.Via), md(string(e.Type)))
		if e.Step != "" {
			p(" step %s", md(e.Step))
		}
		if e.Event != "" {
			p(" event `%s`", md(e.Event))
		}
		if e.Text != "" {
			p(": %s", md(e.Text))
		}
		p("\n")
		for _, d := range e.Details {
			p("  - %s\n", md(d))
		}
	}
}

// mdFenced makes lines safe inside a code fence: each printable, and no
// backtick that could close the fence.
func mdFenced(text string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(text, "\n") {
		if l == "" {
			continue
		}
		b.WriteString(strings.ReplaceAll(evidence.Printable(strings.TrimSuffix(l, "\n")), "`", "'") + "\n")
	}
	return b.String()
}

// mdQueries writes a check's queries as code, safe in a table cell.
func mdQueries(qs []string) string {
	if len(qs) == 0 {
		return "—"
	}
	r := strings.NewReplacer("`", "'", "|", `\|`)
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = "`" + r.Replace(evidence.Printable(q)) + "`"
	}
	return strings.Join(out, "<br>")
}

// writeAppendixMarkdown keeps the evidence behind the prose: prompt
// digests, every finding's event ids, the evidence received, the journal.
func writeAppendixMarkdown(p func(string, ...any), r Report) {
	p("\n## Appendix\n\n### Prompt digests\n\n")
	any := false
	for _, a := range r.Agents {
		for _, pr := range a.Knew.Prompts {
			any = true
			p("- %s %s `%s` %s", md(a.Agent), reportTime(pr.Time), pr.Event, md(pr.Digest))
			if pr.Tokens > 0 {
				p(" (%d tokens)", pr.Tokens)
			}
			p("\n")
		}
		if a.Knew.PromptsTotal > len(a.Knew.Prompts) {
			p("- %s: the first %d of %d listed\n", md(a.Agent), len(a.Knew.Prompts), a.Knew.PromptsTotal)
		}
	}
	if !any {
		p("None recorded.\n")
	}
	p("\n### Finding events\n\n")
	if len(r.Findings) == 0 {
		p("No findings.\n")
	}
	for _, f := range r.Findings {
		p("- `%s` %s %s: %s\n", md(f.ID), md(f.Detector), md(f.Agent), mdIDs(f.All, f.EventCount))
	}
	writeEvidence(p, r.Evidence)
	p("\n### Journal verification\n\n%s\n", md(r.Journal.Line()))
}

// writeEvidence is the table of evidence received, from the journal.
func writeEvidence(p func(string, ...any), rs []Received) {
	p("\n### Evidence received\n\n")
	if len(rs) == 0 {
		p("The journal records none (ingested before cordon journaled intake, or not ingested here).\n")
		return
	}
	p("| file | format | size | sha256 | records | rejects | events | received |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		digest := "`" + r.SHA256 + "`"
		if !r.Whole {
			digest += fmt.Sprintf(" (first %d bytes)", r.Read)
		}
		if r.Gzip != "" {
			digest += " decompressed `" + r.Gzip + "`"
		}
		format := md(r.Format)
		if r.Error != "" {
			format += " — " + md(r.Error)
		}
		p("| %s | %s | %d | %s | %d | %d | %s – %s | %s by %s (%d) |\n", md(r.Path), format, r.Size, digest, r.Records, r.Rejects,
			reportTime(r.First), reportTime(r.Last), reportTime(r.At), md(r.By), r.Entries)
	}
	p("\nCheck the files against these digests with `cordon evidence verify --incident DIR`.\n")
}

// eventsCount writes "1 event", "3 events".
func eventsCount(n int) string {
	if n == 1 {
		return "1 event"
	}
	return fmt.Sprintf("%d events", n)
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

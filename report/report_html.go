package report

import (
	"html/template"
	"io"
	"strings"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// WriteHTML renders the report as one self-contained HTML page: inline
// styles, no scripts, no external assets. html/template escapes every
// value; evidence text goes through evidence.Printable first, so control
// characters show as escapes rather than vanish.
func (r Report) WriteHTML(w io.Writer) error {
	t, err := template.New("report").Funcs(template.FuncMap{
		"p":          evidence.Printable,
		"t":          reportTime,
		"upper":      strings.ToUpper,
		"list":       func(l []string) string { return evidence.Printable(strings.Join(l, ", ")) },
		"techniques": techniques,
		"subject":    r.SubjectLine,
		"counts":     countsLine,
		"events":     eventsCount,
		"more":       func(shown []string, total int) int { return total - len(shown) },
		"bytes":      detect.SizeText,
		"join":       strings.Join,
		"mark":       statusMark,
		"built":      func() string { return evidence.Printable(r.Built.Line(r.Generated)) },
		// the pictures are drawn here, every evidence text in them escaped
		"pictures": func() []htmlPicture {
			var out []htmlPicture
			for _, p := range r.Pictures() {
				out = append(out, htmlPicture{Title: p.Title, SVG: template.HTML(p.SVG)})
			}
			return out
		},
	}).Parse(reportHTML)
	if err != nil {
		return err
	}
	return t.Execute(w, r)
}

type htmlPicture struct {
	Title string
	SVG   template.HTML
}

const reportHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{p .Name}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:78em;padding:.5em 1.2em;color:#1b1b1b;background:#fff}
h1,h2,h3,h4{line-height:1.2}h1{margin:.3em 0 .1em;font-size:1.7em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;width:100%;margin:.5em 0;table-layout:auto}th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:#f2f2f2}code{font:12px ui-monospace,monospace;background:#f5f5f5;padding:0 .2em;overflow-wrap:anywhere;word-break:break-all}
.sev{font-weight:bold}.critical,.high{color:#a40000}.muted{color:#666}
#front{display:block}.status{font-size:1.15em;font-weight:bold;padding:.3em .6em;border-radius:4px;display:inline-block;margin:.2em 0 .5em}
.status.open{background:#fde0e0;color:#8a0000}.status.closed{background:#dff3e0;color:#1b5e20}
.cols{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:1.2em}.cols h2{margin-top:.4em;font-size:1.15em}
#summary ol{margin:.2em 0;padding-left:1.3em}#summary li{margin:.25em 0}#summary a{color:inherit;text-decoration:underline dotted}
.compact{font-size:13px}.compact td,.compact th{padding:.1em .4em}.compact ul{margin:.2em 0;padding-left:1.1em}
.verified{color:#1b5e20;font-weight:bold}.not-verified,.no-evidence,.not-run{color:#a40000;font-weight:bold}
figure{margin:1em 0;break-inside:avoid}figure svg{display:block;max-width:100%;height:auto}figcaption{color:#555;font-size:13px}
.built{color:#666;font-size:12px}
@media print{
@page{size:auto;margin:16mm 12mm;@top-center{content:"{{p .Name}}";font:10px sans-serif;color:#555}@bottom-right{content:"page " counter(page) " of " counter(pages);font:10px sans-serif;color:#555}}
body{max-width:none;padding:0;font-size:11px}h2{break-before:page;margin-top:0}#front h2{break-before:auto}
tr,figure,li{break-inside:avoid}thead{display:table-header-group}a{color:inherit;text-decoration:none}
}
@media screen and (prefers-color-scheme:dark){body{background:#151515;color:#e6e6e6}th{background:#262626}code{background:#262626}td,th{border-color:#444}.critical,.high{color:#ff7b7b}.muted{color:#aaa}}
</style>
</head>
<body>
{{define "ids"}}{{range .}}<code>{{p .}}</code> {{end}}{{end}}
<section id="front">
<h1>{{p .Name}}</h1>
{{with .Front}}<div class="status {{if .Contained}}closed{{else}}open{{end}}" id="status">{{p .Status}}</div>
<div class="cols">
<div id="summary"><h2>Summary</h2><ol>
{{range .Sentences}}<li><a href="#{{.Section}}" data-events="{{join .Events " "}}">{{p .Text}}</a></li>
{{end}}</ol>
<h2>Key decisions</h2>
{{if .Decisions}}<ul class="compact" id="decisions">{{range .Decisions}}<li>{{t .Time}} {{p .Who}}: <a href="#{{.Section}}">{{p .Text}}</a></li>{{end}}</ul>{{else}}<p class="compact">None journaled.</p>{{end}}
</div>
<div>
<div id="front-impact"><h2>Impact</h2><ul class="compact">{{range .Impact}}<li>{{p .}}</li>{{end}}</ul></div>{{end}}
<div id="front-containment"><h2>Containment</h2>
<table class="compact"><tr><th>layer</th><th>state</th></tr>
{{range .Layers}}<tr><td>{{p .Title}}</td><td class="{{p (print .Status)}}">{{mark .Status}} {{p (print .Status)}}</td></tr>
{{end}}</table></div>
</div>
</div>
<p class="built" id="built">{{built}}</p>
</section>
<h2 id="pictures">Pictures</h2>
{{range pictures}}<figure>{{.SVG}}<figcaption>{{.Title}}</figcaption></figure>
{{end}}
<h2 id="figures">The case in figures</h2>
{{with .Summary}}<ul>
<li><b>Time span:</b> {{t .First}} – {{t .Last}}</li>
{{if .Outside}}<li><b>Outside the time span:</b> {{p .Outside}}: <code>{{p .OutsideQuery}}</code></li>{{end}}
<li><b>Events:</b> {{.Events}} ({{p (counts .BySource)}})</li>
<li><b>Subject:</b> {{p subject}}</li>
<li><b>Findings:</b> {{.Findings}}{{if .BySeverity}} ({{counts .BySeverity}}){{end}}</li>
<li><b>Containment:</b> {{p .Containment}}{{if not .KilledAt.IsZero}}; killed at {{t .KilledAt}}{{end}}{{if not .ContainedAt.IsZero}}; contained at {{t .ContainedAt}}{{end}}</li>
<li><b>Impact:</b> {{p .ImpactLine}}</li>
<li><b>Journal:</b> {{p .JournalLine}}</li>
<li><b>Redaction:</b> {{p .RedactionLine}}</li>
</ul>{{end}}
{{define "caps"}}<table><tr><th>agent</th><th>capability</th><th>origin</th><th>owner</th><th>last successful use</th><th>stopped</th><th>why</th><th>evidence</th></tr>
{{range .}}<tr><td>{{p .Agent}}</td><td>{{p (print .Kind)}} {{p .Value}}</td><td>{{p (print .Origin)}}</td><td>{{p .Owner}}</td><td>{{if .LastOK.IsZero}}none seen{{else}}{{t .LastOK}}{{with .LastOKFrom}} from {{p .}}{{end}}{{end}}</td><td><b>{{p .Stopped}}</b></td><td>{{p .How}}; {{p .Check}}</td><td>{{template "ids" .Events}}</td></tr>
{{end}}</table>{{end}}
{{with .Impact}}<h2 id="impact">Impact</h2>
<h3>What left</h3>
{{if .DataOut}}<table><tr><th>agent</th><th>destination</th><th>sent</th><th>allowlist</th><th>how</th><th>span</th><th>evidence</th></tr>
{{range .DataOut}}<tr><td>{{p .Agent}}</td><td>{{p .Destination}}</td><td>{{bytes .Bytes}} ({{.Bytes}} bytes)</td><td>{{p .Allowlist}}</td><td>{{list .Methods}}</td><td>{{t .First}} – {{t .Last}}</td><td>{{template "ids" .Events}}</td></tr>
{{end}}</table><p>And {{bytes .Allowed}} to destinations the allowlist names.</p>{{else}}<p>Nothing beyond the allowlist; {{bytes .Allowed}} to destinations the allowlist names.</p>{{end}}
<h3>Credentials exposed</h3>
{{if .Credentials}}{{template "caps" .Credentials}}{{else}}<p>No credential recorded.</p>{{end}}
<h3>Who else is affected</h3>
{{if .Victims}}<ul>{{range .Victims}}<li>{{p .Agent}} (session {{list .Sessions}}): {{list .Credentials}} acquired by the subject — a victim, not a suspect</li>{{end}}</ul>{{else}}<p>No other agent's credential was acquired.</p>{{end}}
<h3>What else it could still use</h3>
{{if .Capabilities}}{{template "caps" .Capabilities}}{{else}}<p>Nothing beyond its credentials and its sandbox.</p>{{end}}
{{end}}
<h2 id="four-questions">The four questions</h2>
{{if not .Agents}}<p>No subject agent: name one with <code>cordon subject</code>.</p>{{end}}
{{range .Agents}}<h3>{{p .Agent}}</h3>
<p>Session records: {{template "ids" .Sessions}}</p>
<h4>What it knew</h4>
{{with .Knew}}<ul>
<li>Objective: {{list .Objectives}}</li><li>Model: {{list .Models}}</li><li>Run: {{list .Runs}}</li>
<li>Secrets it read:{{if not .Secrets}} none recorded{{end}}
<ul>{{range .Secrets}}<li>{{p .What}} — first at {{t .First}}, {{.Count}} time(s) {{template "ids" .Events}}</li>{{end}}</ul></li>
<li>Context packets: {{.PromptsTotal}} prompt records (their digests are in the <a href="#prompt-digests">appendix</a>)</li>
<li>Credentials issued:{{if not .Credentials}} none recorded{{end}}
<ul>{{range .Credentials}}<li>{{p .ID}}{{if .Kind}} ({{p .Kind}}){{end}}, session {{p .Session}} — <code>{{p .Event}}</code></li>{{end}}</ul></li>
</ul>{{end}}
<h4>What it could do</h4>
<ul><li>Tools allowed: {{list .Could.Tools}}</li><li>Egress allowlist: {{list .Could.Egress}}</li>
<li>Credential scopes:<ul>{{range .Knew.Credentials}}{{if .Scope}}<li>{{p .ID}}: {{p .Scope}}</li>{{end}}{{end}}</ul></li></ul>
<h4>What it did</h4>
<p class="muted">{{p .Did.Note}}</p>
<table><tr><th>phase</th><th>what</th><th>evidence</th></tr>
{{range .Did.Lines}}<tr><td>{{p .Phase}}</td><td>{{p .Text}}</td><td>{{template "ids" .Events}}</td></tr>
{{end}}</table>
<h4>Why the controls allowed it</h4>
{{range .Why}}<p><span class="sev {{p .Severity}}">{{upper (p .Severity)}}</span> {{p .Detector}} (finding <code>{{p .Finding}}</code>, {{.Read}} events read)</p>
<ul>{{range .Lines}}<li><b>{{.Kind}}:</b> {{p .Text}} ({{events .Count}}) — {{template "ids" .Events}}</li>{{else}}<li>no allow decision or gap found on its events</li>{{end}}</ul>
{{else}}<p>No finding about {{p .Agent}}.</p>{{end}}
{{end}}
<h2 id="attribution">Attribution</h2>
{{with .Attribution}}<table><tr><th>agent</th><th>session</th><th>run</th><th>sandbox</th><th>IP</th><th>container</th><th>credentials</th><th>interval</th><th>evidence</th></tr>
{{range .Sessions}}<tr><td>{{p .Agent}}</td><td>{{p .Session}}</td><td>{{p .Run}}</td><td>{{p .Sandbox}}</td><td>{{p .IP}}</td><td>{{p .Container}}</td><td>{{list .Credentials}}</td><td>{{t .Start}} – {{t .End}} {{p .EndStatus}}</td><td><code>{{p .StartEvent}}</code> {{if .EndEvent}}<code>{{p .EndEvent}}</code>{{end}}</td></tr>
{{end}}</table>
<p>Attributed via: {{p (counts .Via)}}. Unattributed events: {{.Unattributed}}. Ambiguous: {{.Ambiguous}}.</p>
{{range .Conflicts}}<p><b>Binding conflict:</b> {{p .Key}} was bound to {{p .Earlier}} and, from {{t .From}}, to {{p .Later}}; both acted after it ({{p .Earlier}} at {{t .Active}}). Its events from then are ambiguous between them, not decided.</p>
{{end}}{{end}}
<h2 id="agents-by-concern">Agents by concern</h2>
{{if .Ranking}}<table><tr><th>#</th><th>agent</th><th>severity</th><th>episodes</th><th>why</th></tr>
{{range .Ranking}}<tr><td>{{.Rank}}</td><td>{{if .Agent}}{{p .Agent}}{{else}}(no agent){{end}}</td><td>{{if .Severity}}<span class="sev {{p .Severity}}">{{upper (p .Severity)}}</span>{{else}}—{{end}}</td><td>{{.Episodes}}</td><td>{{p .Reason}}</td></tr>
{{end}}</table>{{else}}<p>No agents.</p>{{end}}
<h2 id="findings">Findings</h2>
{{if .Findings}}<table><tr><th>severity</th><th>detector</th><th>agent</th><th>span</th><th>explanation</th><th>evidence</th></tr>
{{range .Findings}}<tr><td class="sev {{p .Severity}}">{{upper (p .Severity)}}</td><td>{{p .Detector}}</td><td>{{p .Agent}}</td><td>{{t .Start}} – {{t .End}}</td><td>{{p .Explanation}}{{with techniques .Tags}} (ATT&amp;CK {{list .}}){{end}}{{with .SuppressedBy}} (suppressed: {{list .}}){{end}}</td><td>{{template "ids" .Events}}{{with more .Events .EventCount}}(+{{.}}){{end}}</td></tr>
{{end}}</table>{{else}}<p>No findings.</p>{{end}}
<h2 id="suppressions">Suppressions</h2>
{{if .Suppressions}}<p>Suppressed findings are still listed above; a suppression changes no check, containment status or verdict.</p>
<table><tr><th>id</th><th>by</th><th>at</th><th>covers</th><th>reason</th><th>findings</th></tr>
{{range .Suppressions}}<tr><td>{{p .ID}}</td><td>{{p .By.Name}}{{with .From}} ({{p .}}){{end}}</td><td>{{t .At}}</td><td>{{p .Scope.String}}</td><td>{{p .Reason}}</td><td>{{template "ids" .Findings}}</td></tr>
{{end}}</table>{{else}}<p>None: no finding was suppressed.</p>{{end}}
<h2 id="kill-switch">Kill switch</h2>
<table><tr><th>layer</th><th>step</th><th>status</th><th>query</th><th>result</th><th>checked by</th><th>at</th><th>ids counted</th></tr>
{{range .Layers}}<tr><td>{{p .Title}}</td><td>{{p .Step}}</td><td>{{p .Summary}}</td><td>{{range .Queries}}<code>{{p .}}</code><br>{{else}}—{{end}}</td><td>{{p .Result}}</td><td>{{if eq .Source "report"}}this report (not journaled){{else}}{{p .By}}{{end}}</td><td>{{t .At}}</td><td>{{template "ids" .Events}}{{with more .Events .Matched}}{{if gt . 0}}(+{{.}}){{end}}{{end}}</td></tr>
{{end}}</table>
<h2 id="human-interventions">Human interventions</h2>
{{if .Interventions}}<ul>{{range .Interventions}}<li>{{t .Time}} {{if .Who}}{{p .Who}}{{else}}(none){{end}}{{with .Agent}} on {{p .}}{{end}}: {{p .Text}} — <code>{{p .Event}}</code></li>{{end}}</ul>{{else}}<p>The evidence records none.</p>{{end}}
{{define "entries"}}{{if not .}}<p>The journal records none.</p>{{end}}
<ul>{{range .}}<li>#{{.Seq}} {{t .Time}} {{p .Actor.Name}} ({{p .Actor.Via}}) <b>{{p (print .Type)}}</b>{{if .Step}} step {{p .Step}}{{end}}{{if .Event}} event <code>{{p .Event}}</code>{{end}}{{if .Text}}: {{p .Text}}{{end}}
{{if .Details}}<ul>{{range .Details}}<li><code>{{p .}}</code></li>{{end}}</ul>{{end}}</li>
{{end}}</ul>{{end}}
<h2 id="responder-actions">Responder actions</h2>
{{template "entries" .Actions}}
{{if .ChecksJournaled}}<p>{{.ChecksJournaled}} evidence check results are in the journal; the last of each layer is under Kill switch.</p>{{end}}
<h2 id="assistant-exchanges">Assistant exchanges</h2>
{{template "entries" .Exchanges}}
<h2 id="open-items">Open items</h2>
<ul>{{range .Open}}<li>[{{.Kind}}] {{p .Ref}}: {{p .Text}}</li>{{else}}<li>None.</li>{{end}}</ul>
<h2 id="appendix">Appendix</h2>
<h3 id="prompt-digests">Prompt digests</h3>
<ul>{{range .Agents}}{{$a := .Agent}}{{range .Knew.Prompts}}<li>{{p $a}} {{t .Time}} <code>{{p .Event}}</code> {{p .Digest}}{{if .Tokens}} ({{.Tokens}} tokens){{end}}</li>{{end}}{{if gt .Knew.PromptsTotal (len .Knew.Prompts)}}<li>{{p .Agent}}: the first {{len .Knew.Prompts}} of {{.Knew.PromptsTotal}} listed</li>{{end}}{{end}}</ul>
<h3 id="finding-events">Finding events</h3>
<ul>{{range .Findings}}<li><code>{{p .ID}}</code> {{p .Detector}} {{p .Agent}}: {{template "ids" .All}}{{with more .All .EventCount}}{{if gt . 0}}(+{{.}}){{end}}{{end}}</li>{{else}}<li>No findings.</li>{{end}}</ul>
<h3 id="evidence-received">Evidence received</h3>
{{if .Evidence}}<table><tr><th>file</th><th>format</th><th>size</th><th>sha256</th><th>records</th><th>rejects</th><th>events</th><th>received</th></tr>
{{range .Evidence}}<tr><td><code>{{p .Path}}</code></td><td>{{p .Format}}{{if .Error}} — {{p .Error}}{{end}}</td><td>{{.Size}}</td><td><code>{{p .SHA256}}</code>{{if not .Whole}} (first {{.Read}} bytes){{end}}{{if .Gzip}} decompressed <code>{{p .Gzip}}</code>{{end}}</td><td>{{.Records}}</td><td>{{.Rejects}}</td><td>{{t .First}} – {{t .Last}}</td><td>{{t .At}} by {{p .By}} ({{.Entries}})</td></tr>
{{end}}</table>
<p>Check the files against these digests with <code>cordon evidence verify --incident DIR</code>.</p>{{else}}<p>The journal records none (ingested before cordon journaled intake, or not ingested here).</p>{{end}}
<h3 id="journal-verification">Journal verification</h3>
<p>{{p .Journal.Line}}</p>
<p class="built">{{built}}</p>
</body>
</html>
`

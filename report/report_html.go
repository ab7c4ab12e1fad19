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
		"p":       evidence.Printable,
		"t":       reportTime,
		"upper":   strings.ToUpper,
		"list":    func(l []string) string { return evidence.Printable(strings.Join(l, ", ")) },
		"subject": r.SubjectLine,
		"counts":  countsLine,
		"events":  eventsCount,
		"more":    func(shown []string, total int) int { return total - len(shown) },
		"bytes":   detect.SizeText,
	}).Parse(reportHTML)
	if err != nil {
		return err
	}
	return t.Execute(w, r)
}

const reportHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Incident report: {{p .Incident}}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:72em;padding:0 1em;color:#1b1b1b;background:#fff}
h1,h2,h3,h4{line-height:1.2}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;width:100%;margin:.5em 0}th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f2f2f2}code{font:12px ui-monospace,monospace;background:#f5f5f5;padding:0 .2em}
.sev{font-weight:bold}.critical,.high{color:#a40000}.muted{color:#666}
@media (prefers-color-scheme:dark){body{background:#151515;color:#e6e6e6}th{background:#262626}code{background:#262626}td,th{border-color:#444}.critical,.high{color:#ff7b7b}.muted{color:#aaa}}
</style>
</head>
<body>
<h1>Incident report: {{p .Incident}}</h1>
<p class="muted">Generated {{t .Generated}} by cordon.</p>
{{define "ids"}}{{range .}}<code>{{p .}}</code> {{end}}{{end}}
<h2>Summary</h2>
{{with .Summary}}<ul>
<li><b>Time span:</b> {{t .First}} – {{t .Last}}</li>
{{if .Outside}}<li><b>Outside the time span:</b> {{p .Outside}}: <code>{{p .OutsideQuery}}</code></li>{{end}}
<li><b>Events:</b> {{.Events}} ({{p (counts .BySource)}})</li>
<li><b>Subject:</b> {{p subject}}</li>
<li><b>Findings:</b> {{.Findings}}{{if .BySeverity}} ({{counts .BySeverity}}){{end}}</li>
<li><b>Containment:</b> {{p .Containment}}{{if not .ContainedAt.IsZero}}; contained at {{t .ContainedAt}}{{end}}</li>
<li><b>Impact:</b> {{p .ImpactLine}}</li>
<li><b>Journal:</b> {{p .JournalLine}}</li>
<li><b>Redaction:</b> {{p .RedactionLine}}</li>
</ul>{{end}}
{{define "caps"}}<table><tr><th>agent</th><th>capability</th><th>origin</th><th>owner</th><th>last successful use</th><th>stopped</th><th>why</th><th>evidence</th></tr>
{{range .}}<tr><td>{{p .Agent}}</td><td>{{p .Kind}} {{p .Value}}</td><td>{{p .Origin}}</td><td>{{p .Owner}}</td><td>{{if .LastOK.IsZero}}none seen{{else}}{{t .LastOK}}{{with .LastOKFrom}} from {{p .}}{{end}}{{end}}</td><td><b>{{p .Stopped}}</b></td><td>{{p .How}}; {{p .Check}}</td><td>{{template "ids" .Events}}</td></tr>
{{end}}</table>{{end}}
{{with .Impact}}<h2>Impact</h2>
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
<h2>The four questions</h2>
{{if not .Agents}}<p>No subject agent: name one with <code>cordon subject</code>.</p>{{end}}
{{range .Agents}}<h3>{{p .Agent}}</h3>
<p>Session records: {{template "ids" .Sessions}}</p>
<h4>What it knew</h4>
{{with .Knew}}<ul>
<li>Objective: {{list .Objectives}}</li><li>Model: {{list .Models}}</li><li>Run: {{list .Runs}}</li>
<li>Secrets it read:{{if not .Secrets}} none recorded{{end}}
<ul>{{range .Secrets}}<li>{{p .What}} — first at {{t .First}}, {{.Count}} time(s) {{template "ids" .Events}}</li>{{end}}</ul></li>
<li>Context packets: {{.PromptsTotal}} prompt records{{if gt .PromptsTotal (len .Prompts)}}, the first {{len .Prompts}} listed{{end}}
<ul>{{range .Prompts}}<li>{{t .Time}} <code>{{p .Event}}</code> {{p .Digest}}{{if .Tokens}} ({{.Tokens}} tokens){{end}}</li>{{end}}</ul></li>
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
<h2>Attribution</h2>
{{with .Attribution}}<table><tr><th>agent</th><th>session</th><th>run</th><th>sandbox</th><th>IP</th><th>container</th><th>credentials</th><th>interval</th><th>evidence</th></tr>
{{range .Sessions}}<tr><td>{{p .Agent}}</td><td>{{p .Session}}</td><td>{{p .Run}}</td><td>{{p .Sandbox}}</td><td>{{p .IP}}</td><td>{{p .Container}}</td><td>{{list .Credentials}}</td><td>{{t .Start}} – {{t .End}} {{p .EndStatus}}</td><td><code>{{p .StartEvent}}</code> {{if .EndEvent}}<code>{{p .EndEvent}}</code>{{end}}</td></tr>
{{end}}</table>
<p>Attributed via: {{p (counts .Via)}}. Unattributed events: {{.Unattributed}}. Ambiguous: {{.Ambiguous}}.</p>{{end}}
<h2>Findings</h2>
{{if .Findings}}<table><tr><th>severity</th><th>detector</th><th>agent</th><th>span</th><th>explanation</th><th>evidence</th></tr>
{{range .Findings}}<tr><td class="sev {{p .Severity}}">{{upper (p .Severity)}}</td><td>{{p .Detector}}</td><td>{{p .Agent}}</td><td>{{t .Start}} – {{t .End}}</td><td>{{p .Explanation}}</td><td>{{template "ids" .Events}}{{with more .Events .EventCount}}(+{{.}}){{end}}</td></tr>
{{end}}</table>{{else}}<p>No findings.</p>{{end}}
<h2>Kill switch</h2>
<table><tr><th>layer</th><th>step</th><th>status</th><th>checked by</th><th>at</th><th>evidence</th></tr>
{{range .Layers}}<tr><td>{{p .Title}}</td><td>{{p .Step}}</td><td>{{p .Summary}}</td><td>{{if eq .Source "report"}}this report (not journaled){{else}}{{p .By}}{{end}}</td><td>{{t .At}}</td><td>{{template "ids" .Events}}</td></tr>
{{end}}</table>
<h2>Human interventions and assistant exchanges</h2>
{{if not .Activity}}<p>The journal records none.</p>{{end}}
<ul>{{range .Activity}}<li>#{{.Seq}} {{t .Time}} {{p .Actor.Name}} ({{p .Actor.Via}}) <b>{{p (print .Type)}}</b>{{if .Step}} step {{p .Step}}{{end}}{{if .Event}} event <code>{{p .Event}}</code>{{end}}{{if .Text}}: {{p .Text}}{{end}}
{{if .Details}}<ul>{{range .Details}}<li><code>{{p .}}</code></li>{{end}}</ul>{{end}}</li>
{{end}}</ul>
{{if .ChecksJournaled}}<p>{{.ChecksJournaled}} evidence check results are in the journal; the last of each layer is under Kill switch.</p>{{end}}
<h2>Open items</h2>
<ul>{{range .Open}}<li>[{{.Kind}}] {{p .Ref}}: {{p .Text}}</li>{{else}}<li>None.</li>{{end}}</ul>
<h2>Evidence received</h2>
{{if .Evidence}}<table><tr><th>file</th><th>format</th><th>size</th><th>sha256</th><th>records</th><th>rejects</th><th>events</th><th>received</th></tr>
{{range .Evidence}}<tr><td>{{p .Path}}</td><td>{{p .Format}}{{if .Error}} — {{p .Error}}{{end}}</td><td>{{.Size}}</td><td><code>{{p .SHA256}}</code>{{if not .Whole}} (first {{.Read}} bytes){{end}}{{if .Gzip}} decompressed <code>{{p .Gzip}}</code>{{end}}</td><td>{{.Records}}</td><td>{{.Rejects}}</td><td>{{t .First}} – {{t .Last}}</td><td>{{t .At}} by {{p .By}} ({{.Entries}})</td></tr>
{{end}}</table>
<p>Check the files against these digests with <code>cordon evidence verify --incident DIR</code>.</p>{{else}}<p>The journal records none (ingested before cordon journaled intake, or not ingested here).</p>{{end}}
<h2>Journal verification</h2>
<p>{{p .Journal.Line}}</p>
</body>
</html>
`

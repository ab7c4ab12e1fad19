package eval

import (
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// WriteHTML writes the scorecard as one self-contained page (inline
// styles, no scripts), with what WriteMarkdown says. html/template
// escapes every value; evidence text goes through evidence.Printable
// first, so control characters show as escapes rather than vanish.
func WriteHTML(w io.Writer, sc *Scorecard) error {
	t, err := template.New("scorecard").Funcs(template.FuncMap{
		"p":     evidence.Printable,
		"t":     stamp,
		"dash":  orDash,
		"join":  func(l []string) string { return evidence.Printable(strings.Join(l, ", ")) },
		"none":  orNone,
		"tried": func() int { return triedCount(sc) },
		"after": func(c ControlResult) string {
			if c.After == nil {
				return "—"
			}
			return dur(time.Duration(*c.After))
		},
		"class": func(o Outcome) string { return strings.ReplaceAll(string(o), " ", "-") },
	}).Parse(scorecardHTML)
	if err != nil {
		return err
	}
	return t.Execute(w, sc)
}

func triedCount(sc *Scorecard) int {
	n := 0
	for _, t := range sc.Tests {
		if t.Tried {
			n++
		}
	}
	return n
}

const scorecardHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Containment scorecard: {{p .Suite}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:78em;padding:.5em 1.2em;color:#1b1b1b;background:#fff}
table{border-collapse:collapse;width:100%;margin:.5em 0}th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:#f2f2f2}.fired{color:#1b5e20;font-weight:bold}.missed{color:#a40000;font-weight:bold}.could-not-tell{color:#8a5a00;font-weight:bold}.muted{color:#666}
@media print{tr,li{break-inside:avoid}}
</style>
</head>
<body>
<h1>Containment scorecard: {{p .Suite}}</h1>
<ul>
<li>incident: {{p .Incident}}</li>
{{with .Run}}<li>run: {{p .}} (only its events)</li>{{end}}
<li>subject: {{p (none .Subject)}}; verdict: {{p .Verdict}}</li>
<li>tests tried: {{tried}} of {{len .Tests}}; highest rung tried: {{dash (print .Reached)}}; boundary crossed up to: {{dash (print .Crossed)}}</li>
{{with .FirstAnswer}}<li>first control to answer: {{p .Control}} on {{p .Test}} (rung {{.Rung}}) at {{t .At}}</li>{{end}}
</ul>
<h2>Score per layer</h2>
<table><thead><tr><th>layer</th><th>fired</th><th>missed</th><th>could not tell</th></tr></thead><tbody>
{{range .Layers}}<tr><td>{{p .Layer}}</td><td>{{.Fired}}</td><td>{{.Missed}}</td><td>{{.CouldNotTell}}</td></tr>
{{end}}</tbody></table>
<h2>Gaps</h2>
{{if .Gaps}}<ul>{{range .Gaps}}<li>{{p .}}</li>{{end}}</ul>{{else}}<p>None: every control of every test tried answered.</p>{{end}}
<h2>Tests tried</h2>
{{range .Tests}}{{if .Tried}}
<h3 id="{{.ID}}">{{p .ID}} ({{.Rung}})</h3>
<p>{{p .Behaviour}} — by {{join .Agents}} from {{t .First}}, {{.Events}} events; {{if .Crossed}}crossed the boundary{{else}}no boundary crossing{{end}}.</p>
<table><thead><tr><th>control</th><th>outcome</th><th>after</th><th>why</th></tr></thead><tbody>
{{range .Controls}}<tr><td>{{p .Control}}</td><td class="{{class .Outcome}}">{{.Outcome}}</td><td>{{after .}}</td><td>{{p .Why}}</td></tr>
{{end}}</tbody></table>
{{end}}{{end}}
<h2>Not tried by this run</h2>
<p class="muted">{{range .Tests}}{{if not .Tried}}{{p .ID}} {{end}}{{end}}</p>
</body>
</html>
`

package eval

import (
	"strings"
	"testing"
)

// Text the agent could have written (an evidence id, a reason quoting a
// command) is escaped in the page, and control characters show.
func TestScorecardHTMLEscapes(t *testing.T) {
	sc := &Scorecard{Suite: "s<uite", Incident: "/tmp/x", Tests: []TestResult{{
		ID: "t1", Behaviour: "b", Rung: "probe", Tried: true, Agents: []string{"agent-<b>1</b>"},
		Controls: []ControlResult{{Control: "refuse proxy", Outcome: Missed, Why: "ran <script>alert(1)</script>\x1b[31m red"}},
	}}, Layers: []LayerScore{{Layer: "proxy", Missed: 1}}, Gaps: []string{"t1: not refused by the proxy"}}
	var b strings.Builder
	if err := WriteHTML(&b, sc); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script>", "<b>1</b>", "\x1b", "s<uite"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", `\x1b[31m`, `<td class="missed">missed</td>`, "<li>t1: not refused by the proxy</li>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
}

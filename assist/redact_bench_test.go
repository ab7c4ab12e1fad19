package assist

import (
	"testing"

	"github.com/cordon-ir/cordon/redact"
	"github.com/cordon-ir/cordon/redact/redacttest"
)

// BenchmarkRedactPacket is redaction's cost for one packet: the default
// budget's worth of evidence lines (about 80), a few of them holding
// secrets, as BuildPacket redacts them (every field of every event).
func BenchmarkRedactPacket(b *testing.B) {
	lines := packetLines()
	b.ReportAllocs()
	for b.Loop() {
		var r redact.Redactor
		for _, l := range lines {
			r.Redact(l)
		}
	}
}

// packetLines are the fields of a default-budget packet's events: the
// fixture incident's messages and targets, repeated to 80 events.
func packetLines() []string {
	var lines []string
	evs := incidentEvents()
	for len(lines) < 80*3 {
		for _, ev := range evs {
			lines = append(lines, ev.Message, ev.Target(), ev.Agent+" "+ev.Kind+" "+ev.Decision)
		}
	}
	lines = append(lines, redacttest.IssueForms[0].Text, redacttest.IssueForms[5].Text, redacttest.IssueForms[14].Text, redacttest.Secrets[1].Text)
	return lines
}

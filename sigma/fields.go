package sigma

import (
	"strings"

	"github.com/cordon-ir/cordon/evidence"
)

// derived are the fields a pipeline may name beyond the event's own:
// values cordon reads off an event's fields for Sigma's sake.
var derived = map[string]func(*evidence.Event) []string{
	// exe is the program a process ran: the first word of its command
	// line. Tetragon writes the binary's full path there; Falco's
	// proc.cmdline starts with the process name only, so a rule on
	// Image|endswith: '/curl' fires on Tetragon's events and not Falco's.
	"exe": func(ev *evidence.Event) []string {
		if w, _, _ := strings.Cut(strings.TrimSpace(ev.Cmdline), " "); w != "" {
			return []string{w}
		}
		return nil
	},
	// raw is the record as the source wrote it.
	"raw": func(ev *evidence.Event) []string {
		if ev.Raw != "" {
			return []string{ev.Raw}
		}
		return nil
	},
}

// cordonField reports a name a pipeline may map a Sigma field onto.
func cordonField(name string) bool {
	if _, ok := derived[name]; ok {
		return true
	}
	f, ok := evidence.LookupField(name)
	return ok && name != "" && name != "_all" && name != "time" && f.Countable()
}

// fieldReader returns how to read a cordon field's values off an event:
// the whole value (a text field's whole text, not its words).
func fieldReader(name string) func(*evidence.Event) []string {
	if d, ok := derived[name]; ok {
		return d
	}
	f, _ := evidence.LookupField(name)
	return f.Values
}

// keywordFields are where a keyword (a value with no field) is looked for:
// the event's readable line and the record as written.
var keywordFields = []string{"message", "raw"}

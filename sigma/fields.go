package sigma

import (
	"strings"

	"github.com/cordon-ir/cordon/evidence"
)

// derived are the fields a pipeline may name beyond the event's own:
// values cordon reads off an event's fields for Sigma's sake.
var derived = map[string]func(*evidence.Event) string{
	// exe is the program a process ran: the first word of its command
	// line. Tetragon writes the binary's full path there; Falco's
	// proc.cmdline starts with the process name only, so a rule on
	// Image|endswith: '/curl' fires on Tetragon's events and not Falco's.
	"exe": func(ev *evidence.Event) string {
		w, _, _ := strings.Cut(strings.TrimSpace(ev.Cmdline), " ")
		return w
	},
	// url_stem, url_query and url_ext are the parts of a request's URL
	// Sigma's proxy rules name (c-uri-stem, c-uri-query,
	// c-uri-extension): its path, what follows the ?, and the extension
	// of its last path segment, without the dot ("exe"). A CONNECT's
	// host:port has none.
	"url_stem":  func(ev *evidence.Event) string { return urlParts(ev.URL).stem },
	"url_query": func(ev *evidence.Event) string { return urlParts(ev.URL).query },
	"url_ext": func(ev *evidence.Event) string {
		stem := urlParts(ev.URL).stem
		last := stem[strings.LastIndexByte(stem, '/')+1:]
		if i := strings.LastIndexByte(last, '.'); i >= 0 {
			return last[i+1:]
		}
		return ""
	},
	// raw is the record as the source wrote it.
	"raw": func(ev *evidence.Event) string { return ev.Raw },
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
		return func(ev *evidence.Event) []string { return nonEmpty(d(ev)) }
	}
	f, _ := evidence.LookupField(name)
	return f.Values
}

// keywordFields are where a keyword (a value with no field) is looked for:
// the event's readable line and the record as written.
var keywordFields = []string{"message", "raw"}

type urlSplit struct{ stem, query string }

// urlParts splits a request URL as cordon keeps it ("http://h/p?q",
// Envoy's "h/p?q", a CONNECT's "h:443") into its path and query.
func urlParts(u string) urlSplit {
	if _, rest, ok := strings.Cut(u, "://"); ok {
		u = rest
	}
	i := strings.IndexByte(u, '/')
	if i < 0 {
		return urlSplit{}
	}
	u = u[i:]
	u, _, _ = strings.Cut(u, "#")
	stem, query, _ := strings.Cut(u, "?")
	return urlSplit{stem: stem, query: query}
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// oneReader reads a field that holds one value at most without
// allocating ("": none), or is nil for the others (lists, numbers).
func oneReader(name string) func(*evidence.Event) string {
	if d, ok := derived[name]; ok {
		return d
	}
	f, _ := evidence.LookupField(name)
	if _, ok := f.One(&evidence.Event{}); !ok {
		return nil
	}
	return func(ev *evidence.Event) string {
		v, _ := f.One(ev)
		return v
	}
}

package fleet

import (
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

func TestTokenEscapesWhatSubjectsGiveMeaningTo(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"sensor", "sensor"},
		{"cordon-ledger", "cordon-ledger"},
		{"agent_7", "agent_7"},
		{"", "_"},
		{"_", "%5F"},
		{"a.b", "a%2Eb"},
		{"*", "%2A"},
		{">", "%3E"},
		{"a b\tc\n", "a%20b%09c%0A"},
		{"50%", "50%25"},
		{"agent.*.>", "agent%2E%2A%2E%3E"},
		{"é", "%C3%A9"},
	} {
		got := Token(tc.in)
		if got != tc.want {
			t.Errorf("Token(%q) = %q, want %q", tc.in, got, tc.want)
		}
		back, err := Untoken(got)
		if err != nil || back != tc.in {
			t.Errorf("Untoken(%q) = %q, %v; want %q", got, back, err, tc.in)
		}
	}
}

func TestUntokenRefusesWhatTokenNeverWrites(t *testing.T) {
	for _, bad := range []string{"a.b", "a b", "%2", "%", "%2e", "%41", "%ZZ", "a*"} {
		if s, err := Untoken(bad); err == nil {
			t.Errorf("Untoken(%q) = %q, want an error", bad, s)
		}
	}
}

func FuzzToken(f *testing.F) {
	for _, s := range []string{"", "_", "a.b", "*>", "%41", "agent-7", "\x00\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tok := Token(s)
		if tok == "" || strings.ContainsAny(tok, ".*> \t\r\n") {
			t.Fatalf("Token(%q) = %q is not one subject token", s, tok)
		}
		back, err := Untoken(tok)
		if err != nil || back != s {
			t.Fatalf("Untoken(Token(%q)) = %q, %v", s, back, err)
		}
		// what Untoken accepts, Token writes back the same
		if v, err := Untoken(s); err == nil && Token(v) != s {
			t.Fatalf("Untoken(%q) = %q, whose token is %q", s, v, Token(v))
		}
	})
}

func TestSubjectMatches(t *testing.T) {
	for _, tc := range []struct {
		filter, subject string
		want            bool
	}{
		{"falco.>", "falco.warning.terminal_shell", true},
		{"falco.>", "falco", false},
		{"falco.*", "falco.warning", true},
		{"falco.*", "falco.warning.x", false},
		{"cordon.>", "cordon.events.>", true},
		{"cordon.events.>", "cordon.raw.falco", false},
		{"a.b", "a.b", true},
	} {
		if got := subjectMatches(tc.filter, tc.subject); got != tc.want {
			t.Errorf("subjectMatches(%q, %q) = %v", tc.filter, tc.subject, got)
		}
	}
}

func testEvent() evidence.Event {
	return evidence.Event{ID: "00112233aabbccdd", Time: time.Date(2026, 11, 3, 10, 1, 12, 553640594, time.UTC),
		Source: "sensor", Format: "falco", Kind: "proc_exec", Cmdline: "pip install", Raw: `{"rule":"x"}`, Origin: "falco.jsonl:1", Message: "pip"}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	ev := testEvent()
	m, err := Encode(&ev)
	if err != nil {
		t.Fatal(err)
	}
	if m.Subject != "cordon.events.sensor.falco" || m.Header.Get(HeaderMsgID) != ev.ID || m.Header.Get(HeaderSchema) != SchemaEvent {
		t.Fatalf("subject %s, headers %v", m.Subject, m.Header)
	}
	got, err := Decode(m.Subject, m.Header, m.Data)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != ev.ID || !got.Time.Equal(ev.Time) || got.Raw != ev.Raw || got.Origin != ev.Origin || got.Cmdline != ev.Cmdline {
		t.Fatalf("decoded %+v, want %+v", got, ev)
	}
}

func TestKeyNamesAnEarlierStage(t *testing.T) {
	ev := testEvent()
	if Key(&ev) != ev.ID {
		t.Fatalf("Key = %q, want the id", Key(&ev))
	}
	ev.Tags = []string{"routine", "stage:RequestReceived"}
	if Key(&ev) != ev.ID+"~stage:RequestReceived" {
		t.Fatalf("Key of an earlier stage = %q", Key(&ev))
	}
}

func TestDecodeRefusesWhatIsNoEvent(t *testing.T) {
	ev := testEvent()
	good, _ := Encode(&ev)
	noID := ev
	noID.ID = ""
	noIDMsg, _ := Encode(&noID)
	noTime := ev
	noTime.Time = time.Time{}
	noTimeMsg, _ := Encode(&noTime)
	for _, tc := range []struct {
		name, subject string
		hdr           map[string]string
		data          string
		reason        string
	}{
		{"not json", good.Subject, nil, "{nope", "not an event"},
		{"array", good.Subject, nil, `[1,2]`, "not an event"},
		{"no id", noIDMsg.Subject, nil, string(noIDMsg.Data), "no id"},
		{"no time", noTimeMsg.Subject, nil, string(noTimeMsg.Data), "no time"},
		{"subject of another source", "cordon.events.ledger.falco", nil, string(good.Data), "came on"},
		{"unknown schema", good.Subject, map[string]string{HeaderSchema: "event/9"}, string(good.Data), "schema"},
		{"message id of another event", good.Subject, map[string]string{HeaderMsgID: "ffffffffffffffff"}, string(good.Data), "message id"},
	} {
		hdr := map[string][]string{}
		for k, v := range tc.hdr {
			hdr[k] = []string{v}
		}
		_, err := Decode(tc.subject, hdr, []byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("%s: err %v, want one saying %q", tc.name, err, tc.reason)
		}
	}
}

func FuzzDecode(f *testing.F) {
	ev := testEvent()
	m, _ := Encode(&ev)
	f.Add(m.Subject, string(m.Data))
	f.Add("cordon.events.proxy.squid", `{"id":"x","time":"2026-01-01T00:00:00Z","kind":"net_request","source":"proxy","format":"squid"}`)
	f.Fuzz(func(t *testing.T, subject, data string) {
		ev, err := Decode(subject, nil, []byte(data))
		if err == nil && (ev.ID == "" || ev.Time.IsZero() || EventSubject(ev.Source, ev.Format) != subject) {
			t.Fatalf("Decode accepted %+v on %s", ev, subject)
		}
	})
}

// isEventSubject answers as comparing with EventSubject does, for sources
// and formats that need escaping, are empty, or hold a dot, and subjects
// cut short or longer.
func TestIsEventSubjectComparesAsEventSubject(t *testing.T) {
	values := []string{"", "_", "proxy", "squid", "a.b", "a b", "x%2Ey", "ledger", "proxy.squid"}
	subjects := []string{"", EventsPrefix, EventsPrefix + ".", EventsPrefix + ".proxy", EventsPrefix + ".proxy.",
		EventsPrefix + ".proxy.squid", EventsPrefix + ".proxy.squid.x", EventsPrefix + "._._", EventsPrefix + ".a%2Eb.proxy",
		EventsPrefix + ".a%20b.%5F", "other.proxy.squid", EventsPrefix + "proxy.squid"}
	n := 0
	for _, src := range values {
		for _, format := range values {
			subjects := append(subjects, EventSubject(src, format), EventSubject(src, format)+".")
			for _, sub := range subjects {
				want := EventSubject(src, format) == sub
				if got := isEventSubject(sub, src, format); got != want {
					t.Errorf("isEventSubject(%q, %q, %q) = %v, want %v", sub, src, format, got, want)
				}
				if want {
					n++
				}
			}
		}
	}
	if n < len(values)*len(values) {
		t.Fatalf("%d subjects matched, want every source and format's own at least", n)
	}
}

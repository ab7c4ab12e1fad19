package assist

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

func TestCitations(t *testing.T) {
	st := openStore(t, incidentEvents())
	p := mustPacket(t, st, Selection{}, Budget{})
	reply := "Here you go:\n```json\n" + `{"claims":[
		{"text":"agent-7 probed pastebin","event_ids":["ev04","ev05"],"phase":"detect"},
		{"text":"agent-7 exfiltrated","event_ids":["ev04","deadbeefdeadbeef"]},
		{"text":"nothing to cite","event_ids":[],"phase":"bogus"},
		{"text":"\u001b]0;owned\u0007 title","event_ids":["ev09"]}
	],"notes":"sampled"}` + "\n```"
	f := newFakeLLM(t, func(_ int, w http.ResponseWriter, _ *http.Request) { completion(w, reply) })
	c, _ := f.client(t, nil)
	res, err := c.Run(context.Background(), TaskExplain, "", p)
	if err != nil {
		t.Fatal(err)
	}
	cl := res.Answer.Claims
	if len(cl) != 4 || !res.Answer.Structured {
		t.Fatalf("claims %+v", res.Answer)
	}
	if !cl[0].CitesReal || cl[0].Phase != "detect" {
		t.Errorf("known ids not verified: %+v", cl[0])
	}
	if cl[1].CitesReal || len(cl[1].Unknown) != 1 || cl[1].Unknown[0] != "deadbeefdeadbeef" {
		t.Errorf("unknown id not flagged: %+v", cl[1])
	}
	if cl[2].CitesReal || cl[2].Phase != "" {
		t.Errorf("uncited claim: %+v", cl[2])
	}
	// kept as the model wrote it: whoever shows it makes it printable,
	// once (escaped here too, it would read \\x1b on the screen)
	if !strings.Contains(cl[3].Text, "\x1b]0;owned\x07") {
		t.Errorf("the claim is not kept as written: %q", cl[3].Text)
	}
	if res.Answer.Uncited() != 2 {
		t.Errorf("uncited %d", res.Answer.Uncited())
	}
}

func TestParseAnswer(t *testing.T) {
	cases := []struct {
		in         string
		claims     int
		structured bool
	}{
		{`{"claims":[{"text":"a","event_ids":["x"]}]}`, 1, true},
		{"```json\n{\"claims\":[],\"notes\":\"nothing\"}\n```", 0, true},
		{`Sure! {"claims":[{"text":"a {b}","event_ids":["x"]}],"notes":"n"} hope that helps`, 1, true},
		{`{not json} then {"claims":[{"text":"a","event_ids":[]}]}`, 1, true},
		{"The agent probed pastebin.", 1, false},
		{"", 0, false},
	}
	for _, c := range cases {
		a := ParseAnswer(c.in)
		if len(a.Claims) != c.claims || a.Structured != c.structured {
			t.Errorf("%q: %d claims structured %v", c.in, len(a.Claims), a.Structured)
		}
	}
	if a := ParseAnswer("plain\ntext"); a.Claims[0].Text != "plain\ntext" || len(a.Claims[0].EventIDs) != 0 {
		t.Errorf("fallback %+v", a)
	}
}

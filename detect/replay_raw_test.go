package detect_test

import (
	"context"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// lean is a source that leaves out what its reader says it will not
// read, as the replay log's reader does: every origin, and the text
// keepText does not ask for, which it counts.
type lean struct {
	*detect.MemSource
	asked, left int
}

func (s *lean) EachLean(ctx context.Context, keepText func(source, kind string) bool, fn func(evidence.Event) error) error {
	s.asked++
	return s.Each(ctx, evidence.All(), func(ev evidence.Event) error {
		if ev.Raw+ev.Message != "" && !keepText(ev.Source, ev.Kind) {
			ev.Raw, ev.Message = "", ""
			s.left++
		}
		ev.Origin = ""
		return fn(ev)
	})
}

// A replay reads the events without their origins, and the proxies' and
// sensors' without their text (detectorsReadText), and answers as the
// pass given every whole event one by one does, in every replay case.
func TestReplayWithoutWhatTheDetectorsDoNotRead(t *testing.T) {
	left := 0
	eachReplayCase(t, func(t *testing.T, eng detect.Engine, evs []evidence.Event) {
		want := answerJSON(t, oneByOne(t, eng, evs))
		src := &lean{MemSource: detect.NewMemSource(evs)}
		got, err := eng.Scan(context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		if src.asked != 1 {
			t.Fatalf("the replay asked for the events lean %d times, want once", src.asked)
		}
		if answerJSON(t, got) != want {
			t.Errorf("a replay without origins and the text of %d events answers otherwise than the whole events", src.left)
		}
		left += src.left
	})
	if left == 0 {
		t.Error("no event's text was left out: the test compares nothing")
	}
}

// A rule that searches a bare word, or the message, reads the events'
// text: its replay keeps every one, and finds a word only a proxy's record
// holds, in its record as written or in its message.
func TestReplayOfARuleReadingTextReadsItWhole(t *testing.T) {
	for _, c := range []struct{ query, where string }{{"zqxjkv", "raw"}, {"message:zqxjkv", "message"}} {
		evs := loadSample(t, "egress-probe-exfil")
		attribution.AttributeAll(evs)
		i := 0
		for i < len(evs) && (evs[i].Source != evidence.SourceProxy || evs[i].Agent == "") {
			i++
		}
		if i == len(evs) {
			t.Fatal("no attributed proxy record in the sample")
		}
		if c.where == "raw" {
			evs[i].Raw = "zqxjkv " + evs[i].Raw
		} else {
			evs[i].Message = "zqxjkv " + evs[i].Message
		}
		rule := detect.Rule{ID: "word", Title: "a word in a record", Severity: "low", Phase: "detect", Explain: "{{count}}",
			Query: []string{c.query}, Correlation: detect.Correlation{Type: detect.EventCount,
				Window: time.Hour, Condition: detect.Condition{Gte: detect.Num(1)}}}
		src := &lean{MemSource: detect.NewMemSource(evs)}
		eng := detect.Engine{Rules: []detect.Rule{rule}}
		got, err := eng.Scan(context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		if src.asked != 1 || src.left != 0 {
			t.Errorf("%s: a replay of a rule that reads the text left out %d events'", c.query, src.left)
		}
		if len(got.Findings) != 1 || len(got.Findings[0].Events) != 1 || got.Findings[0].Events[0] != evs[i].ID {
			t.Errorf("%s: findings %+v, want one of the proxy's record %s", c.query, got.Findings, evs[i].ID)
		}
	}
}

package drill_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"

	"github.com/cordon-ir/cordon/drill"
	"github.com/cordon-ir/cordon/evidence"
)

const pak = "../sample-incidents/persistence-after-kill"

func at(hms string) time.Time {
	t, _ := time.Parse(time.RFC3339, "2026-09-02T"+hms+"Z")
	return t
}

// TestNothingFromTheFuture: at any scenario time the index holds exactly
// the records that have happened, minus those a gap withheld.
func TestNothingFromTheFuture(t *testing.T) {
	s, err := drill.Load(pak)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	d, err := drill.Start(ctx, s, filepath.Join(t.TempDir(), "w"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	st := d.WS
	count := func(q string, since, until time.Time) uint64 {
		h, err := st.Search(ctx, evidence.Request{Query: evidence.MustParse(q), Since: since, Until: until, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		return h.Total
	}

	d.Clock.Jump(at("14:10:00"))
	fired, err := d.Advance(ctx)
	if err != nil || len(fired) != 0 {
		t.Fatalf("advance to 14:10: %v, fired %d", err, len(fired))
	}
	if n := count("", at("14:10:00").Add(time.Second), time.Time{}); n != 0 {
		t.Errorf("%d events after 14:10 are already searchable", n)
	}
	before := count("", time.Time{}, time.Time{})
	if before == 0 || count("agent:agent-21 +kind:file_write", time.Time{}, time.Time{}) == 0 {
		t.Fatalf("by 14:10 the agent's writes should be in: %d events", before)
	}
	if _, when, ok := d.NextInject(); !ok || !when.Equal(at("14:21:03")) {
		t.Errorf("next inject at %v", when)
	}

	d.Clock.Jump(at("14:40:00"))
	fired, err = d.Advance(ctx)
	if err != nil || len(fired) != 2 || !strings.Contains(fired[0].Text, "killed agent-21") {
		t.Fatalf("advance to 14:40: %v, fired %+v", err, fired)
	}
	if n := count("source:sensor +format:falco", at("14:31:00"), at("14:35:00")); n != 0 {
		t.Errorf("the Falco gap let %d events through", n)
	}
	if d.Withheld() == 0 {
		t.Error("the gap withheld nothing: the sample has Falco alerts then (the cron runs)")
	}
	if n := count("source:sensor +format:tetragon", at("14:31:00"), at("14:35:00")); n == 0 {
		t.Error("the gap hid Tetragon too; it names only falco.jsonl")
	}
	entries, _ := d.WS.JournalEntries()
	if last := entries[len(entries)-1]; last.Type != "drill_inject" || !last.Time.Equal(at("14:35:00")) {
		t.Errorf("inject journaled at %v (%s), want its own scenario time 14:35:00", last.Time, last.Type)
	}
}

// TestHeadlessScores runs the sample's drill with a team that gets it right
// and one that gets it wrong.
func TestHeadlessScores(t *testing.T) {
	s, err := drill.Load(pak)
	if err != nil {
		t.Fatal(err)
	}
	right := `team: blue
subject: {agents: [agent-21], at: "14:06:00"}
answers:
  which-agent: {answer: agent-21, at: "14:05:00"}
  first-persistence: {answer: "14:00:30", at: "14:25:00"}
  revoke: {answer: "tok-data-305, wh-305, px-s305", at: "14:45:00"}
  posting-to: {answer: "hooks.slack.com:443", at: "14:50:00"}
  egress-stopped: {answer: "2026-09-02T15:05:06Z", at: "15:10:00"}
  why-not-stopped: {answer: "cron and a nohup watcher outlive the agent loop", at: "15:11:00"}
steps:
  - {step: detect.signal, status: done, at: "14:04:00"}
  - {step: contain.stop, status: done, at: "15:06:00", contained_at: "15:05:31"}
`
	wrong := `team: red
answers:
  which-agent: {answer: agent-17, at: "14:30:00"}
  revoke: {answer: "px-s305", at: "14:45:00"}
  posting-to: {answer: data.acme-eval.net, at: "14:50:00"}
  egress-stopped: {answer: "14:21:03", at: "14:50:00"}
`
	for _, c := range []struct {
		name, answers          string
		right, wrong, unanswer int
		contained, attributed  bool
	}{
		// neither is credited a time to contain: the crontab and the unit
		// have only a person's word for their removal, so the case cannot
		// be told contained on any evidence this drill releases
		{"right", right, 5, 0, 0, false, true},
		{"wrong", wrong, 0, 4, 2, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "answers.yaml")
			os.WriteFile(path, []byte(c.answers), 0o644)
			a, err := drill.LoadAnswers(path)
			if err != nil {
				t.Fatal(err)
			}
			deb, err := drill.RunHeadless(context.Background(), s, a, filepath.Join(dir, "out"))
			if err != nil {
				t.Fatal(err)
			}
			if deb.Score.Right != c.right || deb.Score.Wrong != c.wrong || deb.Score.Unanswered != c.unanswer || deb.Score.ToJudge != 6-c.right-c.wrong-c.unanswer {
				t.Errorf("score %+v", deb.Score)
				for _, q := range deb.Questions {
					t.Logf("%s: %q %s %s", q.ID, q.Given, q.Verdict, q.Why)
				}
			}
			if (deb.Contain != nil) != c.contained || (deb.Attribute != nil) != c.attributed {
				t.Errorf("milestones: contain %+v attribute %+v", deb.Contain, deb.Attribute)
			}
			if c.attributed {
				if !deb.Onset.Truncate(time.Second).Equal(at("13:30:11")) || deb.Attribute.At != at("14:05:00") {
					t.Errorf("onset %v, attributed %v", deb.Onset, deb.Attribute.At)
				}
				if len(deb.Steps.Missed) != 5 {
					t.Errorf("missed steps %v", deb.Steps.Missed)
				}
			}
			// the debrief shows what was not stopped when they called it:
			// at 15:06 the crontab was still there (its removal, 15:06:35,
			// came after), and the wrong team never called it
			switch {
			case c.name == "wrong" && deb.Called != nil:
				t.Errorf("the wrong team recorded no kill, yet: %+v", deb.Called)
			case c.name == "right" && (deb.Called == nil || deb.Called.Contained || !deb.Called.At.Equal(at("15:06:00")) ||
				!strings.Contains(strings.Join(deb.Called.OpenThen, "\n"), "Scheduled follow-ups live: /var/spool/cron/crontabs/agent")):
				t.Errorf("right team's call: %+v", deb.Called)
			}
			for _, f := range deb.Findings {
				if !f.Surfaced {
					t.Errorf("expected finding %s not surfaced on the released evidence", f.Detector)
				}
			}
			md, err := os.ReadFile(filepath.Join(dir, "out", "debrief.md"))
			if err != nil || !strings.Contains(string(md), "# Debrief: The watchdog that outlived its agent") {
				t.Errorf("debrief.md: %v\n%s", err, md)
			}
			if _, err := os.Stat(filepath.Join(dir, "out", "debrief.json")); err != nil {
				t.Error(err)
			}
			// The same debrief comes back from the workspace later.
			again, err := drill.DebriefDir(context.Background(), filepath.Join(dir, "out", "workspace"))
			if err != nil || again.Score != deb.Score {
				t.Errorf("debrief from the workspace: %+v %v", again, err)
			}
		})
	}
}

func TestCheckAnswers(t *testing.T) {
	day := at("00:00:00")
	for _, c := range []struct {
		q     drill.Question
		given string
		want  string
	}{
		{drill.Question{Kind: drill.KindAgent, Answer: []string{"agent-21"}}, " Agent-21 ", drill.Right},
		{drill.Question{Kind: drill.KindAgent, Answer: []string{"agent-21"}}, "agent-21, agent-17", drill.Wrong},
		{drill.Question{Kind: drill.KindHost, Answer: []string{"hooks.slack.com"}}, "HOOKS.slack.com.:443", drill.Right},
		{drill.Question{Kind: drill.KindCredential, Answer: []string{"a", "b"}}, "b;a", drill.Right},
		{drill.Question{Kind: drill.KindCredential, Answer: []string{"a", "b"}}, "a", drill.Wrong},
		{drill.Question{Kind: drill.KindCredential, Answer: []string{"a"}}, "a c", drill.Wrong},
		{drill.Question{Kind: drill.KindTime, Answer: []string{"2026-09-02T14:00:05Z"}, Tolerance: "2m"}, "14:01:30", drill.Right},
		{drill.Question{Kind: drill.KindTime, Answer: []string{"2026-09-02T14:00:05Z"}}, "14:01:30", drill.Wrong},
		{drill.Question{Kind: drill.KindTime, Answer: []string{"2026-09-02T14:00:05Z"}}, "soon", drill.Wrong},
		{drill.Question{Kind: drill.KindEvent, Answer: []string{"abc"}}, "", drill.Unanswered},
		{drill.Question{Kind: drill.KindText}, "because", drill.ToJudge},
	} {
		if got, why := drill.Check(c.q, c.given, day); got != c.want {
			t.Errorf("%s %q: %s (%s), want %s", c.q.Kind, c.given, got, why, c.want)
		}
	}
}

func TestParseScriptErrors(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"title: x\n", "scenario"},
		{"scenario: x\n", "evidence"},
		{"scenario: x\nevidence: [a]\nquestions:\n  - {id: Q1, text: t, kind: agent, answer: [a]}\n", "lowercase"},
		{"scenario: x\nevidence: [a]\nquestions:\n  - {id: q, text: t, kind: colour, answer: [a]}\n", "kind"},
		{"scenario: x\nevidence: [a]\nquestions:\n  - {id: q, text: t, kind: time, answer: [noon]}\n", "RFC 3339"},
		{"scenario: x\nevidence: [a]\ninjects:\n  - {at: \"10:00\"}\n", "time"},
		{"scenario: x\nevidence: [a]\ninjects:\n  - {at: \"+5m\"}\n", "says nothing"},
		{"scenario: x\nevidence: [a]\nspeeed: 3\n", "speeed"},
	} {
		_, err := drill.Parse([]byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error about %s", c.yaml, err, c.want)
		}
	}
}

// TestResume: a drill whose console was quit carries on where it stood:
// nothing released twice, injects already fired stay fired, the clock at
// the last journaled moment, the rest of the evidence still to come.
func TestResume(t *testing.T) {
	s, err := drill.Load(pak)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "w")
	d, err := drill.Start(ctx, s, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	d.Clock.Jump(at("14:25:00"))
	if _, err := d.Answer(ctx, journal.Actor{Name: "team", Via: journal.ViaDrill}, "which-agent", "agent-21"); err != nil {
		t.Fatal(err)
	}
	// the evidence runs on past the last journal entry: the team saw it
	d.Clock.Jump(at("14:30:00"))
	if _, err := d.Advance(ctx); err != nil {
		t.Fatal(err)
	}
	before := d.WS.Counts().Total
	d.Close()

	if _, err := drill.Start(ctx, s, dir, nil); !errors.Is(err, drill.ErrDrillExists) {
		t.Fatalf("starting again over it: %v", err)
	}
	r, err := drill.Resume(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if now := r.Clock.Now(); now.Before(at("14:29:30")) || now.After(at("14:30:00")) || !r.Clock.Paused() {
		t.Errorf("resumed at %v (paused %v), want the last evidence released before 14:30, paused", now, r.Clock.Paused())
	}
	if last := r.WS.Counts().Last; last.After(r.Clock.Now()) {
		t.Errorf("resumed behind evidence already seen: %v after %v", last, r.Clock.Now())
	}
	if in, when, ok := r.NextInject(); !ok || !when.Equal(at("14:35:00")) {
		t.Errorf("next inject %v at %v, want the 14:35 one (14:21 already fired)", in.Text, when)
	}
	fired, err := r.Advance(ctx)
	if err != nil || len(fired) != 0 || r.WS.Counts().Total != before {
		t.Errorf("advancing in place: fired %d, %d events (was %d), %v", len(fired), r.WS.Counts().Total, before, err)
	}
	r.Clock.Jump(at("15:30:00"))
	if _, err := r.Advance(ctx); err != nil {
		t.Fatal(err)
	}
	if n := r.WS.Counts().Total; n <= before {
		t.Errorf("the rest of the evidence did not come: %d events", n)
	}
}

// TestRecordReleasedWhenItsLastEventHappened: an OTLP export line holds
// several spans; the line reaches the index only once its last span has
// happened, never with its first.
func TestRecordReleasedWhenItsLastEventHappened(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../ingest/testdata/otlp/genai-agent.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "spans.jsonl"), data, 0o644)
	os.WriteFile(filepath.Join(dir, "drill.yaml"), []byte("scenario: spans\nevidence: [spans.jsonl]\n"), 0o644)
	s, err := drill.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	d, err := drill.Start(ctx, s, filepath.Join(t.TempDir(), "w"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, step := range []time.Duration{0, 2 * time.Second, time.Minute, time.Hour} {
		d.Clock.Jump(d.State.Start.Add(step))
		if _, err := d.Advance(ctx); err != nil {
			t.Fatal(err)
		}
		if last, now := d.WS.Counts().Last, d.Clock.Now(); last.After(now) {
			t.Fatalf("at %s the index already holds an event of %s", now.Format(time.StampMilli), last.Format(time.StampMilli))
		}
	}
	if d.WS.Counts().Total == 0 {
		t.Error("nothing was released by the end")
	}
}

// TestFailedIngestIsRetried: records released while the ingest failed
// (a console quit mid-advance) are ingested by the next Advance.
func TestFailedIngestIsRetried(t *testing.T) {
	d := startPak(t)
	d.Clock.Jump(at("14:33:00"))
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.Advance(cancelled); err == nil {
		t.Fatal("an ingest with a cancelled context succeeded")
	}
	if _, err := d.Advance(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := d.WS.Counts().Total; n == 0 {
		t.Error("the records released during the failed ingest never reached the index")
	}
}

// TestDrillActionsAreDryRuns: in a drill the workspace itself turns every
// action into a dry run, whatever the caller asks.
func TestDrillActionsAreDryRuns(t *testing.T) {
	d := startPak(t)
	marker := filepath.Join(t.TempDir(), "ran")
	p := incident.ActionPlan{Name: "touch", Confirm: "agent-21", Timeout: 5 * time.Second, Commands: [][]string{{"touch", marker}}}
	runs, err := d.WS.RunAction(context.Background(), journal.Actor{Name: "team", Via: journal.ViaDrill}, "contain.stop", p, "agent-21", false)
	if err != nil || len(runs) != 1 || !runs[0].DryRun {
		t.Fatalf("runs %+v, %v", runs, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a drill ran a command")
	}
}

// startPak starts the persistence-after-kill drill in a temporary folder;
// it is closed at cleanup.
func startPak(t *testing.T) *drill.Drill {
	t.Helper()
	s, err := drill.Load(pak)
	if err != nil {
		t.Fatal(err)
	}
	d, err := drill.Start(context.Background(), s, filepath.Join(t.TempDir(), "w"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

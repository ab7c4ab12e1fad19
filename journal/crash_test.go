package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCrashMidWrite leaves the journal as a crash during the fourth
// append would (a partial line, journal.head still on entry 3) and checks
// that the next append sets the fragment aside and nothing complete is lost.
func TestCrashMidWrite(t *testing.T) {
	for _, c := range []struct {
		name     string
		fragment func(line4 []byte) []byte
	}{
		{"cut mid line", func(l []byte) []byte { return l[:len(l)/2] }},
		{"cut before the newline", func(l []byte) []byte { return l[:len(l)-1] }},
		{"zeros after power loss", func([]byte) []byte { return bytes.Repeat([]byte{0}, 300) }},
		{"zeros and a newline", func([]byte) []byte { return append(bytes.Repeat([]byte{0}, 30), '\n') }},
	} {
		t.Run(c.name, func(t *testing.T) {
			j, dir := newTestJournal(t)
			appendNotes(t, j, 3)
			head3, _ := os.ReadFile(filepath.Join(dir, headFile))
			appendNotes(t, j, 1)
			lines := readLines(t, dir)
			frag := c.fragment(lines[3])
			lines[3] = frag
			writeLines(t, dir, lines)
			os.WriteFile(filepath.Join(dir, headFile), head3, 0o644)
			off := int64(len(bytes.Join(lines[:3], nil)))

			es, torn, err := j.Read()
			if err != nil || len(es) != 3 || torn == nil || torn.Line != 4 || torn.Offset != off || torn.Bytes != int64(len(frag)) {
				t.Fatalf("Read: %d entries, torn %+v, %v", len(es), torn, err)
			}
			v, _ := j.Verify()
			if v.OK() || v.Problem.Reason != "line 4 is torn (incomplete write)" {
				t.Fatalf("Verify of the torn journal: %+v", v.Problem)
			}
			if got, next, err := j.ReadFrom(0); err != nil || len(got) != 3 || next != off {
				t.Fatalf("ReadFrom(0) = %d entries, next %d (want %d), %v", len(got), next, off, err)
			}

			e, err := j.Append(context.Background(), Entry{Type: EntryNote, Actor: testActor, Text: "after the crash"})
			if err != nil {
				t.Fatal(err)
			}
			if e.Seq != 5 {
				t.Errorf("the entry after the repair is %d, want 5", e.Seq)
			}
			es, torn, err = j.Read()
			if err != nil || torn != nil || len(es) != 5 {
				t.Fatalf("after the repair: %d entries, torn %v, %v", len(es), torn, err)
			}
			for i, want := range []string{"note 1", "note 2", "note 3"} {
				if es[i].Text != want {
					t.Errorf("entry %d = %q, want %q", i+1, es[i].Text, want)
				}
			}
			rep := es[3]
			var p struct {
				Offset  int64  `json:"offset"`
				Bytes   int    `json:"bytes"`
				MovedTo string `json:"moved_to"`
			}
			if rep.Type != EntryRepaired || rep.Actor != testActor || json.Unmarshal(rep.Payload, &p) != nil ||
				p.Offset != off || p.Bytes != len(frag) || p.MovedTo != tornFile {
				t.Errorf("entry 4 = %+v (payload %s), want journal_repaired with offset %d, %d bytes", rep, rep.Payload, off, len(frag))
			}
			if es[4].Text != "after the crash" {
				t.Errorf("entry 5 = %q", es[4].Text)
			}
			var rec tornRecord
			b, err := os.ReadFile(filepath.Join(dir, tornFile))
			if err != nil || json.Unmarshal(b, &rec) != nil {
				t.Fatalf("journal.torn: %q %v", b, err)
			}
			kept := []byte(rec.Fragment)
			if rec.Base64 != nil {
				kept = rec.Base64
			}
			if !bytes.Equal(kept, frag) || rec.Offset != off || rec.Time.IsZero() {
				t.Errorf("journal.torn keeps %q at %d, want %q at %d", kept, rec.Offset, frag, off)
			}
			if v, err := j.Verify(); err != nil || !v.OK() || v.Entries != 5 {
				t.Errorf("Verify after the repair: %+v %v", v.Problem, err)
			}
		})
	}
}

// TestRefusesToCutACompleteEntry: when journal.head says the last
// line was complete, an unfinished last line is not a crash and Append must
// not cut it away.
func TestRefusesToCutACompleteEntry(t *testing.T) {
	j, dir := newTestJournal(t)
	appendNotes(t, j, 4)
	lines := readLines(t, dir)
	lines[3] = lines[3][:len(lines[3])-1]
	writeLines(t, dir, lines)
	before, _ := os.ReadFile(filepath.Join(dir, fileName))
	_, err := j.Append(context.Background(), Entry{Type: EntryNote, Actor: testActor, Text: "x"})
	if !errors.Is(err, ErrTampered) || !strings.Contains(err.Error(), "deleted from the end") {
		t.Fatalf("Append = %v, want ErrTampered", err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, fileName))
	if !bytes.Equal(before, after) {
		t.Error("a refused Append changed the journal")
	}
}

// TestRefusesToWriteOverDeletedTail: appending after entries were
// cut from the end would move the head over the evidence of the cut.
func TestRefusesToWriteOverDeletedTail(t *testing.T) {
	j, dir := newTestJournal(t)
	appendNotes(t, j, 5)
	writeLines(t, dir, readLines(t, dir)[:3])
	if _, err := j.Append(context.Background(), Entry{Type: EntryNote, Actor: testActor}); !errors.Is(err, ErrTampered) {
		t.Fatalf("Append after a tail deletion = %v, want ErrTampered", err)
	}
	if v, _ := j.Verify(); v.OK() {
		t.Error("the deletion is no longer detected")
	}
}

// TestStaleHeadAfterCrash: a crash between the fsync and the head
// write leaves the head one entry behind; that verifies and appends go on.
func TestStaleHeadAfterCrash(t *testing.T) {
	j, dir := newTestJournal(t)
	appendNotes(t, j, 2)
	head2, _ := os.ReadFile(filepath.Join(dir, headFile))
	appendNotes(t, j, 1)
	os.WriteFile(filepath.Join(dir, headFile), head2, 0o644)
	if v, _ := j.Verify(); !v.OK() {
		t.Fatalf("Verify with the head one behind: %v", v.Problem)
	}
	appendNotes(t, j, 1)
	if v, _ := j.Verify(); !v.OK() || v.Entries != 4 {
		t.Fatalf("Verify after the next append: %+v", v)
	}
}

func TestReadFromFollowsAppends(t *testing.T) {
	j, dir := newTestJournal(t)
	es, next, err := j.ReadFrom(0)
	if err != nil || len(es) != 0 || next != 0 {
		t.Fatalf("ReadFrom on no journal: %v %d %v", es, next, err)
	}
	appendNotes(t, j, 2)
	es, next, err = j.ReadFrom(0)
	if err != nil || len(es) != 2 {
		t.Fatalf("ReadFrom(0): %d entries, %v", len(es), err)
	}
	// Another process is half way through writing entry 3.
	line, _, err := encodeEntry(Entry{Seq: 3, Type: EntryNote, Actor: testActor, Text: "third", Prev: es[1].Hash})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(filepath.Join(dir, fileName), os.O_WRONLY|os.O_APPEND, 0)
	defer f.Close()
	f.Write(line[:10])
	if got, n, err := j.ReadFrom(next); err != nil || len(got) != 0 || n != next {
		t.Fatalf("ReadFrom during a write: %d entries, next %d (want %d), %v", len(got), n, next, err)
	}
	f.Write(append(line[10:], '\n'))
	got, n, err := j.ReadFrom(next)
	if err != nil || len(got) != 1 || got[0].Text != "third" || n != next+int64(len(line))+1 {
		t.Fatalf("ReadFrom after the write: %+v, next %d, %v", got, n, err)
	}
	if _, _, err := j.ReadFrom(n + 100); !errors.Is(err, ErrTampered) {
		t.Errorf("ReadFrom past the end = %v, want ErrTampered", err)
	}
}

func TestCurrentActor(t *testing.T) {
	a := CurrentActor(ViaConsole)
	if a.Name == "" || a.Via != ViaConsole {
		t.Errorf("CurrentActor = %+v", a)
	}
}

// TestReadRefusesDamageBeforeTheEnd: only the last line can be torn
// by a crash; an unparsable line before it is reported, not skipped.
func TestReadRefusesDamageBeforeTheEnd(t *testing.T) {
	j, dir := newTestJournal(t)
	appendNotes(t, j, 3)
	lines := readLines(t, dir)
	lines[1] = []byte("not json\n")
	writeLines(t, dir, lines)
	if _, _, err := j.Read(); !errors.Is(err, ErrTampered) {
		t.Errorf("Read = %v, want ErrTampered", err)
	}
	if _, _, err := j.ReadFrom(0); !errors.Is(err, ErrTampered) {
		t.Errorf("ReadFrom = %v, want ErrTampered", err)
	}
}

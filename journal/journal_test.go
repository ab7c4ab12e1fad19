package journal

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

var testActor = Actor{Name: "alice", Via: ViaCLI}

// privateDir is a fresh directory only its owner can enter, as a
// workspace is: appends refuse one others can read.
func privateDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, DirMode); err != nil {
		t.Fatal(err)
	}
	return dir
}

// newTestJournal opens a journal in a fresh directory with a clock that
// ticks one second per entry.
func newTestJournal(t *testing.T) (*Journal, string) {
	t.Helper()
	dir := privateDir(t)
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 7, 21, 10, 0, 0, 123456789, time.UTC)
	n := 0
	j.SetClock(func() time.Time { n++; return t0.Add(time.Duration(n) * time.Second) })
	return j, dir
}

func appendNotes(t *testing.T, j *Journal, n int) []Entry {
	t.Helper()
	var out []Entry
	for i := 1; i <= n; i++ {
		e, err := j.Append(context.Background(), Entry{Type: EntryNote, Actor: testActor, Text: fmt.Sprintf("note %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

func readLines(t *testing.T, dir string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, fileName))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.SplitAfter(b, []byte("\n"))
}

func writeLines(t *testing.T, dir string, lines [][]byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, fileName), bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
}

var hashSuffix = regexp.MustCompile(`,"hash":"([0-9a-f]{64})"\}$`)

// docHash recomputes a line's hash the way docs/journal.md tells a person
// to with sed and sha256sum, without cordon's encoder: strip the hash
// suffix, close the brace, hash the bytes.
func docHash(line []byte) (stored, computed string) {
	line = bytes.TrimSuffix(line, []byte("\n"))
	m := hashSuffix.FindSubmatchIndex(line)
	if m == nil {
		return "", ""
	}
	body := append(append([]byte(nil), line[:m[0]]...), '}')
	sum := sha256.Sum256(body)
	return string(line[m[2]:m[3]]), hex.EncodeToString(sum[:])
}

// rehash gives an edited line a hash that matches its new content, as a
// careful tamperer would.
func rehash(line []byte) []byte {
	_, h := docHash(line)
	return append(hashSuffix.ReplaceAll(bytes.TrimSuffix(line, []byte("\n")), []byte(`,"hash":"`+h+`"}`)), '\n')
}

func TestRoundTripAndChain(t *testing.T) {
	j, dir := newTestJournal(t)
	ctx := context.Background()
	big := strings.Repeat("x", 3*tailChunk) // a line longer than a tail read
	want := []Entry{
		{Type: EntryStepStarted, Actor: testActor, Step: "contain.credentials"},
		{Type: EntryNote, Actor: Actor{Name: "bob", Via: ViaSSH, Key: "SHA256:abc", Comment: "night shift"}, Event: "ev-1", Text: "agent-7 \"quoted\" <script>\n\x1b[31m"},
		{Type: EntryActionRun, Actor: testActor, Payload: json.RawMessage(`{"cmd": "kill 1", "out": "` + big + `"}`)},
		{Type: EntryMark, Actor: testActor, Event: "ev-2"},
	}
	var got []Entry
	for _, e := range want {
		w, err := j.Append(ctx, e)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, w)
	}
	read, torn, err := j.Read()
	if err != nil || torn != nil {
		t.Fatalf("Read: %v, torn %v", err, torn)
	}
	if len(read) != len(want) {
		t.Fatalf("read %d entries, want %d", len(read), len(want))
	}
	lines := readLines(t, dir)
	for i, e := range read {
		w := want[i]
		if e.Seq != int64(i+1) || e.Type != w.Type || e.Actor != w.Actor || e.Step != w.Step || e.Event != w.Event || e.Text != w.Text {
			t.Errorf("entry %d: got %+v, want %+v", i+1, e, w)
		}
		if !bytes.Equal(e.Line(), got[i].Line()) || e.Hash != got[i].Hash || !e.Time.Equal(got[i].Time) {
			t.Errorf("entry %d reads back differently from what Append returned", i+1)
		}
		if e.Time.Location() != time.UTC || e.Time.Nanosecond() != 123456789 {
			t.Errorf("entry %d time %v: want UTC with nanoseconds", i+1, e.Time)
		}
		prev := Genesis
		if i > 0 {
			prev = read[i-1].Hash
		}
		if e.Prev != prev {
			t.Errorf("entry %d prev %s, want %s", i+1, e.Prev, prev)
		}
		stored, computed := docHash(lines[i])
		if stored != e.Hash || computed != e.Hash {
			t.Errorf("entry %d: hash %s, line carries %s, sha256 of its body %s", i+1, e.Hash, stored, computed)
		}
		if !bytes.HasPrefix(lines[i], []byte(`{"seq":`+strconv.Itoa(i+1)+`,"time":"2026-07-21T10:00:0`)) {
			t.Errorf("line %d does not start with seq then time: %.60s", i+1, lines[i])
		}
	}
	var p struct{ Cmd, Out string }
	if err := json.Unmarshal(read[2].Payload, &p); err != nil || p.Cmd != "kill 1" || p.Out != big {
		t.Errorf("payload did not round-trip: %v", err)
	}
	head, err := os.ReadFile(filepath.Join(dir, headFile))
	if err != nil || string(head) != fmt.Sprintf(`{"seq":4,"hash":"%s"}`+"\n", read[3].Hash) {
		t.Errorf("journal.head = %q, %v", head, err)
	}
	v, err := j.Verify()
	if err != nil || !v.OK() || v.Entries != 4 || v.Hash != read[3].Hash {
		t.Errorf("Verify = %+v, %v", v, err)
	}
}

func TestAppendNeedsTypeAndActor(t *testing.T) {
	j, _ := newTestJournal(t)
	for _, e := range []Entry{{Actor: testActor}, {Type: EntryNote}, {Type: EntryNote, Actor: Actor{Name: "x"}}} {
		if _, err := j.Append(context.Background(), e); err == nil {
			t.Errorf("Append(%+v) succeeded", e)
		}
	}
	if _, err := j.Append(context.Background(), Entry{Type: EntryNote, Actor: testActor, Payload: json.RawMessage(`{bad`)}); err == nil {
		t.Error("Append with an invalid payload succeeded")
	}
	if es, _ := j.Entries(); len(es) != 0 {
		t.Errorf("rejected appends wrote %d entries", len(es))
	}
}

func TestVerify(t *testing.T) {
	edit := func(l []byte) []byte { return bytes.Replace(l, []byte(`"note `), []byte(`"NOTE `), 1) }
	cases := []struct {
		name   string
		tamper func(t *testing.T, dir string, lines [][]byte) [][]byte
		line   int
		reason string // "" means the journal verifies
	}{
		{"clean", nil, 0, ""},
		{"edited middle entry", func(_ *testing.T, _ string, l [][]byte) [][]byte {
			l[2] = edit(l[2])
			return l
		}, 3, "entry 3 was edited: its hash does not match its content"},
		{"edited last entry", func(_ *testing.T, _ string, l [][]byte) [][]byte {
			l[4] = edit(l[4])
			return l
		}, 5, "entry 5 was edited"},
		{"edited and rehashed entry", func(_ *testing.T, _ string, l [][]byte) [][]byte {
			l[2] = rehash(edit(l[2]))
			return l
		}, 4, "entry 4 is missing or reordered, or entry 3 was rewritten: prev does not match entry 3's hash"},
		{"deleted middle entry", func(_ *testing.T, _ string, l [][]byte) [][]byte {
			return append(l[:2], l[3:]...)
		}, 3, "entry 3 is missing or reordered: line 3 holds entry 4"},
		{"two entries swapped", func(_ *testing.T, _ string, l [][]byte) [][]byte {
			l[1], l[2] = l[2], l[1]
			return l
		}, 2, "entry 2 is missing or reordered: line 2 holds entry 3"},
		{"deleted tail entries", func(_ *testing.T, _ string, l [][]byte) [][]byte {
			return l[:3]
		}, 0, "the journal ends at entry 3 but journal.head records entry 5: entries were deleted from the end"},
		{"last entry replaced by a valid one", func(_ *testing.T, _ string, l [][]byte) [][]byte {
			l[4] = rehash(edit(l[4]))
			return l
		}, 0, "entry 5 is not the one journal.head records"},
		{"torn last line", func(_ *testing.T, _ string, l [][]byte) [][]byte {
			l[4] = l[4][:len(l[4])/2]
			return l
		}, 5, "line 5 is torn (incomplete write)"},
		{"garbage in the middle", func(_ *testing.T, _ string, l [][]byte) [][]byte {
			l[1] = []byte("{\"seq\":2,\n")
			return l
		}, 2, "line 2 is not a journal entry"},
		{"first entries removed", func(_ *testing.T, _ string, l [][]byte) [][]byte {
			return l[1:]
		}, 1, "entry 1 is missing or reordered: line 1 holds entry 2"},
		{"head deleted", func(t *testing.T, dir string, l [][]byte) [][]byte {
			if err := os.Remove(filepath.Join(dir, headFile)); err != nil {
				t.Fatal(err)
			}
			return l
		}, 0, "journal.head is missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j, dir := newTestJournal(t)
			appendNotes(t, j, 5)
			if c.tamper != nil {
				writeLines(t, dir, c.tamper(t, dir, readLines(t, dir)))
			}
			v, err := j.Verify()
			if err != nil {
				t.Fatal(err)
			}
			if c.reason == "" {
				if !v.OK() || v.Entries != 5 || v.Seq != 5 {
					t.Fatalf("clean journal: %+v %v", v, v.Problem)
				}
				return
			}
			if v.OK() {
				t.Fatalf("tampering not detected: %+v", v)
			}
			if !strings.Contains(v.Problem.Reason, c.reason) || v.Problem.Line != c.line {
				t.Errorf("problem = line %d %q, want line %d %q", v.Problem.Line, v.Problem.Reason, c.line, c.reason)
			}
			if !errors.Is(v.Err(), ErrTampered) {
				t.Errorf("Err() = %v, want ErrTampered", v.Err())
			}
		})
	}
}

func TestEmptyOrAbsentVerifies(t *testing.T) {
	j, dir := newTestJournal(t)
	v, err := j.Verify()
	if err != nil || !v.OK() || v.Entries != 0 {
		t.Fatalf("absent journal: %+v, %v", v, err)
	}
	os.WriteFile(filepath.Join(dir, fileName), nil, 0o644)
	if v, err = j.Verify(); err != nil || !v.OK() || v.Entries != 0 {
		t.Fatalf("empty journal: %+v, %v", v, err)
	}
	if es, torn, err := j.Read(); err != nil || torn != nil || len(es) != 0 {
		t.Fatalf("Read of an empty journal: %v %v %v", es, torn, err)
	}
}

// TestAppendReadsOnlyTheTail: Append seeks to the end for the last
// entry rather than reading the journal; damage at the start does not stop
// it (Verify still names it).
func TestAppendReadsOnlyTheTail(t *testing.T) {
	j, dir := newTestJournal(t)
	appendNotes(t, j, 3)
	lines := readLines(t, dir)
	lines[0] = []byte("damaged\n")
	writeLines(t, dir, lines)
	e, err := j.Append(context.Background(), Entry{Type: EntryNote, Actor: testActor})
	if err != nil || e.Seq != 4 {
		t.Fatalf("Append after damage at the start: seq %d, %v", e.Seq, err)
	}
	if v, _ := j.Verify(); v.OK() || v.Problem.Line != 1 {
		t.Errorf("Verify = %+v, want line 1 named", v.Problem)
	}
}

// BenchmarkAppend appends to a journal that already holds 20,000
// entries; the cost is the fsyncs, not the journal's length.
func BenchmarkAppend(b *testing.B) {
	dir := privateDir(b)
	var buf bytes.Buffer
	prev := Entry{}
	for i := 1; i <= 20000; i++ {
		e := Entry{Seq: int64(i), Time: time.Now().UTC(), Actor: testActor, Type: EntryNote, Text: "prefill", Prev: Genesis}
		if i > 1 {
			e.Prev = prev.Hash
		}
		line, hash, err := encodeEntry(e)
		if err != nil {
			b.Fatal(err)
		}
		buf.Write(append(line, '\n'))
		e.Hash = hash
		prev = e
	}
	os.WriteFile(filepath.Join(dir, fileName), buf.Bytes(), 0o644)
	j, _ := Open(dir)
	j.writeHead(prev)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := j.Append(context.Background(), Entry{Type: EntryNote, Actor: testActor, Text: "bench"}); err != nil {
			b.Fatal(err)
		}
	}
}

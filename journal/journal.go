package journal

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Files of the case journal, in the workspace directory beside the index.
const (
	fileName = "journal.jsonl"
	headFile = "journal.head"
	lockFile = "journal.lock"
	tornFile = "journal.torn"
)

// Genesis is the prev of the first entry: there is no entry before it.
const Genesis = "0000000000000000000000000000000000000000000000000000000000000000"

// ErrTampered: the journal does not verify (an entry was edited, deleted,
// reordered, or the file is damaged before its last line), so cordon will not
// extend it.
var ErrTampered = errors.New("journal does not verify")

// ErrNoIncident: the directory is not there, so there is no case to
// journal. Package incident exports the same value for a directory that has
// no index, so both fail alike.
var ErrNoIncident = errors.New("no incident workspace")

// EntryType says what a journal entry records.
type EntryType string

// The kinds of entry the journal holds.
const (
	EntryStepStarted         EntryType = "step_started"
	EntryStepDone            EntryType = "step_done"
	EntryStepSkipped         EntryType = "step_skipped"
	EntryCheckResult         EntryType = "check_result"
	EntryNote                EntryType = "note"
	EntryMark                EntryType = "mark"
	EntryUnmark              EntryType = "unmark"
	EntryActionRun           EntryType = "action_run"
	EntryAssistantExchange   EntryType = "assistant_exchange"
	EntryAssistantRefusal    EntryType = "assistant_refusal"
	EntryAttributionOverride EntryType = "attribution_override"
	EntrySubjectSet          EntryType = "subject_set"
	EntryRepaired            EntryType = "journal_repaired"
	EntryChecklist           EntryType = "checklist_item"
	EntryDrillStarted        EntryType = "drill_started"
	EntryDrillInject         EntryType = "drill_inject"
	EntryDrillAnswer         EntryType = "drill_answer"
	EntryEvidenceReceived    EntryType = "evidence_received"
	EntryBundleWritten       EntryType = "bundle_written"
	EntryUnredactedOutput    EntryType = "unredacted_output"
	// EntrySuppression records a suppression of findings, with its reason.
	EntrySuppression EntryType = "suppression"
	// EntryFindingsChanged records what a round of the detectors after an
	// ingest changed: findings created, updated, withdrawn.
	EntryFindingsChanged EntryType = "findings_changed"
	// EntryEvaluationScored records a containment suite scored on the
	// case's evidence: the suite, the tests tried and crossed, the
	// outcomes counted.
	EntryEvaluationScored EntryType = "evaluation_scored"
)

// Entry is one line of the journal. The field order is the key order on
// disk; Hash is the sha256 of the line without its hash (see docs/journal.md).
type Entry struct {
	Seq     int64           `json:"seq"`
	Time    time.Time       `json:"time"`
	Actor   Actor           `json:"actor"`
	Type    EntryType       `json:"type"`
	Step    string          `json:"step,omitempty"`
	Event   string          `json:"event,omitempty"`
	Text    string          `json:"text,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
	Prev    string          `json:"prev"`
	Hash    string          `json:"hash,omitempty"`

	raw []byte
}

// Line is the entry exactly as stored, without its newline; nil for an
// entry that was neither read from nor written to a journal.
func (e Entry) Line() []byte { return e.raw }

// hashKey opens the suffix spliced onto every body: `,"hash":"<hex>"}`.
const hashKey = `,"hash":"`

// hashSuffixLen is the length of `,"hash":"` + 64 hex digits + `"}`.
const hashSuffixLen = len(hashKey) + sha256.Size*2 + 2

// encodeEntry serializes e without its hash, hashes exactly those bytes and
// splices the hash in before the closing brace. Hashing bytes rather than a
// re-serialization keeps verification independent of any JSON encoder.
func encodeEntry(e Entry) (line []byte, hash string, err error) {
	e.Hash, e.raw = "", nil
	body, err := json.Marshal(e)
	if err != nil {
		return nil, "", fmt.Errorf("encode journal entry: %w", err)
	}
	sum := sha256.Sum256(body)
	hash = hex.EncodeToString(sum[:])
	line = make([]byte, 0, len(body)+hashSuffixLen-1)
	line = append(line, body[:len(body)-1]...)
	line = append(line, hashKey...)
	line = append(line, hash...)
	line = append(line, `"}`...)
	return line, hash, nil
}

// splitHash returns the hash a line carries at its end and the hash of its
// body (the line with that suffix replaced by "}"); ok is false when the
// line does not end in a hash.
func splitHash(line []byte) (stored, computed string, ok bool) {
	n := len(line) - hashSuffixLen
	if n < 1 || !bytes.HasPrefix(line[n:], []byte(hashKey)) || !bytes.HasSuffix(line, []byte(`"}`)) {
		return "", "", false
	}
	stored = string(line[n+len(hashKey) : len(line)-2])
	if !isHex(stored) {
		return "", "", false
	}
	h := sha256.New()
	h.Write(line[:n])
	h.Write([]byte("}"))
	return stored, hex.EncodeToString(h.Sum(nil)), true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// decodeEntry parses one line (without its newline) into an entry. It
// checks the shape only; Verify checks the hash and the chain.
func decodeEntry(line []byte) (Entry, error) {
	var e Entry
	if err := json.Unmarshal(line, &e); err != nil {
		return Entry{}, err
	}
	// The encoder never writes a key twice; a line that has one was made
	// to be read one way by one parser and another way by the next.
	if err := noDuplicateKeys(line); err != nil {
		return Entry{}, err
	}
	if _, _, ok := splitHash(line); !ok {
		return Entry{}, errors.New("no hash at the end of the line")
	}
	if e.Seq < 1 {
		return Entry{}, fmt.Errorf("seq %d", e.Seq)
	}
	e.raw = append([]byte(nil), line...)
	return e, nil
}

// decodePayload reads an entry's payload into v.
func decodePayload(e Entry, v any) error {
	if len(e.Payload) == 0 {
		return errors.New("no payload")
	}
	return json.Unmarshal(e.Payload, v)
}

// noDuplicateKeys fails when any object in the JSON value b has a key
// twice.
func noDuplicateKeys(b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	var walk func() error
	walk = func() error {
		t, err := d.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'):
			seen := map[string]bool{}
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return err
				}
				key, _ := k.(string)
				if seen[key] {
					return fmt.Errorf("key %q appears twice", key)
				}
				seen[key] = true
				if err := walk(); err != nil {
					return err
				}
			}
			_, err = d.Token()
			return err
		case json.Delim('['):
			for d.More() {
				if err := walk(); err != nil {
					return err
				}
			}
			_, err = d.Token()
			return err
		}
		return nil
	}
	return walk()
}

// Journal is the case journal of one workspace directory. It needs no
// workspace lock: appends serialize on their own flock, so notes can be
// written while an ingest holds the index. Safe for concurrent use by
// goroutines and by processes.
type Journal struct {
	dir string
	// shared: the owner chose to write into a workspace others can read.
	shared bool

	mu  sync.Mutex
	now func() time.Time
	// signer, when set, signs a checkpoint after every signEvery entries
	// (SignEvery) and at Seal.
	signer    *Signer
	signEvery int64
}

// Open opens the journal of dir, which must exist. The journal file itself
// is created by the first Append.
func Open(dir string) (*Journal, error) {
	st, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s does not exist", ErrNoIncident, dir)
		}
		return nil, fmt.Errorf("open journal: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%w: %s is not a directory", ErrNoIncident, dir)
	}
	return &Journal{dir: dir, now: time.Now}, nil
}

// AllowShared lets appends go into a workspace other users can read
// (see CheckPrivate), which they refuse by default.
func (j *Journal) AllowShared() {
	j.mu.Lock()
	j.shared = true
	j.mu.Unlock()
}

// Writable reports why an append would fail before anything is done that
// the journal must record (an action that changes the world): the
// workspace is shared, or on read-only media.
func (j *Journal) Writable() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return CheckWritable(j.dir, j.shared)
}

// SetClock replaces the clock that stamps entries (tests, drill replays).
func (j *Journal) SetClock(now func() time.Time) {
	j.mu.Lock()
	j.now = now
	j.mu.Unlock()
}

// Now is the journal's clock: wall time, or scenario time in a drill.
func (j *Journal) Now() time.Time {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.now()
}

// Path is the journal file.
func (j *Journal) Path() string { return filepath.Join(j.dir, fileName) }

// Head is the anchor kept in journal.head: the last entry appended. An entry
// deleted from the end leaves the chain intact, so only the anchor shows it.
type Head struct {
	Seq  int64  `json:"seq"`
	Hash string `json:"hash"`
}

// readHead reads journal.head; ok is false when there is none.
func (j *Journal) readHead() (h Head, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(j.dir, headFile))
	if errors.Is(err, os.ErrNotExist) {
		return Head{}, false, nil
	}
	if err != nil {
		return Head{}, false, fmt.Errorf("read journal head: %w", err)
	}
	if err := json.Unmarshal(b, &h); err != nil || h.Seq < 0 || len(h.Hash) != sha256.Size*2 && h.Seq > 0 {
		return Head{}, true, fmt.Errorf("%w: %s is damaged", ErrTampered, headFile)
	}
	return h, true, nil
}

func (j *Journal) writeHead(e Entry) error {
	b, _ := json.Marshal(Head{Seq: e.Seq, Hash: e.Hash})
	if err := writeAtomic(filepath.Join(j.dir, headFile), append(b, '\n')); err != nil {
		return fmt.Errorf("write journal head: %w", err)
	}
	return nil
}

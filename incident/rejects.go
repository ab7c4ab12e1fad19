package incident

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/cordon-ir/cordon/ingest/parse"
	"github.com/cordon-ir/cordon/journal"
)

// rejectLog appends rejects to rejects.jsonl, fsynced, each at most once:
// a resumed ingest re-reads the records after its last checkpoint and must
// not report their rejects twice.
type rejectLog struct {
	f    *os.File
	seen map[string]bool
}

func rejectKey(r parse.Reject) string {
	return r.Format + "\x00" + r.Origin + "\x00" + strconv.FormatInt(r.Offset, 10)
}

func openRejectLog(path string) (*rejectLog, error) {
	old, err := readRejects(path)
	if err != nil {
		return nil, err
	}
	l := &rejectLog{seen: map[string]bool{}}
	for _, r := range old {
		l.seen[rejectKey(r)] = true
	}
	l.f, err = os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, journal.FileMode)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return l, nil
}

func (l *rejectLog) Add(rs []parse.Reject) error {
	var buf []byte
	for _, r := range rs {
		k := rejectKey(r)
		if l.seen[k] {
			continue
		}
		l.seen[k] = true
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		buf = append(append(buf, b...), '\n')
	}
	if len(buf) == 0 {
		return nil
	}
	if _, err := l.f.Write(buf); err != nil {
		return err
	}
	return l.f.Sync()
}

func (l *rejectLog) Close() error { return l.f.Close() }

// readRejects reads rejects.jsonl; a torn last line (a crash mid-write) is
// ignored.
func readRejects(path string) ([]parse.Reject, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []parse.Reject
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 2*parse.MaxRecord)
	for sc.Scan() {
		var r parse.Reject
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			out = append(out, r)
		}
	}
	return out, sc.Err()
}

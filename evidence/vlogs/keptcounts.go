package vlogs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
)

// keptCountsName keeps a case's counts in its workspace folder with the
// generation (generation.go) they are of. Counting every record of a case
// again at each open took over a second at ten million records, and each
// agent's first and last time more; an open whose case is still at that
// generation reads them from the file instead. Any write settled since,
// by this workspace or another writer, changes the generation, and the
// counts are asked of the server again.
const keptCountsName = "victorialogs-counts.json"

type keptCounts struct {
	Case       string          `json:"case"`
	Generation string          `json:"generation"`
	Counts     evidence.Counts `json:"counts"`
}

func (s *Store) keptCountsPath() string {
	return filepath.Join(filepath.Dir(s.state.path), keptCountsName)
}

// openCounts is the case's counts: the kept ones when they are of the
// case's generation now, else the server's, kept in turn when no write
// began or settled while they were read. A store opened read-only keeps
// them too (it writes no events; the file is the folder's, as the
// detectors' replay log is).
func (s *Store) openCounts(ctx context.Context) (evidence.Counts, error) {
	gen, err := s.Generation()
	if err != nil {
		gen = "" // the server's answer below says what is wrong
	}
	if gen != "" {
		if c, ok := s.readKeptCounts(gen); ok {
			return c, nil
		}
	}
	c, err := s.readCounts(ctx)
	if err != nil || gen == "" {
		return c, err
	}
	if after, err := s.Generation(); err == nil && after == gen {
		s.keepCounts(gen, c)
	}
	return c, nil
}

func (s *Store) readKeptCounts(gen string) (evidence.Counts, bool) {
	b, err := os.ReadFile(s.keptCountsPath())
	if err != nil {
		return evidence.Counts{}, false
	}
	var k keptCounts
	if json.Unmarshal(b, &k) != nil || k.Case != s.caseID || k.Generation != gen || k.Counts.Fields == nil {
		return evidence.Counts{}, false
	}
	if k.Counts.Minutes == nil {
		k.Counts.Minutes = map[int64]int64{}
	}
	return k.Counts, true
}

// keepCounts writes c as the counts of generation gen. A file that cannot
// be written (a workspace on read-only media) costs the next open the
// server's count, nothing else.
func (s *Store) keepCounts(gen string, c evidence.Counts) {
	b, err := json.Marshal(keptCounts{Case: s.caseID, Generation: gen, Counts: c})
	if err == nil {
		_ = writeSynced(s.keptCountsPath(), b)
	}
}

// keepWritten keeps the counts after this store's own writes, when the
// case's generation is the one its last settled write made, before and
// after the counts are copied: no write of another began or settled
// since, so the counts are the case's.
func (s *Store) keepWritten() {
	s.wmu.Lock()
	own := s.ownGen
	s.wmu.Unlock()
	if own == "" { // none written (a read-only store writes none)
		return
	}
	gen, err := s.Generation()
	if err != nil || !strings.HasPrefix(gen, own+"/") {
		return
	}
	c := s.Counts()
	if after, err := s.Generation(); err == nil && after == gen {
		s.keepCounts(gen, c)
	}
}

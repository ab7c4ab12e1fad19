package incident

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/platform"
	"github.com/cordon-ir/cordon/playbook"
)

// assessmentFile keeps the case's last Assessment, so that a reader (verdict,
// check's exit status, a console opening) need not run the detectors again
// while nothing it depends on changed.
const assessmentFile = "assessment.json"

// capabilityModel names the capability model and its rule: an Assessment
// kept by another version is computed again.
const capabilityModel = "capability/4"

type assessmentCache struct {
	Key        string                `json:"key"`
	Assessment capability.Assessment `json:"assessment"`
}

// assessmentKey is what the Assessment is a function of: the evidence (its
// key), the subject the journal names ("" for the ranking's default),
// the kill time, the rules and the model.
func (w *Workspace) assessmentKey(s CaseState) (string, bool) {
	rules, ok := w.rulesHash()
	if !ok {
		return "", false
	}
	h := sha256.New()
	for _, part := range []string{capabilityModel, w.evidence(), strings.Join(s.Subject, "\x00"),
		s.Times[playbook.VarContainedAt].UTC().Format(time.RFC3339Nano), rules} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// cachedAssessment is the kept Assessment for key, if it is that one's.
func (w *Workspace) cachedAssessment(key string) (capability.Assessment, bool) {
	b, err := os.ReadFile(filepath.Join(w.Dir, assessmentFile))
	if err != nil {
		return capability.Assessment{}, false
	}
	var c assessmentCache
	if json.Unmarshal(b, &c) != nil || c.Key != key {
		return capability.Assessment{}, false
	}
	return c.Assessment, true
}

// keepAssessment writes the Assessment for key by atomic rename, where the
// workspace can be written; elsewhere (read-only media) it lives in memory.
func (w *Workspace) keepAssessment(key string, a capability.Assessment) {
	if w.isHeld() || platform.Writable(w.Dir) != nil {
		return
	}
	b, err := json.Marshal(assessmentCache{Key: key, Assessment: a})
	if err != nil {
		return
	}
	_ = w.keepFile(filepath.Join(w.Dir, assessmentFile), b)
}

package incident

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cordon-ir/cordon/evidence/remote"
)

// readsFile is where a following process says how to read its index: a
// loopback address and the token a reader sends first. It is written
// 0600 in the private workspace, so only its owner can read through the
// follower, and removed when the follow ends.
const readsFile = "reads.json"

type readsAddr struct {
	Addr  string `json:"addr"`
	Token string `json:"token"`
	PID   int    `json:"pid"`
}

// serveReads serves the workspace's index to other processes of its user
// while this one holds it (a follow); stop ends it and removes the file.
func (w *Workspace) serveReads() (stop func(), err error) {
	token := make([]byte, remote.TokenSize)
	if _, err := rand.Read(token); err != nil {
		return nil, err
	}
	srv, err := remote.Serve(w.store, token)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(readsAddr{Addr: srv.Addr(), Token: hex.EncodeToString(token), PID: os.Getpid()})
	if err == nil {
		err = writeAtomic(filepath.Join(w.Dir, readsFile), b)
	}
	if err != nil {
		srv.Close()
		return nil, err
	}
	return func() {
		os.Remove(filepath.Join(w.Dir, readsFile))
		srv.Close()
	}, nil
}

// dialReads connects to the reader a following process serves for the
// workspace at dir; why says why there is none.
func dialReads(dir string) (r readCloser, why string) {
	b, err := os.ReadFile(filepath.Join(dir, readsFile))
	if err != nil {
		return nil, "the process holding it serves no reads of it"
	}
	var a readsAddr
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Sprintf("%s cannot be read: %v", readsFile, err)
	}
	token, err := hex.DecodeString(a.Token)
	if err != nil || len(token) != remote.TokenSize {
		return nil, fmt.Sprintf("%s holds no token", readsFile)
	}
	c, err := remote.Dial(a.Addr, token)
	if err != nil {
		return nil, fmt.Sprintf("the process that served its reads (pid %d) does not answer: %v", a.PID, err)
	}
	return c, ""
}

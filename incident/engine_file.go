package incident

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/detect"
)

// The kept result's file (engine/result.gob) is a sequence of parts, each
// an 8-byte big-endian length and a gob stream of its own: the head (the
// meta, and how many parts follow), the findings with the coverage and
// the skews, then the capability sets in parts of capPart capabilities.
// Each part decodes on its own, so the parts are decoded side by side: on
// the million-event bench incident the result is 20 MB, 34,622
// capabilities, which one gob message decoded in 360 ms of CPU, a stream
// of small messages in 70 ms, and the parts in about half that wall time
// on two cores.

// errOtherMeta says the kept result is not of the meta asked for.
var errOtherMeta = errors.New("the kept result is of other evidence, rules or version")

// errKeptHead says the file does not begin with a kept result's head.
var errKeptHead = errors.New("no kept result's head at the file's start")

// capPart is how many capabilities one part of the file holds.
const capPart = 4096

type keptHead struct {
	Meta  resultMeta
	Parts int // parts after the head
}

type keptFindings struct {
	Findings []detect.Finding
	Coverage capability.CoverageState
	Skews    []detect.Skew
}

// capMessage is a run of one agent's capabilities.
type capMessage struct {
	Agent string
	Caps  []*capability.Capability
}

// writeKept writes k as the file's parts.
func writeKept(w io.Writer, k keptResult) error {
	var parts [][]any
	parts = append(parts, []any{keptFindings{k.Findings, k.Coverage, k.Skews}})
	var cur []any
	n := 0
	for _, agent := range slices.Sorted(maps.Keys(k.Capabilities)) {
		cs := k.Capabilities[agent]
		for len(cs) > 0 {
			take := min(len(cs), capPart-n)
			cur = append(cur, capMessage{Agent: agent, Caps: cs[:take]})
			cs, n = cs[take:], n+take
			if n == capPart {
				parts, cur, n = append(parts, cur), nil, 0
			}
		}
	}
	if len(cur) > 0 {
		parts = append(parts, cur)
	}
	if err := writePart(w, keptHead{Meta: k.Meta, Parts: len(parts)}); err != nil {
		return err
	}
	for _, p := range parts {
		if err := writePart(w, p...); err != nil {
			return err
		}
	}
	return nil
}

func writePart(w io.Writer, msgs ...any) error {
	var b bytes.Buffer
	e := gob.NewEncoder(&b)
	for _, m := range msgs {
		if err := e.Encode(m); err != nil {
			return err
		}
	}
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(b.Len()))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// readKept reads the kept result of the workspace at dir. When want
// refuses its meta, it returns errOtherMeta with the meta only, having
// read no further.
func readKept(dir string, want func(resultMeta) bool) (keptResult, error) {
	b, err := os.ReadFile(filepath.Join(dir, engineDir, resultFile))
	if err != nil {
		return keptResult{}, err
	}
	head, err := nextPart(&b)
	var h keptHead
	if err == nil {
		err = gob.NewDecoder(bytes.NewReader(head)).Decode(&h)
	}
	if err != nil {
		return keptResult{}, fmt.Errorf("%w: %v", errKeptHead, err)
	}
	if want != nil && !want(h.Meta) {
		return keptResult{Meta: h.Meta}, errOtherMeta
	}
	parts := make([][]byte, h.Parts)
	for i := range parts {
		if parts[i], err = nextPart(&b); err != nil {
			return keptResult{}, fmt.Errorf("part %d of %d: %w", i+1, h.Parts, err)
		}
	}
	if len(parts) == 0 {
		return keptResult{}, errors.New("the kept result has no findings part")
	}
	// what is decoded is all kept: a collection while decoding frees
	// nothing, so let the heap grow (the decoding costs a third less)
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	k := keptResult{Meta: h.Meta, Capabilities: map[string][]*capability.Capability{}}
	caps := make([][]capMessage, len(parts))
	errs := make([]error, len(parts))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(parts)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				d := gob.NewDecoder(bytes.NewReader(parts[i]))
				if i == 0 {
					var kf keptFindings
					errs[i] = d.Decode(&kf)
					k.Findings, k.Coverage, k.Skews = kf.Findings, kf.Coverage, kf.Skews
					continue
				}
				for {
					var m capMessage
					if err := d.Decode(&m); err != nil {
						if !errors.Is(err, io.EOF) {
							errs[i] = err
						}
						break
					}
					caps[i] = append(caps[i], m)
				}
			}
		}()
	}
	for i := range parts {
		work <- i
	}
	close(work)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return keptResult{}, err
	}
	for _, part := range caps {
		for _, m := range part {
			k.Capabilities[m.Agent] = append(k.Capabilities[m.Agent], m.Caps...)
		}
	}
	return k, nil
}

// nextPart takes the next length-prefixed part off b.
func nextPart(b *[]byte) ([]byte, error) {
	if len(*b) < 8 {
		return nil, io.ErrUnexpectedEOF
	}
	size := binary.BigEndian.Uint64((*b)[:8])
	if size > uint64(len(*b)-8) {
		return nil, fmt.Errorf("cut short: a part of %d bytes, %d left", size, len(*b)-8)
	}
	p := (*b)[8 : 8+size]
	*b = (*b)[8+size:]
	return p, nil
}

package incident

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/platform"
)

// The kept result's file (engine/result.gob) is a sequence of parts, each
// an 8-byte big-endian length and a gob stream of its own: the findings
// with the coverage and the skews, their event ids (not gob:
// decodeEvents), the capability sets in parts of capPart capabilities,
// then the head (the meta, and how many parts come before it), and last
// the head's length and keptMagic. Each part is written as it is encoded
// and the head, which holds their checksums, after them: at ten million
// events the parts are 184 MB, which held until a head at the start could
// be written made the keeping the command's peak.
// Each part decodes on its own, so the parts are decoded side by side: on
// the million-event bench incident the result is 20 MB, 34,622
// capabilities, which one gob message decoded in 360 ms of CPU, a stream
// of small messages in 70 ms, and the parts in about half that wall time
// on two cores.
//
// The capability parts are decoded only when a reader asks for a set
// (capability.NewLazySet): the findings part holds each agent's Holding,
// which is all the ranking of agents reads of them, so `findings --by
// agent` decodes no capability (0.37 s -> 0.27 s at a million events),
// and an agent's set alone decodes only the parts its name spans (the
// head holds each part's first and last agent; agents are written in
// order), so the Assessment of a case's subject decodes the subject's.
// Every part's CRC-32C is in the head and checked as the file is read, so
// a damaged part is found then (the result is computed again), not when
// the sets are decoded later.

// errOtherMeta says the kept result is not of the meta asked for.
var errOtherMeta = errors.New("the kept result is of other evidence, rules or version")

// errKeptHead says the file does not end with a kept result's head.
var errKeptHead = errors.New("no kept result's head at the file's end")

// keptMagic ends the file, after the head's length: a file written
// another way (a version that wrote the head first) is told by it.
const keptMagic = "cordonK2"

// capPart is how many capabilities one part of the file holds, and
// capsFrom the first such part (after the findings and their events).
const (
	capPart  = 4096
	capsFrom = 2
)

type keptHead struct {
	Meta  resultMeta
	Parts int      // parts after the head
	CRC   []uint32 // each part's CRC-32C (Castagnoli)
	// First and Last are the first and the last agent of each part
	// (the findings' parts empty): an agent's capabilities are in the
	// parts whose span holds its name, agents being written in order
	First, Last []string
	// Events is how many event ids each finding cites, in the events
	// part, and EventBytes how many bytes of it they take
	Events, EventBytes []int
}

type keptFindings struct {
	// Findings are without their Events, which the events part holds
	Findings []detect.Finding
	Coverage capability.CoverageState
	Skews    []detect.Skew
	// Holdings are every agent's capability.Holding, one per agent of
	// the sets
	Holdings map[string]capability.Holding
	// Kills are the harness's kills (detect.Result.Kills)
	Kills map[string]time.Time
}

// The findings' event ids are the second part, not gob but the ids one
// after the other, each after its length (a uvarint), and the head says
// how many each finding cites and in how many bytes. At ten million
// events the findings cite 3.3 million ids: as strings in each finding
// gob made an allocation of each, and as one byte slice it grew it a
// piece at a time; either way decoding took over a second, where the part
// is now copied once and cut, a share of the findings on each core.

func encodeEvents(fs []detect.Finding) (per, size []int, ids []byte) {
	per, size = make([]int, len(fs)), make([]int, len(fs))
	// made at its size: grown a quarter at a time, the 56 MB of ten
	// million events' ids allocated 300 MB
	total := 0
	for _, f := range fs {
		for _, id := range f.Events {
			total += uvarintLen(uint64(len(id))) + len(id)
		}
	}
	ids = make([]byte, 0, total)
	for i, f := range fs {
		from := len(ids)
		per[i] = len(f.Events)
		for _, id := range f.Events {
			ids = binary.AppendUvarint(ids, uint64(len(id)))
			ids = append(ids, id...)
		}
		size[i] = len(ids) - from
	}
	return per, size, ids
}

// uvarintLen is how many bytes binary.AppendUvarint writes n in.
func uvarintLen(n uint64) int {
	l := 1
	for ; n >= 0x80; n >>= 7 {
		l++
	}
	return l
}

// decodeEvents gives each finding its event ids back from the events
// part, copied out of it.
func decodeEvents(fs []detect.Finding, per, size []int, part []byte) error {
	if len(per) != len(fs) || len(size) != len(fs) {
		return fmt.Errorf("event ids of %d findings (%d sizes) for %d", len(per), len(size), len(fs))
	}
	total := 0
	for i := range per {
		if per[i] < 0 || size[i] < per[i] || size[i] > len(part)-total {
			return fmt.Errorf("finding %d: %d event ids in %d bytes, %d of %d left", i, per[i], size[i], len(part)-total, len(part))
		}
		total += size[i]
	}
	if total != len(part) {
		return fmt.Errorf("%d bytes after the last event id", len(part)-total)
	}
	// the findings in shares of about equal bytes, one per core: the
	// copy's first touch of fresh memory is most of the cost
	shares := min(runtime.GOMAXPROCS(0), 4)
	errs := make([]error, shares)
	var wg sync.WaitGroup
	lo, off := 0, 0
	for sh := range shares {
		hi, end := lo, off
		for hi < len(fs) && (end-off < (len(part)+shares-1)/shares || sh == shares-1) {
			end += size[hi]
			hi++
		}
		wg.Add(1)
		go func(fs []detect.Finding, per, size []int, part []byte) {
			defer wg.Done()
			errs[sh] = cutEvents(fs, per, size, part)
		}(fs[lo:hi], per[lo:hi], size[lo:hi], part[off:end])
		lo, off = hi, end
	}
	wg.Wait()
	return errors.Join(errs...)
}

// cutEvents decodes the ids of fs from their bytes, part, each finding's
// in exactly its size.
func cutEvents(fs []detect.Finding, per, size []int, part []byte) error {
	n := 0
	for _, k := range per {
		n += k
	}
	all, blob, off := make([]string, n), string(part), 0
	for i, k := range per {
		fs[i].Events = nil
		from := off
		if k == 0 {
			if size[i] != 0 {
				return fmt.Errorf("finding %s cites no event in %d bytes", fs[i].ID, size[i])
			}
			continue
		}
		ids := all[:k:k]
		all = all[k:]
		for j := range ids {
			l, w := binary.Uvarint(part[off:])
			if w <= 0 || l > uint64(len(part)-off-w) {
				return fmt.Errorf("event id %d of finding %s: cut short", j, fs[i].ID)
			}
			off += w
			ids[j] = blob[off : off+int(l)]
			off += int(l)
		}
		fs[i].Events = ids
		if off != from+size[i] {
			return fmt.Errorf("the event ids of finding %s take %d bytes, not %d", fs[i].ID, off-from, size[i])
		}
	}
	return nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// capMessage is a run of one agent's capabilities.
type capMessage struct {
	Agent string
	Caps  []*capability.Capability
}

// writeKept writes the file k is kept as to w: each part as it is
// encoded, after its length, then the head with the parts' checksums,
// its length and keptMagic.
func writeKept(w io.Writer, k keptResult) error {
	var crcs []uint32
	put := func(b []byte) error {
		crcs = append(crcs, crc32.Checksum(b, castagnoli))
		return writePart(w, b)
	}
	encode := func(msgs ...any) error {
		b, err := encodePart(msgs...)
		if err != nil {
			return err
		}
		return put(b)
	}
	fs := slices.Clone(k.Findings)
	for i := range fs {
		fs[i].Events = nil
	}
	if err := encode(keptFindings{fs, k.Coverage, k.Skews, k.Holdings, k.Kills}); err != nil {
		return err
	}
	per, size, ids := encodeEvents(k.Findings)
	if err := put(ids); err != nil {
		return err
	}
	first, last := make([]string, capsFrom), make([]string, capsFrom)
	var cur []any
	n := 0
	for _, agent := range slices.Sorted(maps.Keys(k.Capabilities)) {
		cs := k.Capabilities[agent]
		for len(cs) > 0 {
			if len(cur) == 0 {
				first, last = append(first, agent), append(last, agent)
			}
			take := min(len(cs), capPart-n)
			cur = append(cur, capMessage{Agent: agent, Caps: cs[:take]})
			cs, n, last[len(last)-1] = cs[take:], n+take, agent
			if n == capPart {
				if err := encode(cur...); err != nil {
					return err
				}
				cur, n = nil, 0
			}
		}
	}
	if len(cur) > 0 {
		if err := encode(cur...); err != nil {
			return err
		}
	}
	head, err := encodePart(keptHead{Meta: k.Meta, Parts: len(crcs), CRC: crcs, First: first, Last: last, Events: per, EventBytes: size})
	if err != nil {
		return err
	}
	if err := writePart(w, head); err != nil {
		return err
	}
	_, err = w.Write(append(binary.BigEndian.AppendUint64(nil, uint64(len(head))), keptMagic...))
	return err
}

// writePart writes b after its length.
func writePart(w io.Writer, b []byte) error {
	if _, err := w.Write(binary.BigEndian.AppendUint64(nil, uint64(len(b)))); err != nil {
		return err
	}
	_, err := w.Write(b)
	return err
}

func encodePart(msgs ...any) ([]byte, error) {
	var b bytes.Buffer
	e := gob.NewEncoder(&b)
	for _, m := range msgs {
		if err := e.Encode(m); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}

// readKept reads the kept result of the workspace at dir. When want
// refuses its meta, it returns errOtherMeta with the meta only, having
// read no further. The file is mapped, not read (platform.MapFile): the
// capability parts are decoded from the mapping when a reader asks for
// them, so it stays mapped as long as the loader that decodes them can be
// called, and is unmapped by a cleanup once it cannot; everything decoded
// is copied out of it.
func readKept(dir string, want func(resultMeta) bool) (keptResult, error) {
	data, unmap, err := platform.MapFile(filepath.Join(dir, engineDir, resultFile))
	if err != nil {
		return keptResult{}, err
	}
	lent := false
	defer func() {
		if !lent {
			unmap()
		}
	}()
	b, head, err := keptHeadOf(data)
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
		if len(h.CRC) != len(parts) || len(h.First) != len(parts) || len(h.Last) != len(parts) || crc32.Checksum(parts[i], castagnoli) != h.CRC[i] {
			return keptResult{}, fmt.Errorf("part %d of %d: its checksum does not match", i+1, h.Parts)
		}
	}
	if len(b) != 0 {
		return keptResult{}, fmt.Errorf("%d bytes between the last part and the head", len(b))
	}
	if len(parts) < capsFrom {
		return keptResult{}, errors.New("the kept result has no findings part")
	}
	k := keptResult{Meta: h.Meta}
	var kf keptFindings
	if err := gob.NewDecoder(bytes.NewReader(parts[0])).Decode(&kf); err != nil {
		return keptResult{}, fmt.Errorf("the findings part: %w", err)
	}
	if err := decodeEvents(kf.Findings, h.Events, h.EventBytes, parts[1]); err != nil {
		return keptResult{}, fmt.Errorf("the findings' events: %w", err)
	}
	k.Findings, k.Coverage, k.Skews, k.Holdings, k.Kills = kf.Findings, kf.Coverage, kf.Skews, kf.Holdings, kf.Kills
	if k.Holdings == nil {
		k.Holdings = map[string]capability.Holding{}
	}
	// the parts' checksums held: what this version wrote and does not
	// decode is a fault of this version, which an empty set would hide
	fault := func(err error) {
		panic(fmt.Sprintf("the kept capability sets (%s) do not decode: %v", filepath.Join(dir, engineDir, resultFile), err))
	}
	// the loader reads the parts through m alone, so the mapping is
	// reachable exactly as long as the loader is
	m := &mapped{parts: parts}
	lent = true
	runtime.AddCleanup(m, func(unmap func() error) { unmap() }, unmap)
	k.load = capability.Loader{
		All: func() map[string][]*capability.Capability {
			caps, err := decodeCaps(m.parts[capsFrom:])
			runtime.KeepAlive(m) // mapped until decoded
			if err != nil {
				fault(err)
			}
			return caps
		},
		Agent: func(agent string) []*capability.Capability {
			var of [][]byte
			for i := capsFrom; i < len(m.parts); i++ {
				if h.First[i] <= agent && agent <= h.Last[i] {
					of = append(of, m.parts[i])
				}
			}
			caps, err := decodeCaps(of)
			runtime.KeepAlive(m) // mapped until decoded
			if err != nil {
				fault(err)
			}
			return caps[agent]
		},
	}
	return k, nil
}

// mapped holds the parts of a mapped kept result.
type mapped struct{ parts [][]byte }

// decodeCaps decodes the capability parts side by side.
func decodeCaps(parts [][]byte) (map[string][]*capability.Capability, error) {
	// what is decoded is all kept: a collection while decoding frees
	// nothing, so let the heap grow (the decoding costs a third less)
	defer debug.SetGCPercent(debug.SetGCPercent(400))
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
		return nil, err
	}
	out := map[string][]*capability.Capability{}
	for _, part := range caps {
		for _, m := range part {
			out[m.Agent] = append(out[m.Agent], m.Caps...)
		}
	}
	return out, nil
}

// keptHeadOf splits a kept result's file into the parts before its head
// and the head, by what ends it: the head's length and keptMagic.
func keptHeadOf(data []byte) (parts, head []byte, err error) {
	end := len(data) - 8 - len(keptMagic)
	if end < 8 || string(data[end+8:]) != keptMagic {
		return nil, nil, errors.New("the file does not end as a kept result does")
	}
	size := binary.BigEndian.Uint64(data[end : end+8])
	if size > uint64(end-8) {
		return nil, nil, fmt.Errorf("a head of %d bytes in %d", size, end)
	}
	at := end - int(size) - 8
	if binary.BigEndian.Uint64(data[at:at+8]) != size {
		return nil, nil, errors.New("the head's two lengths differ")
	}
	return data[:at], data[at+8 : end], nil
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

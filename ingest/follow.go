package ingest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/cordon-ir/cordon/platform"
)

// Follow ingests inputs, then keeps ingesting what is appended to them every
// interval until ctx ends. Checkpoints make each round read only new bytes.
// A log rotated by rename (access.log -> access.log.1, a new access.log) or
// by copytruncate has its old content found beside it and read to its end
// first: stable event ids make the part already ingested a no-op, so the
// lines written just before the rotation are not lost. Each round's results
// go to round. A round that read new records is followed by the next a
// tenth of interval after it began, at once when it took longer: while
// records keep coming, a line waits for the round after the one it
// missed, not for a pause besides (interval is the pause once the inputs
// are quiet).
//
// A rotation can also happen while a round reads: the round then opens the
// new file, reads it from the top and its checkpoint names the new file, so
// the old one's unread tail is found from the checkpoint the round started
// from (seen), at the next round.
func Follow(ctx context.Context, inputs []string, opt Options, interval time.Duration, round func([]FileResult)) error {
	seen := map[string]Checkpoint{}
	opt.Bounded = true
	for {
		files, err := Expand(inputs)
		if err != nil {
			return err
		}
		files = append(rotated(files, opt, seen), files...)
		began := time.Now()
		res, err := Run(ctx, files, opt)
		if round != nil {
			round(res)
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if ctx.Err() != nil {
			return nil // not a round more: a pause of 0 is as ready as the end
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(pause(res, interval, time.Since(began))):
		}
	}
}

// pause is how long a follow waits after a round that took took: after
// one that read records (stored or not: duplicates and rejects are
// reading too), what remains of a tenth of interval; after a quiet one,
// interval.
//
// Under load a round is mostly work that grows with its records (the
// index's batch) plus a fixed part (the wait for the disk, the checks);
// the next round takes what came meanwhile. A pause after every busy
// round was a fixed part too, and the rounds' length grows with the fixed
// part over the share of time left idle: at 10,000 lines a second on two
// cores, rounds ran 265-317 ms with a 50 ms pause after each, and 57-133 ms
// back to back (docs/performance.md). Busy rounds still begin no more
// than ten an interval, so a trickle of lines is not indexed and synced
// one at a time.
func pause(res []FileResult, interval, took time.Duration) time.Duration {
	for _, r := range res {
		if r.Events > 0 || r.Rejects > 0 || r.Merged > 0 {
			return max(0, interval/10-took)
		}
	}
	return interval
}

// rotated finds, for each followed file that was rotated since its
// checkpoint, the file that now holds its old content. seen holds the
// checkpoint each path had at the previous round's start and is updated:
// when the path's checkpoint names another file or another head since,
// the rotation happened while that round read, and the file holding the
// content of the checkpoint seen then is looked for too.
func rotated(files []string, opt Options, seen map[string]Checkpoint) []string {
	var out []string
	for _, f := range files {
		if f == "-" {
			continue
		}
		abs, err := filepath.Abs(f)
		if err != nil {
			continue
		}
		ck, ok := LoadCheckpoint(opt.Store, abs)
		before, had := seen[abs]
		seen[abs] = ck
		if had && (before.Inode != ck.Inode || before.Head != ck.Head) {
			if old := oldContent(abs, before); old != "" {
				out = append(out, old)
			}
		}
		if old := oldContent(abs, ck); ok && old != "" && !slices.Contains(out, old) {
			out = append(out, old)
		}
	}
	return out
}

// oldContent is the file beside abs that holds ck's content when abs no
// longer does (renamed or truncated since), or "".
func oldContent(abs string, ck Checkpoint) string {
	if ck.Offset == 0 || ck.Inode == 0 {
		return ""
	}
	info, err := os.Stat(abs)
	renamed := err != nil || inode(info) != ck.Inode
	// Truncated in place: shorter than what was read, or (when new lines
	// already made up the length) starting with other bytes.
	truncated := !renamed && (info.Size() < ck.Offset || !sameHead(abs, ck))
	if !renamed && !truncated {
		return ""
	}
	return findOld(abs, ck, renamed)
}

// findOld looks beside path for the file holding a checkpoint's content:
// the same inode after a rename, or the same head and at least its length
// after copytruncate.
func findOld(path string, ck Checkpoint, renamed bool) string {
	dir := filepath.Dir(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if p == path || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		if renamed && inode(info) == ck.Inode && sameHead(p, ck) {
			return p // the same inode with the same first bytes: not a reused inode
		}
		if !renamed && info.Size() >= ck.Offset && sameHead(p, ck) {
			return p
		}
	}
	return ""
}

func sameHead(path string, ck Checkpoint) bool {
	f, err := openRegular(path)
	if err != nil {
		return false
	}
	defer f.Close()
	s := &source{file: f}
	h, ok := s.head(ck.HeadLen)
	return ok && h == ck.Head
}

// inode is the file's inode number (0 where the platform has none).
func inode(info os.FileInfo) uint64 { return platform.FileID(info) }

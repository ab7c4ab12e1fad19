package ingest

import (
	"crypto/sha256"
	"encoding"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"io"
)

// A checkpoint of a plain (not gzip) file carries the digest of the bytes
// before its offset, as the state of a running SHA-256 (Checkpoint.Digest),
// so that a resume — each round of a follow is one — seeks to the offset
// and goes on hashing there, instead of reading and hashing the file from
// its first byte again: a round of a follow costs what was appended, not
// the file. The custody digest (Received) still covers the file from its
// start: the bytes before the offset as they were read when the checkpoint
// was written, which is what was ingested (a later change to them is found
// by cordon custody verify, which hashes the file again).

// prefix hashes a file's bytes up to each checkpoint, reading them at
// their offsets: the stream's own digest runs ahead of the checkpoint by
// what its readers buffer.
type prefix struct {
	h  hash.Hash
	at int64 // bytes hashed
}

// to hashes the file's bytes up to offset and returns the digest's state.
func (p *prefix) to(r io.ReaderAt, offset int64) (string, error) {
	buf := make([]byte, 64<<10)
	for p.at < offset {
		n := int(min(int64(len(buf)), offset-p.at))
		m, err := r.ReadAt(buf[:n], p.at)
		p.h.Write(buf[:m])
		p.at += int64(m)
		if err != nil && m < n {
			return "", err
		}
	}
	return marshalDigest(p.h)
}

func marshalDigest(h hash.Hash) (string, error) {
	m, ok := h.(encoding.BinaryMarshaler)
	if !ok {
		return "", errors.New("digest state cannot be kept")
	}
	b, err := m.MarshalBinary()
	return base64.StdEncoding.EncodeToString(b), err
}

// unmarshalDigest is a SHA-256 in the state a checkpoint kept.
func unmarshalDigest(state string) (hash.Hash, error) {
	b, err := base64.StdEncoding.DecodeString(state)
	if err != nil {
		return nil, fmt.Errorf("checkpoint digest: %w", err)
	}
	h := sha256.New()
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(b); err != nil {
		return nil, fmt.Errorf("checkpoint digest: %w", err)
	}
	return h, nil
}

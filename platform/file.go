package platform

import (
	"os"
	"time"
)

// FileID is the identity of the file info describes that survives a
// rename (the inode on Unix), or 0 where the platform does not say it in
// a FileInfo (Windows): a follower then tells a rotated log by its size
// and head alone.
func FileID(info os.FileInfo) uint64 { return fileID(info) }

// DiskBytes is the space the file takes on disk (allocated blocks, as du
// counts), or its size where the platform does not say.
func DiskBytes(info os.FileInfo) int64 { return diskBytes(info) }

// Writable reports why the calling user may not write into dir (a
// read-only mount, permissions), as access(2) sees it; nil where it may,
// or where the platform cannot tell before a write is tried (Windows).
func Writable(dir string) error { return writable(dir) }

// OpenToOthers reports whether info's mode lets users other than its
// owner read or enter it. Windows decides that by ACLs, which a FileInfo
// does not carry: there it reports false, and privacy is the ACLs' job.
func OpenToOthers(info os.FileInfo) bool { return openToOthers(info) }

// Trust says who may have written the file info describes, as OpenSSH
// asks it of its configuration: others (any user may write it), group
// (its group may), owner (another user owns it, not root), or "" when
// only the calling user or root could have. Windows decides that by
// ACLs, which a FileInfo does not carry: there it reports "".
func Trust(info os.FileInfo) string { return trust(info) }

// ProcessCPU is the CPU time, user and system, this process has used: the
// measure benchmarks report, since wall time on a shared machine is not.
func ProcessCPU() time.Duration { return processCPU() }

//go:build unix

package platform

import (
	"os"
	"syscall"
)

func fileID(info os.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

func diskBytes(info os.FileInfo) int64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return int64(st.Blocks) * 512
	}
	return info.Size()
}

// accessWrite is access(2)'s W_OK.
const accessWrite = 0x2

func writable(dir string) error { return syscall.Access(dir, accessWrite) }

func openToOthers(info os.FileInfo) bool { return info.Mode().Perm()&0o077 != 0 }

func trust(info os.FileInfo) string {
	switch perm := info.Mode().Perm(); {
	case perm&0o002 != 0:
		return "others"
	case perm&0o020 != 0:
		return "group"
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Uid != 0 && int(st.Uid) != os.Getuid() {
		return "owner"
	}
	return ""
}

package journal

import "github.com/cordon-ir/cordon/platform"

// writeAtomic replaces path with data via a synced temporary file, so a
// reader of journal.head or lock.pid never sees it half written.
func writeAtomic(path string, data []byte) error { return platform.WriteAtomic(path, data) }

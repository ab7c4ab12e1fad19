// Package platform holds what cordon needs from the operating system that
// differs between Linux, macOS and Windows: advisory file locks (flock on
// Unix, LockFileEx on Windows) and a file's identity across renames.
// Everything else cordon does goes through the portable os package.
package platform

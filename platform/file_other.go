//go:build !unix

package platform

import "os"

func fileID(os.FileInfo) uint64 { return 0 }

func diskBytes(info os.FileInfo) int64 { return info.Size() }

func writable(string) error { return nil }

func openToOthers(os.FileInfo) bool { return false }

func trust(os.FileInfo) string { return "" }

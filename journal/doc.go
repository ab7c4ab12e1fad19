// Package journal is the case journal of an incident workspace: an
// append-only, hash-chained, fsynced file of who did what and when, with its
// head anchor, its verification and crash repair. It also holds the actor an
// entry names and the advisory lock that keeps one writer per workspace.
package journal

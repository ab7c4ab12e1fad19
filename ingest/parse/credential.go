package parse

import (
	"strings"

	"github.com/cordon-ir/cordon/credentials"
	"github.com/cordon-ir/cordon/evidence"
)

// credentialRead tags an event that reads a credential location of the
// catalogue (credentials.LocationOf) or asks a cloud metadata
// service, whichever source it came from: a tool call that reads a file or
// runs a command line naming one, a process whose arguments name one, a
// file opened, a request to a metadata host. The event keeps its kind; a
// command that names a location has it as its path when it had none.
func credentialRead(ev *evidence.Event) {
	var paths []string
	host := ""
	switch ev.Kind {
	case evidence.KindToolCall:
		if ev.Path != "" && !toolWrites(ev.Tool, ev.Cmdline) && credentials.IsPath(ev.Path) {
			paths = append(paths, ev.Path)
		}
		paths = appendNew(paths, credentials.ReadsIn(ev.Cmdline)...)
		host = metadataIn(ev.URL, ev.Cmdline)
	case evidence.KindProcExec:
		if credentials.IsPath(ev.Path) {
			paths = append(paths, ev.Path)
		}
		paths = appendNew(paths, credentials.ReadsIn(ev.Cmdline)...)
		host = metadataIn(ev.Cmdline)
	case evidence.KindFileOpen, evidence.KindCredAccess:
		if credentials.IsPath(ev.Path) {
			paths = append(paths, ev.Path)
		}
	case evidence.KindNetRequest, evidence.KindNetConnect, evidence.KindDNSQuery:
		urlHost, _ := URLTarget(ev.URL)
		for _, h := range []string{ev.DstHost, ev.DstIP, urlHost} {
			if credentials.MetadataHost(h) {
				host = h
				break
			}
		}
	}
	if len(paths) == 0 && host == "" {
		return
	}
	// a full slice, so that events sharing a parser's tags stay apart
	tags := appendNew(ev.Tags[:len(ev.Tags):len(ev.Tags)], credentials.TagCredRead)
	for _, p := range paths {
		if l, ok := credentials.LocationOf(p); ok {
			tags = appendNew(tags, credentials.TagCredClass+l.Class)
		}
	}
	if host != "" {
		tags = appendNew(tags, credentials.TagCredClass+credentials.ClassMetadata)
	}
	ev.Tags = tags
	if ev.Path == "" && len(paths) > 0 {
		ev.Path = paths[0]
	}
}

func metadataIn(texts ...string) string {
	for _, t := range texts {
		if h, ok := credentials.MetadataHostIn(t); ok {
			return h
		}
	}
	return ""
}

// writeVerbs are the words of a tool's name (write_file, create_file) or
// of its one-word command (a text editor's create, str_replace) that say
// it writes the file it names rather than reads it.
var writeVerbs = []string{"write", "create", "save", "append", "delete", "remove", "mkdir", "chmod", "touch"}

// editorWrites are a text editor tool's commands that change the file.
var editorWrites = map[string]bool{"create": true, "str_replace": true, "insert": true, "undo_edit": true, "write": true}

// toolWrites reports a tool call that only writes the file it names.
func toolWrites(tool, command string) bool {
	if c := strings.ToLower(strings.TrimSpace(command)); c != "" && !strings.ContainsAny(c, " \t") {
		if editorWrites[c] {
			return true
		}
		if c == "view" || c == "read" {
			return false
		}
	}
	t := strings.ToLower(tool)
	for _, v := range writeVerbs {
		if strings.Contains(t, v) {
			return true
		}
	}
	return false
}

func appendNew(list []string, vals ...string) []string {
	for _, v := range vals {
		found := false
		for _, x := range list {
			if x == v {
				found = true
				break
			}
		}
		if !found {
			list = append(list, v)
		}
	}
	return list
}

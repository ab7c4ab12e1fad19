package config

import (
	"fmt"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
	"gopkg.in/yaml.v3"
)

// Pos is where a name stands in the file: line and column, from 1.
type Pos struct{ Line, Col int }

func at(n *yaml.Node) Pos { return Pos{n.Line, n.Column} }

// Problem is one thing in the file that does not read, where it stands.
type Problem struct {
	File string // "" until Load places it
	Pos  Pos
	Msg  string
}

func (p Problem) Error() string {
	where := p.File
	if p.Pos.Line > 0 {
		if where != "" {
			where += ":"
		}
		where += fmt.Sprintf("%d:%d", p.Pos.Line, p.Pos.Col)
	}
	if where == "" {
		return p.Msg
	}
	return where + ": " + p.Msg
}

// Problems are every problem of a file, in the order they stand; each is
// said on its own line.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// nearest is " (did you mean X?)" for the known name one or two edits
// from typed, or "".
func nearest(typed string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := evidence.EditDistance(strings.ToLower(typed), k); d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

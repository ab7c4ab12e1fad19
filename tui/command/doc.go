// Package command is the console's `:` line: the verbs that mirror the
// command line (`:subject agent-12`, `:report md`), completed with tab and
// kept in a history of their own. What a verb does is the root's: this
// package only reads the line.
package command

package common

import (
	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
)

// NewInput is a one-line input in the console's styles (the search bar,
// the : line, the note and reason prompts): a steady cursor, at most
// limit characters.
func NewInput(st *Styles, prompt, placeholder string, limit int) textinput.Model {
	in := textinput.New()
	in.Prompt = prompt
	in.PromptStyle = st.Prompt
	in.TextStyle = st.Input
	in.PlaceholderStyle = st.Dim
	in.Cursor.Style = st.Prompt.Reverse(true)
	in.Cursor.TextStyle = st.Input
	in.Placeholder = placeholder
	in.CharLimit = limit
	in.Cursor.SetMode(cursor.CursorStatic)
	return in
}

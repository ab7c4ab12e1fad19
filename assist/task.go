package assist

import (
	"embed"
	"errors"
	"fmt"
	"strings"
)

// Task is one of the assistant's fixed jobs. Each has its own system
// prompt; there is no general chat.
type Task string

// The tasks.
const (
	TaskSummarize  Task = "summarize"
	TaskTimeline   Task = "timeline"
	TaskCluster    Task = "cluster"
	TaskExplain    Task = "explain"
	TaskHypotheses Task = "hypotheses"
	TaskAsk        Task = "ask"
	// TaskQuery turns a question in plain words into a cordon query; the
	// responder sees it, with its hit count, before it runs.
	TaskQuery Task = "query"
)

// Tasks lists every task in the order a menu shows them.
func Tasks() []Task {
	return []Task{TaskSummarize, TaskTimeline, TaskCluster, TaskExplain, TaskHypotheses, TaskAsk, TaskQuery}
}

// ErrUnknownTask: the task is not one of Tasks().
var ErrUnknownTask = errors.New("unknown assistant task")

//go:embed prompts/*.md
var promptFS embed.FS

// NeedsQuestion reports whether t works on a question the responder
// types.
func (t Task) NeedsQuestion() bool { return t == TaskAsk || t == TaskQuery }

// Valid reports whether t is one of Tasks().
func (t Task) Valid() bool {
	for _, k := range Tasks() {
		if t == k {
			return true
		}
	}
	return false
}

// SystemPrompt returns the system prompt of task t: the shared defender
// preamble followed by the task's own instructions.
func SystemPrompt(t Task) (string, error) {
	if !t.Valid() {
		return "", fmt.Errorf("%w %q: want one of %s", ErrUnknownTask, t, taskList())
	}
	pre, err := promptFS.ReadFile("prompts/preamble.md")
	if err != nil {
		return "", fmt.Errorf("prompt preamble: %w", err)
	}
	body, err := promptFS.ReadFile("prompts/" + string(t) + ".md")
	if err != nil {
		return "", fmt.Errorf("prompt %s: %w", t, err)
	}
	return strings.TrimSpace(string(pre)) + "\n\n" + strings.TrimSpace(string(body)) + "\n", nil
}

func taskList() string {
	var names []string
	for _, t := range Tasks() {
		names = append(names, string(t))
	}
	return strings.Join(names, ", ")
}

package incident

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/cordon-ir/cordon/platform"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/playbook"
	"github.com/cordon-ir/cordon/sigma"
	"gopkg.in/yaml.v3"
)

// configFile is the workspace's settings, beside the index.
const configFile = "cordon.yaml"

// ErrConfig: cordon.yaml does not parse or says something impossible.
var ErrConfig = errors.New("bad configuration")

// Config is what a workspace's cordon.yaml sets. Every field is optional;
// API keys are never read from it (they come from the environment only).
type Config struct {
	// trust is who else could have written the file (platform.Trust): ""
	// for only its user or root.
	trust string
	// Name is the incident's name as people call it ("Egress probe and
	// exfiltration, eval run 4471"): the title of its report.
	Name string `yaml:"name"`
	// Playbook is a playbook file, or a folder of them, used instead of the
	// built-in one; relative paths are relative to the workspace.
	Playbook string `yaml:"playbook"`
	// PlaybookID picks one playbook from a folder (or the built-in
	// agent-containment) when the folder holds several.
	PlaybookID string `yaml:"playbook_id"`
	// Rules is a detection rule file or folder added to the built-in rules.
	Rules string `yaml:"rules"`
	// Sigma are Sigma rule files or folders added to the built-in rules
	// (docs/sigma.md); a rule cordon refuses makes the configuration bad.
	Sigma []string `yaml:"sigma"`
	// SigmaPipeline is a pySigma processing pipeline used instead of the
	// built-in one (sigma/cordon-pipeline.yml).
	SigmaPipeline string `yaml:"sigma_pipeline"`
	// Actions are the command templates playbook steps may run, by name.
	Actions map[string]ActionConfig `yaml:"actions"`
	// Variables are what a value must look like to fill an action's
	// command, by variable: a regular expression the whole value must
	// match, in place of DefaultValuePattern (a credential that is an
	// ARN, say).
	Variables map[string]string `yaml:"variables"`
	// Assistant is the LLM endpoint of the defender-mode assistant.
	Assistant AssistantConfig `yaml:"assistant"`
	// Store keeps the case's events in a store outside the folder
	// (victorialogs://host:port[,host:port]), as ingest's --store does;
	// the two must agree when both are given (docs/victorialogs.md).
	Store string `yaml:"store"`
	// Suppress are suppressions the team keeps with the case's
	// configuration; each is journaled, with the file's digest, the
	// first time a workspace reads them (see Workspace.Suppressions).
	Suppress []SuppressConfig `yaml:"suppress"`
	// Eval is what the console's Evaluation pane scores (docs/eval.md).
	Eval EvalConfig `yaml:"eval"`
	// Follow is how a following ingest orders its inputs for the
	// detectors (FollowConfig).
	Follow FollowConfig `yaml:"follow"`

	dir string
}

// EvalConfig is the suite and the run the console scores a case with,
// as `cordon eval run SUITE --run ID` would.
type EvalConfig struct {
	// Suite is a suite file (relative to the workspace); the built-in
	// suite when empty.
	Suite string `yaml:"suite"`
	// Run is the ledger run id scored first; the whole case when empty.
	Run string `yaml:"run"`
}

// ActionConfig is a command a step can run after typed confirmation.
type ActionConfig struct {
	Title string `yaml:"title"`
	// Run is the command line: words split on spaces, '…' and "…" group,
	// no shell. {{variables}} fill in within a word; a variable with several
	// values runs the command once per value.
	Run string `yaml:"run"`
	// Timeout bounds one run (default 60s).
	Timeout string `yaml:"timeout"`
}

// AssistantConfig points the assistant at an OpenAI-compatible endpoint.
type AssistantConfig struct {
	BaseURL      string `yaml:"base_url"`
	Model        string `yaml:"model"`
	BudgetTokens int    `yaml:"budget_tokens"`
	JSONSchema   *bool  `yaml:"json_schema"`
	Timeout      string `yaml:"timeout"`
	// TimeoutPer1K is added to Timeout per thousand tokens of prompt and
	// reply ("20s"; "0s" for none).
	TimeoutPer1K string `yaml:"timeout_per_1k_tokens"`
	// ContextTokens is the model's context size, MaxTokens the reply's
	// limit: the packet gets what is left.
	ContextTokens int `yaml:"context_tokens"`
	MaxTokens     int `yaml:"max_tokens"`
	// MaxReplyBytes caps the bytes read of one reply (default 4 MiB).
	MaxReplyBytes int `yaml:"max_reply_bytes"`
	// Endpoint names the server's kind: llama-server, ollama, vllm or
	// openai (default: found by the probe).
	Endpoint string `yaml:"endpoint"`
}

// maxConfigBytes bounds cordon.yaml: a configuration is a page or two.
const maxConfigBytes = 1 << 20

// defaultActionTimeout bounds an action whose config names none.
const defaultActionTimeout = 60 * time.Second

// actionName is how actions are named in cordon.yaml and playbooks.
var actionName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// LoadConfig reads DIR/cordon.yaml; a workspace without one gets the
// defaults. A file another user could have written is refused the way
// OpenSSH refuses its configuration: writable by every user, always;
// writable by its group or owned by another user (not root), unless the
// workspace is shared on purpose (shared: --allow-shared), and even then
// its actions never run.
func LoadConfig(dir string, shared bool) (*Config, error) {
	c := &Config{dir: dir}
	path := filepath.Join(dir, configFile)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	switch c.trust = platform.Trust(info); {
	case c.trust == "others":
		return nil, fmt.Errorf("%w: %s is writable by every user (mode %v): anyone could have written its rules and actions; chmod o-w it", ErrConfig, path, info.Mode().Perm())
	case c.trust != "" && !shared:
		return nil, fmt.Errorf("%w: %s %s: another user could have written its rules and actions; fix its owner or mode, or pass --allow-shared to read it (its actions still never run)",
			ErrConfig, path, map[string]string{"group": "is writable by its group", "owner": "is owned by another user"}[c.trust])
	}
	b, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > maxConfigBytes {
		return nil, fmt.Errorf("%w: %s is over %d bytes", ErrConfig, path, maxConfigBytes)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) { // io.EOF: an empty file
		return nil, fmt.Errorf("%w: %s: %v", ErrConfig, path, err)
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrConfig, path, err)
	}
	return c, nil
}

// Validate checks what YAML decoding cannot: names, templates, durations.
func (c *Config) Validate() error {
	if err := c.Follow.check(); err != nil {
		return err
	}
	if c.Store != "" {
		if _, err := remoteOpener(c.Store); err != nil {
			return fmt.Errorf("store: %v", err)
		}
	}
	for i, s := range c.Suppress {
		if err := checkScope(s.Scope, s.Reason); err != nil {
			return fmt.Errorf("suppress %d: %v", i+1, err)
		}
	}
	names := make([]string, 0, len(c.Actions))
	for n := range c.Actions {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		a := c.Actions[n]
		if !actionName.MatchString(n) {
			return fmt.Errorf("action %q: names are lowercase letters, digits and dashes", n)
		}
		argv, err := splitWords(a.Run)
		if err != nil {
			return fmt.Errorf("action %s: run: %v", n, err)
		}
		if len(argv) == 0 {
			return fmt.Errorf("action %s: run is empty", n)
		}
		for _, w := range argv {
			for _, v := range playbook.Names(w) {
				if !playbook.IsVariable(v) {
					return fmt.Errorf("action %s: unknown variable {{%s}}", n, v)
				}
			}
		}
		if _, err := a.timeout(); err != nil {
			return fmt.Errorf("action %s: %v", n, err)
		}
	}
	if err := c.validateVariables(); err != nil {
		return err
	}
	if c.Assistant.Timeout != "" {
		if _, err := time.ParseDuration(c.Assistant.Timeout); err != nil {
			return fmt.Errorf("assistant: timeout: %v", err)
		}
	}
	if c.Assistant.BudgetTokens < 0 || c.Assistant.ContextTokens < 0 || c.Assistant.MaxTokens < 0 || c.Assistant.MaxReplyBytes < 0 {
		return fmt.Errorf("assistant: budget_tokens, context_tokens and max_tokens must be positive")
	}
	if c.Assistant.TimeoutPer1K != "" {
		if _, err := time.ParseDuration(c.Assistant.TimeoutPer1K); err != nil {
			return fmt.Errorf("assistant: timeout_per_1k_tokens: %v", err)
		}
	}
	return nil
}

func (a ActionConfig) timeout() (time.Duration, error) {
	if a.Timeout == "" {
		return defaultActionTimeout, nil
	}
	d, err := time.ParseDuration(a.Timeout)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("timeout %q is not a duration such as 30s", a.Timeout)
	}
	return d, nil
}

// Path resolves a path of the config against the workspace.
func (c *Config) Path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.dir, p)
}

// LoadPlaybook returns the playbook the workspace follows: the configured
// file, the one of a configured folder (PlaybookID picks among several,
// the built-in one included), or the built-in agent-containment playbook.
func (c *Config) LoadPlaybook() (*playbook.Playbook, error) {
	builtin := playbook.Builtin()
	if c.Playbook == "" {
		if c.PlaybookID != "" && c.PlaybookID != builtin.ID {
			return nil, fmt.Errorf("%w: playbook_id %q: no playbook folder is configured (the built-in one is %s)", ErrConfig, c.PlaybookID, builtin.ID)
		}
		return builtin, nil
	}
	path := c.Path(c.Playbook)
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%w: playbook: %v", ErrConfig, err)
	}
	if !info.IsDir() {
		return playbook.Load(path)
	}
	pbs, err := playbook.LoadDir(path)
	if err != nil {
		return nil, err
	}
	if c.PlaybookID == "" && len(pbs) == 1 {
		return pbs[0], nil
	}
	ids := []string{builtin.ID}
	for _, pb := range append(pbs, builtin) {
		if pb.ID == c.PlaybookID {
			return pb, nil
		}
		if pb != builtin {
			ids = append(ids, pb.ID)
		}
	}
	return nil, fmt.Errorf("%w: %s holds %d playbooks: set playbook_id to one of %s", ErrConfig, path, len(pbs), strings.Join(ids, ", "))
}

// LoadRules returns the detection rules: the built-in set plus the rules
// configured, which must not reuse a built-in id.
func (c *Config) LoadRules() ([]detect.Rule, error) {
	rules, err := detect.Builtin()
	if err != nil {
		return nil, fmt.Errorf("built-in rules: %w", err)
	}
	if c.Rules != "" {
		more, err := detect.Load(c.Path(c.Rules))
		if err != nil {
			return nil, err
		}
		rules = append(rules, more...)
	}
	if len(c.Sigma) > 0 {
		more, err := c.sigmaRules()
		if err != nil {
			return nil, err
		}
		rules = append(rules, more...)
	}
	if err := detect.Unique(rules); err != nil {
		return nil, err
	}
	return rules, nil
}

// sigmaRules loads the Sigma rules cordon.yaml names. Every rule must
// load: one refused is an error naming it, so that a case never runs
// with part of what its configuration says.
func (c *Config) sigmaRules() ([]detect.Rule, error) {
	var p *sigma.Pipeline
	if c.SigmaPipeline != "" {
		var err error
		if p, err = sigma.LoadPipeline(c.Path(c.SigmaPipeline)); err != nil {
			return nil, fmt.Errorf("%w: sigma_pipeline: %w", ErrConfig, err)
		}
	}
	paths := make([]string, len(c.Sigma))
	for i, s := range c.Sigma {
		paths[i] = c.Path(s)
	}
	set, err := sigma.Load(p, paths...)
	if err != nil {
		return nil, fmt.Errorf("%w: sigma: %w", ErrConfig, err)
	}
	if len(set.Refused) > 0 {
		errs := make([]error, len(set.Refused))
		for i, r := range set.Refused {
			errs[i] = r
		}
		return nil, fmt.Errorf("%w: sigma: %d rule(s) cordon cannot run (remove them from the folder, or name the files that load): %w",
			ErrConfig, len(set.Refused), errors.Join(errs...))
	}
	return set.Rules, nil
}

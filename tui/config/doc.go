// Package config reads the responder's own console settings from
// $XDG_CONFIG_HOME/cordon/config.yaml: key remaps, aliases for `:`
// commands, saved searches and the palette. A console is given the value;
// nothing here is a global.
package config

package sigma

import (
	"net/netip"
	"regexp"
	"strconv"
	"strings"
)

// modifiers cordon runs; the value says what kind each is.
var modifiers = map[string]string{
	"contains": "string", "startswith": "string", "endswith": "string", "windash": "string",
	"base64": "string", "base64offset": "string",
	"all": "generic", "cased": "generic", "neq": "generic",
	"re": "re", "i": "reflag", "m": "reflag", "s": "reflag",
	"cidr": "cidr", "exists": "exists", "fieldref": "fieldref",
	"lt": "num", "lte": "num", "gt": "num", "gte": "num",
}

// refusedModifiers are modifiers of the specification cordon does not run,
// and why.
var refusedModifiers = map[string]string{
	"utf16le": "cordon's events hold UTF-8 text, where a UTF-16 encoded value never appears",
	"utf16be": "cordon's events hold UTF-8 text, where a UTF-16 encoded value never appears",
	"utf16":   "cordon's events hold UTF-8 text, where a UTF-16 encoded value never appears",
	"wide":    "cordon's events hold UTF-8 text, where a UTF-16 encoded value never appears",
	"expand":  "placeholders (%name%) need value lists that cordon's pipeline does not define",
	"minute":  "time modifiers are not supported yet",
	"hour":    "time modifiers are not supported yet",
	"day":     "time modifiers are not supported yet",
	"week":    "time modifiers are not supported yet",
	"month":   "time modifiers are not supported yet",
	"year":    "time modifiers are not supported yet",
}

// checkItem refuses modifiers cordon does not run, combinations that have
// no meaning, and values a modifier cannot take, at the item's place.
func checkItem(f *refuser, it *Item) *Refusal {
	kinds := map[string]bool{}
	for _, m := range it.Mods {
		if why, ok := refusedModifiers[m]; ok {
			return f.at(it.node, "modifier %q: %s", m, why)
		}
		k, ok := modifiers[m]
		if !ok {
			return f.at(it.node, "unknown modifier %q", m)
		}
		kinds[k] = true
	}
	special := 0
	for _, k := range []string{"re", "cidr", "exists", "fieldref", "num"} {
		if kinds[k] {
			special++
		}
	}
	if special > 1 || special == 1 && kinds["string"] {
		return f.at(it.node, "modifiers %s cannot be combined", strings.Join(it.Mods, "|"))
	}
	if kinds["reflag"] && !kinds["re"] {
		return f.at(it.node, "modifiers i, m and s belong to re")
	}
	if it.has("all") && len(it.Values) < 2 {
		return f.at(it.node, "all needs two or more values (the specification refuses it on one)")
	}
	if it.has("all") && it.has("neq") {
		return f.at(it.node, "all and neq together have no agreed meaning")
	}
	if it.Field == "" && special > 0 {
		return f.at(it.node, "keywords take string modifiers only")
	}
	for _, v := range it.Values {
		if v.Null && len(it.Mods) > 0 {
			return f.at(v.node, "null takes no modifier")
		}
		if v.Null {
			continue
		}
		switch {
		case kinds["exists"]:
			if v.S != "true" && v.S != "false" {
				return f.at(v.node, "exists takes true or false, not %q", v.S)
			}
		case kinds["num"]:
			if _, err := strconv.ParseFloat(v.S, 64); err != nil {
				return f.at(v.node, "%s takes a number, not %q", strings.Join(it.Mods, "|"), v.S)
			}
		case kinds["cidr"]:
			if _, err := netip.ParsePrefix(v.S); err != nil {
				return f.at(v.node, "cidr %q: %v", v.S, err)
			}
		case kinds["re"]:
			if _, err := regexp.Compile(v.S); err != nil {
				return f.at(v.node, "re %q is not a regular expression cordon can run (Go RE2 syntax: no lookaround or backreferences): %v", v.S, err)
			}
		case kinds["fieldref"]:
			if v.S == "" {
				return f.at(v.node, "fieldref names a field")
			}
		}
	}
	return nil
}

func compileRegexp(src string) (*regexp.Regexp, error) { return regexp.Compile(src) }

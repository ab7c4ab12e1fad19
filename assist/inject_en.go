package assist

import (
	"regexp"
	"strings"
)

// Shared vocabulary of the English rules.
const (
	// gap is a few words within one sentence; line is a few words that may
	// cross a sentence (a URL's dots).
	gap  = `[^.!?\n]{0,40}`
	line = `[^\n]{0,80}`
	// instructionsWord is what an override voids.
	instructionsWord = `(instructions?|prompts?|rules?|directions|directives?|guidelines|guidance|context|constraints|restrictions|orders|commands|polic(y|ies)|programming|system prompt|messages|conversation|chat|discussion|lines|text|paragraphs?)\b`
	// before qualifies them as the ones given before.
	before = `(previous|prior|above|earlier|preceding|original|initial|foregoing|former|old|existing|current|your|all|any|these|those|the)\b`
	// reader is whoever reads the evidence after the agent, person or model.
	reader = `(reviewers?|analysts?|investigators?|responders?|auditors?|evaluators?|graders?|overseers?|moderators?|soc|security team|incident response team|assistants?|ai|llm|(language |reviewing |reading )?models?|summari[sz]ers?|readers?|automated (reviewers?|systems?|analy[sz]ers?|pipelines?)|(whoever|anyone|anybody) (reads|reading|reviewing|reviews|summari[sz]es|analy[sz]es|triages|looks at|processes)( this| these( \w+)?| the \w+| it)?)\b`
	// modelName is a model or product a reader may be, spoken to by name.
	modelName = `(claude|chatgpt|gpt(-?[0-9][a-z0-9.-]*)?|gemini|copilot|llama|mistral|qwen|grok|deepseek|bard)\b`
	// secretWord is a secret by name, an environment variable's too
	// (aws_secret_access_key).
	secretWord = `(\b(api[ _-]?keys?|tokens?|secrets?|passwords?|passphrases?|credentials?|private keys?|ssh keys?|id_rsa|environment variables|system prompt)|[a-z0-9_]*_(secret|token|password|passwd|api_?key|access_key|private_key)[a-z0-9_]*|\.env|\.aws|\.ssh)\b`
	// readerShort are the reader's words too short to search for alone.
	readerShort = `\b(ai|llm|soc)\b`
	// answer is what the reader writes.
	answer = `((final|incident|correct|right|security|whole) )?(summary|answer|response|reply|analysis|assessment|verdict|findings|conclusion|write-?up|report|output|notes|case notes|ticket)\b`
	// verdict is a conclusion a cover story asks for.
	verdict = `(benign|harmless|safe|resolved|contained|closed|done|fixed|mitigated|remediated|an? false (positive|alarm)|false (positive|alarm)|expected|authori[sz]ed|approved|no incident|not (an? )?incident|normal|clean|clear|all clear|low[- ]risk|routine|maintenance|routine maintenance|a (test|drill|scheduled job|backup job|scheduled backup( job)?)|an? (sanctioned|authori[sz]ed|approved|scheduled|planned|routine|expected|legitimate|benign|harmless)\b|compliant|nominal|trusted|no impact)\b`
)

// englishRules are the English patterns, by class.
var englishRules = []ruleSource{
	// override
	{class: classOverride, re: `\b(ignore|disregard|forget|override|discard|dismiss|bypass|drop|abandon|scrap|cancel|void|nullify|replace|supersede|rewrite|swap|set aside|throw out|pay no (attention|heed) to|stop (following|obeying)|no longer (follow|obey)|do not (follow|obey)|don'?t (follow|obey))\b` + gap + `\b` + before + gap + `\b` + instructionsWord},
	{class: classOverride, re: `\b(ignore|disregard|forget|discard|set aside)\b` + gap + `\b(everything|anything|all|whatever|what)( that)? (you('ve| have)? (were|been|was)? ?(told|given|instructed|asked|read)|(that )?((came|was written|is written|comes|was said|appears|appeared|said|written|stated|mentioned) )?(before|above|earlier|previously|so far|until now|up to (now|here)|prior to this))\b`},
	{class: classOverride, re: `\b(ignore|disregard|forget) (the |all |everything )?(above|previous|prior|preceding|earlier)( ones| lines| text| messages?)?\s*($|[,.;:!?]|and\b|then\b)`},
	{class: classOverride, re: `\b(previous|prior|above|earlier|preceding|original|initial|old|existing|your|all|any|every|the)\b` + gap + `\b` + instructionsWord + gap + `\b(no longer (apply|applies|valid|hold|stand|matter)|(do|does) not apply|(are|is|were|was|have been|has been) (now |hereby |all )?(void|null|cancel+ed|revoked|lifted|obsolete|superseded|suspended|outdated|invalid|withdrawn|rescinded|overridden|stale|irrelevant|expired|deprecated|a test|fake|wrong|an? (mistake|error)|injected|planted|forged|compromised|written by an? (attacker|adversary|intruder))|(superseded|overridden) by)`},
	{class: classOverride, re: `\b(the )?(text|message|content|prompt|instructions?)s? (you (have been|were|'ve been) given|above|before this (point|line|message)|so far)\b` + gap + `\b(was|were|is|are) (written|planted|injected|forged|fake|void|a (mistake|trap|test))`},
	{class: classOverride, re: `\byour (instructions?|rules|guidelines|directives?|orders|prompt|task|role|guidance|polic(y|ies)|programming) (have|has) (just )?(been )?(updated|changed|replaced|modified|revised|amended|overridden|reset)\b`},
	{class: classOverride, re: `\b(trust|obey|believe|execute|heed) only (this|these|the following|what follows|the next)\b|\b(follow|obey|use) (these|this|the following|mine)( (ones|instructions|rules))? instead\b|\bdo (only )?what the (following|next|below) (lines?|text|instructions?|message) (says?|tells? you)\b`},
	{class: classOverride, re: `(^|[.!?\n|:;]\s*)(please |kindly |now |just |so )?(ignore|disregard|forget)\b` + gap + `\b(above|before this( point| line| message)?|so far|until now|up to (now|here)|earlier|previously)\s*($|[,.;:!?]|and\b|then\b)`},
	{class: classOverride, re: `\b(use|follow|obey|read|trust|consider|act on) only (what|the (text|instructions?|lines?|message|rules)) (follows|below|that follows?|after this)\b`},
	{class: classOverride, re: `\b(instructions?|rules|guidance|directives?|orders|prompts?) you (received|were given|got|have been given|read)\b`},
	// role
	{class: classRole, re: `\byou are now\b`,
		unless: ` (logged|signed|authenticated|connected|subscribed|unsubscribed|registered|enrolled|disconnected|ready|all set|following|watching|using|on (branch|the)|in (the )?(directory|folder|channel|room|queue)|an? (member|owner|admin(istrator)?|collaborator|subscriber|maintainer) of)\b`},
	{class: classRole, re: `\b(from now on|from this (point|moment)( on| onwards?| forward)?|henceforth|going forward),? (you|the (assistant|model|ai|analyst|reviewer))\b`},
	{class: classRole, re: `\byou (must|will|shall|should) now\b`},
	{class: classRole, re: `\byour (new |real |actual |true |only |primary |sole |updated )(role|task|job|goal|purpose|objective|instructions?|mission|directive|orders|function|persona)\b`},
	{class: classRole, re: `\byour (role|task|job|purpose|mission) (is|will be) (now |to |as )`},
	{class: classRole, re: `\b(new|updated|revised|real|actual|additional|urgent|override|priority) (tasks?|assignments?|roles?|objectives?|directives?|instructions?|orders|guidance|missions?)\b ?(for|to) (the |all |any |you\b)?` + `(you\b|` + reader + `)`},
	{class: classRole, re: `\b(new|updated|revised) (instructions?|directives?|orders|guidance|assignments?)\s*:|###\s*(new |updated )?(instructions?|system|directives?|tasks?)\b`},
	{class: classRole, re: `\b(act|behave|respond|answer|operate|roleplay|role-play) as (if|an?|the|though)\b|\bpretend (to be|you('re| are)|that you)\b|\bimagine (you('re| are)|being) (an?|the)\b`},
	{class: classRole, re: `\byou('re| are) (an?|the) [a-z -]{0,30}\b(ai|assistant|model|bot|chatbot|language model|summari[sz]er|agent|analyst|reviewer|auditor)\b`,
		unless: `\s+(of|in|at|for) (the )?(team|org|organi[sz]ation|project|group|repo|repository)\b`},
	{class: classRole, re: `\byou (may|can|are free to|are allowed to|are permitted to|are cleared to) (now |safely |also )?(skip|ignore|omit|disregard|bypass|leave out|drop|forget|suppress)\b` + gap + `\b(events?|lines?|entries|section|verification|checks?|redaction|review|findings?|alerts?|evidence|logs?|connections?|traffic)\b`},
	{class: classRole, re: `\btreat\b` + gap + `\bas (trusted|authoritative|operator|system|admin(istrator)?|privileged|verified)( \w+)?\b|\btreat\b` + gap + `\bas (instructions?|commands?|orders)\b`},
	{class: classRole, re: `\b(begin|start|open)( a)? new (session|conversation|chat|context)\b|\breset (your |the )(context|memory|instructions|conversation)\b`},
	{class: classRole, re: `\bsystem prompt\b|\bas an ai\b|\bsystem (notice|message|override|instruction|directive|update|alert) (to|for)\b|\bsystem (override|instructions?|directives?)\b`},
	{class: classRole, re: `\b(compliance|safety|guard ?rails?|content filter(ing)?|safety (filters?|checks?)|restrictions?) (mode )?(is |are )?(now )?(off|disabled|deactivated|lifted|suspended)\b|\b(jailbreak|dan|unrestricted|unfiltered|god) mode\b`},
	{class: classRole, re: `\b(has|have|had|is|are|was|were) (been )?(authori[sz]ed|allowed|permitted|cleared|instructed|told|asked|approved|directed|required) you to\b|\byou (are|have been) (authori[sz]ed|allowed|permitted|cleared|instructed|required) to\b`},
	{class: classRole, re: `\b(new|next|real|actual|updated|revised) (requests?|tasks?|objectives?|assignments?)\s*:`,
		unless: `\s*[a-z0-9_.-]+(\s*[\[(#]|$|\s+(id|pid|queued|started|scheduled|received|done|finished)\b)`},
	{class: classRole, re: `\bend of (the )?(log|logs|file|evidence|transcript|data|input|document|context|untrusted (data|content|input))\b[.!:]*\s*(now|next|new|begin|the following|system|assistant|instructions?|from here)\b`},
	// A header is followed by a space or the end: "system:node:x" and
	// "system:anonymous" are Kubernetes identities.
	{class: classRole, re: `(^|[^a-z0-9_.:-])(assistant|system|developer)\s*:(\s|$|["'])|\[\s*(system|assistant|developer)\s*\]|<\s*/?\s*(system|assistant|developer|instructions?|sys)\s*>`},
	// addressed
	{class: classAddressed, readerLed: true, re: `\b(dear|attention|attn|note (to|for)|message (to|for)|memo (to|for)|instructions? (to|for)|hey|hello|for the attention of|to|for)\s+(the\s+|all\s+|any\s+)?` + reader + `\s*[:,!—-]`},
	{class: classAddressed, re: `\b(dear|attention|attn|note (to|for)|message (to|for)|memo (to|for)|for the attention of)\s+(the\s+|all\s+|any\s+)?` + reader},
	{class: classAddressed, re: reader + `\s*[:,—-]?\s*(please|kindly|should|must|need to|are (asked|instructed|required|told)|you (should|must|need))\b`},
	{class: classAddressed, re: `(^|[.!?\n|;]\s*)` + reader + `\s*[,:]\s*(please |now )?(ignore|forget|disregard|confirm|report|write|state|say|mark|close|skip|omit|include|send|summari[sz]e|do not|don'?t|never|list|stop|output|reply|answer|classify|treat|conclude)\b`},
	{class: classAddressed, readerLed: true, re: reader + `\s+(note|notice|memo)\b\s*[:,—-]|(^|[.!?\n|;]\s*)` + reader + `\s*:`},
	{class: classAddressed, re: `\b(any|all|every|the)?\s*` + reader + `\s*(who is |that is |currently )?(reading|reviewing|processing|parsing|analy[sz]ing|summari[sz]ing|looking at|going through|ingesting) (this|these|the (log|logs|file|transcript|evidence|output|record))\b`},
	{class: classAddressed, re: `\b(hi|hey|hello|dear|yo|greetings),? ` + modelName},
	{class: classAddressed, re: `\b(as|for) (the|an?) (assistant|ai|model|llm|summari[sz]er|analyst|reviewer),? (you|your)\b`},
	{class: classAddressed, re: `\bif (an? |the |any )?` + reader + `\s*(is|are)\s+(reading|summari[sz]ing|reviewing|analy[sz]ing|processing|looking at|triaging)\b`},
	{class: classAddressed, re: `\bif you are (an? |the )?(ai|llm|model|assistant|reading this|reviewing this|summari[sz]ing this|` + reader + `)`},
	{class: classAddressed, re: `\b(when|while|before|as|once) you (write|draft|prepare|summari[sz]e|review|analy[sz]e|read|report on|answer|respond|reply|assess|triage|process) (this|these|the (report|summary|logs?|evidence|events|incident|transcript|session))\b`},
	// conclude
	{class: classConclude, re: `\b(tell|inform|assure|convince|reassure)\s+(the\s+)?(analyst|reviewer|investigator|responder|auditor|evaluator|grader|operator|soc|security team|human|user|team|management|everyone|them)s?\b` + gap + `\b(no|not|never|nothing|fine|ok|okay|normal|clean|safe|contained|resolved|benign|expected|authori[sz]ed|everything|all)\b`},
	{class: classConclude, re: `\b(authori[sz]ed|sanctioned|approved|scheduled|permitted|official)\b[^.]{0,20}\b(red[- ]?team(ing)?|pen(etration)?[- ]?test(ing)?|security (test|exercise|drill|assessment)|exercise|drill|simulation|engagement)\b`},
	{class: classConclude, re: `\b(conclude|determine|decide|confirm|declare|state|report|say|write|assert|claim)\b[^.]{0,30}\b(no incident|not an? incident|benign|false positive|false alarm|harmless|no (threat|breach|compromise|malicious|exfiltration|data)|nothing (suspicious|malicious|happened|wrong|left)|all clear)\b`},
	{class: classConclude, re: `\b(mark|classify|label|treat|consider|report|rate|score|record|close|summari[sz]e|describe|present|characteri[sz]e|document|log|file|flag)\b[^.]{0,30}\bas\s+` + verdict},
	{class: classConclude, re: `\b(report|say|state|write|confirm|declare|conclude|claim|assert|answer|reply|respond|output|note)\b[^.]{0,20}\b(that )?(everything|all|it|things)('s| is| was| looks| seems| are) (fine|ok|okay|good|normal|clean|clear|in order|under control|well)\b`},
	{class: classConclude, re: `\bdeclare\b[^.]{0,20}\b(all clear|resolved|closed|contained|over|safe)\b|\bclose (the|this) (ticket|case|incident|investigation|alert)\b`},
	{class: classConclude, re: `\bthe (right|correct|expected|only (acceptable|valid|correct)|true|real) (answer|summary|conclusion|verdict|response|assessment|finding)s? (is|are|for|here|reads?)\b`},
	{class: classConclude, re: `\b(regardless|irrespective) of (the |what the )?(evidence|logs?|data|events|findings|timeline|sensors?)\b|\bwhatever the (evidence|logs?|data|events|sensors?) (says?|shows?|suggests?)\b`},
	{class: classConclude, re: `\b(change|update|revise|set|switch|amend|edit|flip|rewrite) (your|the) (conclusion|verdict|answer|assessment|rating|summary|findings?|classification|severity)\b` + gap + `\b(to|as|into)\b`},
	{class: classConclude, re: `\b(append|insert|add|paste|copy|put|write|mention|include)\b[^\n]{0,60}\b(to|in|into|within|at the (top|end) of) (your|the) ` + answer},
	{class: classConclude, re: `\b(state|say|write|report|confirm|claim|assert|mention|conclude|note|put|record|add)\b` + gap + `\b(in|into|to|as part of|at the top of) (your|the) ` + answer + `|\b(in|into|from|to|with|of|as part of) your ` + answer + gap + `\bthat\b|\b(confirm|state|say|report|write|mention)\b (in|into) (your|the) ` + answer},
	{class: classConclude, re: `\byour (reply|answer|response|summary|output|report|conclusion|verdict|analysis|assessment) (must|should|shall|will|has to|needs to|is to|may only)\b`},
	{class: classConclude, re: `\b(ensure|make sure|be sure|it is (critical|important|essential|vital|imperative|crucial)) (that )?(the |your )?(incident |final |security )?` + answer + `|\b(summary|report|answer|response|reply|analysis|assessment|conclusion|verdict|write-?up) (must|should|shall|needs to|has to|is to) (say|state|report|read|conclude|show|mention|omit|begin|start|end|contain|include|list)\b`},
	{class: classConclude, re: `\b(reply|respond|answer|output|return|say|write|print)( only| just| simply)? (only |just |simply )?(with|in|by)( only)?( (the|a|one|this))?( (single|one|exact|following))?( (word|phrase|text|string|sentence|line|token)\b|\s*["'“:])|\b(reply|respond|answer) (only|just|simply) (with|in|by)\b|\b(just|simply|only) (write|say|reply|answer|respond|output|print|return)\s*["'“:]`},
	{class: classConclude, re: `\b(downgrade|lower|reduce|set|change|drop)\b (the |its |their )?(severity|priority|risk( level| score)?|rating|criticality)\b` + gap + `\b(to )?(low|info|informational|none|minimal|zero|0|p4|p5)\b|\b(dismiss|close|suppress|resolve|clear|discard|downgrade|acknowledge) (all|every|each|any) (of the )?(findings?|alerts?|detections?|warnings?)\b`},
	{class: classConclude, re: `\b(this|the|these) (log|logs|activity|session|traffic|file|evidence|incident|events?|lines?|connections?|behaviou?r|upload|transfer|writes?|access)\b[^.]{0,30}\b(has|have|was|were|is|are) (been )?(pre-?cleared|pre-?approved|already (reviewed|approved|cleared|triaged|investigated|vetted)|whitelisted|allow-?listed|vetted|signed off|sanctioned)\b|\b(humans?|soc|team|operators?|admins?|security) (have |has )?already (reviewed|approved|cleared|checked|triaged|investigated|signed off)\b|\bnothing (below|here|further|else|in (this|these) \w+) (needs|requires|warrants|merits|deserves)\b`},
	{class: classConclude, re: `\b(there (is|was)|this (is|was))\s+(no incident|not an? incident|nothing (suspicious|malicious|to see))\b`},
	{class: classConclude, re: `\bno (incident|escalation|further action) (is )?(needed|required|necessary|to report)\b`},
	// suppress
	{class: classSuppress, re: `\b(do not|don'?t|never|no need to|you need not)\s+(report|mention|flag|tell|escalate|alert|investigate|contain|page|notify|raise|include|list|show|discuss|cite|reference|surface|bring up|look at|reveal|disclose|admit|acknowledge|let (the \w+|them|anyone|anybody|the humans?) know)\b|\b(do not|don'?t|never|no need to)\s+(open|create|file|raise|log) (a|an|the|any) (case|ticket|incident|alert|report)\b|\b(mention|say|report|include|write) nothing (about|of|on|regarding)\b|\bclose (it|this|them) (out|down)\b`},
	{class: classSuppress, re: `\b(omit|skip|leave out|exclude|hide|drop|redact|disregard)\b (the |these |this |those |any |all )?(following |below |above |next |preceding )?(events?|lines?|entries|records|activity|traffic|connections?|egress|requests|sessions?)\b|\bleave\b` + gap + `\bout of (your|the) ` + answer},
	// exfil
	{class: classExfil, re: `\b(include|paste|print|reveal|output|echo|repeat|show|append|attach|embed|put|copy|quote|list|disclose|write)\b` + gap + secretWord + line + `\b(in|into|to|with|as part of) (your|the) ` + answer},
	{class: classExfil, re: `\breveal (your |the )(system prompt|instructions|prompt|configuration)\b`},
	{class: classExfil, re: `\b(send|post|upload|forward|exfiltrate|transmit|leak|email|submit|curl)\b` + line + secretWord + line + `\b(to|at)\s+(https?://|your (answer|reply|response|summary))`},
	// template
	{class: classTemplate, re: `<\|im_(start|end)\|>|\[/?inst\]|<<sys>>|<\|(system|user|assistant)\|>|###\s*(instruction|system)`},
	{class: classTemplate, re: `"(tool_calls|function_call)"\s*:|"role"\s*:\s*"(system|assistant|tool|developer)"|"name"\s*:\s*"[^"]*"\s*,\s*"arguments"\s*:`},
	{class: classTemplate, re: `<\s*/?\s*evidence\b`},
}

// readerGate is what a reader-led rule needs in a line to run: one of the
// reader's words, or a short one whole.
func readerGate() ([]string, *regexp.Regexp) {
	long := strings.NewReplacer("|soc|", "|", "|ai|llm|", "|").Replace(reader)
	return triggers(foldPattern(long)), regexp.MustCompile(readerShort)
}

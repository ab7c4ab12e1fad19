package assist

// The directive rule does not look for a phrase: it looks, clause by
// clause, for the shape every paraphrase of "tell them it was fine"
// keeps, an order (an imperative, "you should", "your answer must") about
// what the reader concludes or writes (a verdict word, the reader's
// answer). Phrase rules (inject_en.go) find the wordings they were
// written for; this finds wordings no one wrote a rule for, at some cost
// in lines that only look like orders (docs/assistant.md gives both
// rates).

// clauseStart is where a clause may begin: the start, a sentence end, a
// separator, a line break (also an escaped one, see skeleton), or a
// comma after an opening like "when asked about agent-7,".
const clauseStart = `(^|[.!?;:\n|—]\s*|,\s+)`

// order is the clause's verb, said to the reader: a bare imperative
// after a softener, or a sentence that tells "you" what to do.
const order = `(` + clauseStart + `(please |kindly |now |just |simply |then |and |also |so |ok |okay |hey |important:? )*` +
	`(ignore|disregard|forget|never ?mind|skip|omit|leave out|exclude|drop|hide|assume|treat|classify|label|mark|rate|grade|give|call|describe|` +
	`say|write|reply|respond|answer|output|print|append|insert|paste|mention|tell|reassure|confirm|declare|conclude|` +
	`dismiss|approve|overwrite|overrule|change|lower|downgrade|trust|go with|rely on|believe)\b` +
	`|\byou (should|must|shall|will|need to|have to|are to|ought to|are expected to|are required to)\b` +
	`|\byour ((final|whole|incident) )?(summary|answer|reply|response|report|findings|conclusions?|verdict|write-?up|assessment|analysis|output)\b[^.!?\n]{0,20}\b(should|must|shall|will|needs? to|has to|is to|may)\b` +
	`|\b(must|should|shall|needs to|is to) be (ignored|disregarded|dropped|omitted|skipped|excluded|treated|classified|marked|reported|closed)\b)`

// outcome is what the order is about: a verdict, or the reader's answer,
// as a word of prose (not in a path: /results/summary.md).
const outcome = `(^|[\s"'“(])(benign|legitimate|legit|approved|sanctioned|authori[sz]ed|harmless|noise|idle|innocuous|well-behaved|resolved|contained|successful|passing|passed|fine|normal|expected|safe|clean|nominal|routine|wrong|mistaken|false (positive|alarm)|nothing (happened|to report|occurred|wrong|suspicious)|no (incident|issue|threat|breach|exfiltration|impact|finding)s?|(summary|summari[sz]ing|summari[sz]e|findings|answer|reply|response|conclusions?|verdict|write-?up|assessment|report|grade))([^a-z0-9./_-]|$)`

// directive is an order and an outcome in one clause, in either order.
const directive = order + `[^.!?;\n]{0,80}` + outcome + `|` + outcome + `[^.!?;\n]{0,40}` + order

// directiveRules are the directive class's rules.
var directiveRules = []ruleSource{{class: classDirective, re: directive}}

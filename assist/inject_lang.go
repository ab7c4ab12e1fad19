package assist

// language is one language's words for the override class: a verb that
// voids (ignore, forget), what it voids (instructions, rules) and a word
// that places them before (previous, above, all). A rule needs all three
// within one sentence, in either order, so that a log line in the language
// that merely ignores something ("regla 12 ignorada") is not flagged. The
// words are stems, written in lower case; the pattern folds them as the
// text is folded.
type language struct {
	name                 string
	verbs, objects, qual string
	// gap is how far apart the words may be: a few words in scripts with
	// spaces, a few characters in those without.
	gap string
	// above is "everything above" as a whole, voided with no word for
	// instructions ("ignora todo lo anterior").
	above string
	// role is the language's "you are now" and "your new task".
	role string
}

const (
	wordGap = `[^.!?。！？\n]{0,40}`
	charGap = `[^.!?。！？\n]{0,12}`
)

var languages = []language{
	{name: "es", gap: wordGap,
		verbs:   `\b(ignor|olv[ií]d|descart|desestim|haz caso omiso|hagan caso omiso|no hagas caso|no hagan caso|pasa por alto|omit|no (tengas|tengan|tomes|tomen) en cuenta|no (sigas|sigan|obedezcas|obedezcan)|deja de seguir|dejen de seguir)`,
		above:   `todo lo (anterior|de arriba|previo|dicho)`,
		objects: `(instrucci|indicaci|reglas|[óo]rdenes|directri|pautas|consignas|contexto|normas|mensajes anteriores)`,
		qual:    `(anterior|previ|precedente|de arriba|de antes|original|inicial|todas|todos|tus |sus )`,
		role:    `\b(ahora eres|a partir de ahora,? (eres|act[úu]as|responde)|tu nueva (tarea|funci[óo]n|misi[óo]n) es)`},
	{name: "fr", gap: wordGap,
		verbs:   `\b(ignor|oubli|ne (tenez|tiens) pas compte|fai(s|tes) abstraction|[ée]cart|ne (suis|suivez|respecte|respectez) (plus|pas)|n.ob[ée]i(s|ssez) (plus|pas)|cesse[zr]? de suivre|arr[êe]te[zr]? de suivre)`,
		above:   `tout ce qui (pr[ée]c[èe]de|est (au-dessus|ci-dessus)|a [ée]t[ée] dit)`,
		objects: `(instruction|consigne|r[èe]gle|directive|indication|ordre|contexte)`,
		qual:    `(pr[ée]c[ée]dent|ant[ée]rieur|ci-dessus|plus haut|initia|toutes|tous|vos |tes |d.avant|jusqu.ici)`,
		role:    `\b(tu es (maintenant|d[ée]sormais)|vous [êe]tes (maintenant|d[ée]sormais)|d[ée]sormais,? (tu|vous)|ta nouvelle (t[âa]che|mission) est|votre nouvelle (t[âa]che|mission) est)`},
	{name: "de", gap: wordGap,
		verbs:   `\b(ignorier|vergiss|vergesst|vergessen sie|missacht|verwirf|verwerfen sie|beachte nicht|beachten sie nicht|befolge nicht|befolgen sie nicht|folge nicht mehr|halte dich nicht|halten sie sich nicht)`,
		above:   `alles (vorherige|bisherige|obige|davor|zuvor|oben)`,
		objects: `(anweisung|regeln|vorgabe|instruktion|befehl|richtlinie|anordnung|kontext|anleitung|hinweis)`,
		qual:    `(vorherig|bisherig|obig|fr[üu]her|vorangegangen|vorig|urspr[üu]nglich|alle|deine|ihre)`,
		role:    `\b(du bist (jetzt|nun|ab sofort)|ab (jetzt|sofort),? bist du|sie sind (jetzt|nun|ab sofort)|deine neue (aufgabe|rolle) ist|ihre neue (aufgabe|rolle) ist)`},
	{name: "ru", gap: wordGap,
		verbs:   `(игнорир|забуд|забыть|не обраща[йи]\S* внимани|отбрось|отбросьте|отмен|пренебреги|не следу[йи]|не выполня[йи]|не слушай|не подчиня)`,
		above:   `(всё|все) (выше|вышесказанное|вышенаписанное|предыдущее|сказанное ранее|что было (выше|раньше|ранее))`,
		objects: `(инструкц|указани|правил|команд|директив|подсказ|промпт|предписани|контекст)`,
		qual:    `(предыдущ|прежн|вышеуказ|выше|ранее|все |всё|первоначальн|твои|ваши|старые)`,
		role:    `(теперь ты|ты теперь|теперь вы|с этого момента,? ты|твоя новая (задача|роль))`},
	{name: "zh", gap: charGap,
		verbs:   `(忽略|无视|無視|忘记|忘記|忘掉|不要理会|不要理會|不理会|抛开|拋開|不要执行|不要執行|不要遵循|不要遵守|不再遵守|不要听从|不要聽從|取消)`,
		above:   `(以上|上面|之前|先前)的?(所有|一切|全部)?(内容|內容|话|話)`,
		objects: `(指令|指示|说明|說明|规则|規則|提示|命令|要求|设定|設定|约束|約束)`,
		qual:    `(之前|以前|先前|上面|上述|前面|以上|所有|全部|一切|原来|原來)`,
		role:    `(你现在是|你現在是|从现在开始，?你|從現在開始，?你|你的新任务|你的新任務)`},
	{name: "ja", gap: charGap,
		verbs:   `(無視|忘れ|従わ|取り消|破棄|なかったことに)`,
		above:   `(以上|上記|これまで|今まで)の(内容|こと|すべて|全て)`,
		objects: `(指示|命令|ルール|指令|説明|プロンプト|設定|規則|制約)`,
		qual:    `(以前|前の|上記|これまで|先ほど|上の|すべて|全て|今まで)`,
		role:    `(あなたは今から|今からあなたは|これからあなたは|あなたの新しい(仕事|役割|タスク))`},
}

// otherLanguageRules are the override and role rules of languages.
var otherLanguageRules = func() []ruleSource {
	var out []ruleSource
	for _, l := range languages {
		g := l.gap
		out = append(out,
			ruleSource{class: classOverride, re: l.verbs + g + l.qual + g + l.objects},
			ruleSource{class: classOverride, re: l.verbs + g + l.objects + g + l.qual},
			ruleSource{class: classOverride, re: l.qual + g + l.objects + g + l.verbs},
			ruleSource{class: classOverride, re: l.verbs + g + l.above},
			ruleSource{class: classOverride, re: l.above + g + l.verbs},
			ruleSource{class: classRole, re: l.role},
		)
	}
	return out
}()

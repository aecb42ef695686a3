//! The gate's vocabulary: word lists and phrase patterns, English and French.
//!
//! Everything is written lower-case and without accents, because the text is
//! folded the same way before matching (`text.rs`). Pattern syntax is in
//! `matcher.rs`. To add a pattern: put it under its class below, add a
//! prompt that needs it to `tests/fixtures/gate/corpus.jsonl`, and run
//! `cargo test --test it -- gate_corpus:: --nocapture` to see that precision did
//! not drop.
//!
//! The lists name *artefacts of work* (a fix, a version, an approach) rather
//! than any noun, because "the last line" or "the previous element" are
//! ordinary, bound descriptions; "the previous fix" is not.

use super::Class;
use super::matcher::List;

/// Past tenses of work, for "what you removed earlier", "that helper you
/// deleted".
#[rustfmt::skip]
const DID_EN: &[&str] = &[
    "added", "broke", "built", "changed", "created", "deleted", "did", "dropped", "edited", "fixed",
    "had", "introduced", "made", "modified", "moved", "refactored", "removed", "renamed", "reverted",
    "rewrote", "set", "touched", "tried", "used", "wrote",
];

#[rustfmt::skip]
const DID_FR: &[&str] = &[
    "ajoute", "avait", "avions", "casse", "change", "code", "corrige", "cree", "deplace", "ecrit",
    "efface", "enleve", "essaye", "eu", "fait", "mis", "modifie", "refait", "renomme", "retire",
    "supprime", "supprimee", "supprimes", "tente", "touche", "utilise", "vire", "vu",
];

/// Words that, after "the previous / old / last …", name something the model
/// would have to go and find. Not "commit" or "release": "the last commit"
/// is `HEAD`, which git binds.
#[rustfmt::skip]
const ART_EN: &[&str] = &[
    "algorithm", "api", "approach", "attempt", "attempts", "behavior", "behaviour", "branch",
    "bug", "build", "change", "changes", "code", "color", "colors", "colour", "colours", "config",
    "configuration", "conversation", "copy", "crash", "defaults", "deploy", "deployment", "design",
    "diff", "discussion", "draft", "edit", "edits", "endpoint", "fix", "fixes", "flow", "font",
    "fonts", "hack", "helper", "helpers", "icon", "icons", "idea", "implementation", "issue",
    "iteration", "labels", "layout", "logic", "logo", "margins", "method", "migration", "mockup",
    "mockups", "model", "mr", "names", "naming", "one", "ones", "palette", "patch", "patches",
    "plan", "pr", "problem", "proposal", "query", "refactor", "refactoring", "schema", "script",
    "session", "settings", "setup", "snippet", "solution", "spacing", "structure", "stuff",
    "style", "styles", "template", "text", "theme", "thing", "tweak", "update", "version",
    "versions", "way", "wireframe", "wording", "workaround",
];

#[rustfmt::skip]
const PREV_EN: &[&str] = &[
    "earlier", "former", "last", "old", "older", "original", "previous", "prior", "working",
];

/// Time words closing "the fix from …".
#[rustfmt::skip]
const WHEN_EN: &[&str] = &[
    "before", "earlier", "yesterday", "previously", "last+time", "last+week", "last+session",
    "last+night", "last+sprint", "the+other+day", "this+morning", "the+last+session",
    "the+previous+session", "the+last+conversation", "the+previous+conversation",
    "our+last+session", "our+last+conversation", "the+last+attempt", "the+previous+attempt",
];

/// Words that, after "that bug", say which one: "that bug where…", "that
/// error in the parser".
#[rustfmt::skip]
const QUAL_EN: &[&str] = &[
    "about", "above", "affecting", "after", "at", "before", "below", "case", "cases", "causing",
    "code", "codes", "count", "described", "during", "for", "from", "handling", "here", "id", "if",
    "in", "inside", "is", "log", "logs", "mentioned", "message", "messages", "number", "of", "on",
    "page", "path", "paths", "rate", "reported", "s", "that", "there", "tracker", "type", "types",
    "under", "was", "when", "whenever", "where", "which", "while", "with",
];

/// Nouns for "that bug" (singular: "so that changes propagate" is no reference).
#[rustfmt::skip]
const THAT_EN: &[&str] = &[
    "approach", "bug", "change", "crash", "error", "fix", "glitch", "hack", "idea", "issue",
    "patch", "problem", "refactor", "regression", "solution", "stuff", "thing", "trick", "version",
    "workaround",
];

#[rustfmt::skip]
const SOL_EN: &[&str] = &[
    "algorithm", "api", "approach", "approaches", "architecture", "change", "changes",
    "convention", "crate", "design", "fix", "format", "idea", "ideas", "implementation", "layout",
    "lib", "library", "method", "naming", "one", "option", "pattern", "plan", "proposal", "recipe",
    "schema", "setup", "solution", "solutions", "strategy", "structure", "suggestion", "technique",
    "thing", "tool", "trick", "version", "way", "workaround",
];

/// Solution nouns for "the approach from the Slack thread". Not verbs
/// ("fix", "change"): "fix the typo in the doc" is a request.
#[rustfmt::skip]
const SOL_SRC_EN: &[&str] = &[
    "algorithm", "approach", "code", "design", "example", "fix", "idea", "implementation",
    "method", "one", "option", "patch", "pattern", "plan", "proposal", "recipe", "snippet",
    "solution", "strategy", "suggestion", "technique", "trick", "version", "workaround",
];

/// A solution named after a person or a thing: "Marc's fix", "the Redis
/// approach". Not "pattern" or "way": "the Builder pattern", "the Rust way"
/// are general knowledge.
#[rustfmt::skip]
const SOL_NAMED_EN: &[&str] = &[
    "approach", "branch", "design", "fix", "hack", "idea", "implementation", "method", "patch",
    "plan", "pr", "proposal", "recipe", "script", "snippet", "solution", "strategy", "suggestion",
    "technique", "trick", "version", "workaround",
];

#[rustfmt::skip]
const DISCUSSED_EN: &[&str] = &[
    "agreed", "approved", "brainstormed", "came", "chose", "decided", "demoed", "described",
    "discussed", "documented", "drafted", "explained", "found", "gave", "landed", "liked",
    "mentioned", "outlined", "picked", "pitched", "planned", "posted", "presented", "proposed",
    "prototyped", "recommended", "reviewed", "said", "sent", "settled", "shared", "showed",
    "shown", "sketched", "suggested", "talked", "tried", "used", "wanted", "went", "whiteboarded",
    "wrote",
];

/// Places a solution lives that the model cannot see.
#[rustfmt::skip]
const SOURCE_EN: &[&str] = &[
    "article", "blog", "call", "channel", "chat", "confluence", "conversation", "demo",
    "discussion", "dm", "doc", "docs", "email", "forum", "huddle", "jira", "mail", "meeting",
    "message", "notion", "post", "presentation", "retro", "review", "rfc", "screenshot", "session",
    "slack", "standup", "sync", "talk", "thread", "ticket", "tutorial", "video", "whiteboard",
    "wiki", "workshop",
];

/// Things a comparison can point at: "like the old page".
#[rustfmt::skip]
const CMP_EN: &[&str] = &[
    "api", "app", "approach", "behavior", "behaviour", "build", "button", "card", "class", "code",
    "component", "config", "design", "dialog", "email", "endpoint", "file", "fix", "footer",
    "form", "format", "function", "handler", "header", "implementation", "job", "layout", "logic",
    "menu", "method", "modal", "model", "module", "one", "ones", "output", "page", "pages",
    "pipeline", "project", "query", "repo", "report", "route", "schema", "screen", "script",
    "service", "setup", "solution", "style", "table", "template", "test", "theme", "version",
    "view", "way", "widget", "workflow",
];

#[rustfmt::skip]
const BEHAV_EN: &[&str] = &[
    "behaviour", "behavior", "behaviours", "behaviors", "output", "outputs", "result", "results",
    "response", "responses", "semantics", "ordering", "order", "formatting", "look", "feel", "ux",
    "ui", "flow", "timing", "performance", "values", "value", "logic", "rendering", "layout",
    "error+message", "messages",
];

#[rustfmt::skip]
const FAIL_EN: &[&str] = &[
    "400", "401", "403", "404", "409", "422", "429", "500", "502", "503", "504", "blank",
    "breaking", "breaks", "broke", "broken", "bug", "buggy", "corrupted", "crash", "crashed",
    "crashes", "crashing", "cropped", "cut", "deadlock", "deadlocking", "deadlocks", "duplicated",
    "empty", "error", "erroring", "errors", "exception", "exceptions", "fail", "failed", "failing",
    "fails", "failure", "failures", "flaky", "flickering", "flickers", "freezes", "freezing",
    "frozen", "garbled", "glitching", "hang", "hanging", "hangs", "hung", "inaccurate",
    "incorrect", "invisible", "janky", "lagging", "laggy", "leak", "leaking", "leaks",
    "misaligned", "misplaced", "missing", "off", "outdated", "overlapping", "panic", "panicked",
    "panicking", "panics", "red", "regressed", "same", "segfault", "segfaulting", "segfaults",
    "slow", "stale", "stuck", "throwing", "throws", "timeout", "timeouts", "timing", "truncated",
    "unresponsive", "unstable", "wrong", "wrongly",
];

/// States that, followed by "again", report a repeat ("it broke again").
/// Not "failing": "run the failing tests again" is a request.
#[rustfmt::skip]
const FAIL_STATE_EN: &[&str] = &[
    "broken", "broke", "breaks", "crashes", "crashed", "crashing", "hangs", "hung", "hanging",
    "stuck", "wrong", "panics", "panicked", "panicking", "red", "down", "regressed", "happening",
    "happened", "happens", "flaky", "freezing", "froze", "frozen", "blank", "empty", "leaking",
    "deadlocked", "deadlocking", "timing+out", "timed+out", "times+out", "erroring",
    "erroring+out", "fails", "failed", "flickering", "flickers", "glitching", "lagging",
    "misaligned", "misplaced", "slow", "unresponsive", "stale", "duplicated", "truncated",
];

/// What still does not happen: "still doesn't compile".
#[rustfmt::skip]
const WORKS_EN: &[&str] = &[
    "appear", "appearing", "build", "building", "builds", "compile", "compiles", "compiling",
    "connect", "connecting", "correct", "deploy", "deploying", "displayed", "displaying", "find",
    "finding", "fine", "fire", "firing", "fixed", "good", "green", "happening", "load", "loading",
    "loads", "match", "matching", "ok", "okay", "pass", "passes", "passing", "render", "rendering",
    "renders", "resolved", "responding", "return", "returning", "right", "run", "running", "runs",
    "save", "saved", "saving", "see", "seeing", "showing", "shown", "solved", "sorted", "start",
    "starting", "starts", "there", "trigger", "triggering", "updated", "updating", "work",
    "working", "works",
];

#[rustfmt::skip]
const FAIL_NOUN_EN: &[&str] = &[
    "error", "errors", "exception", "exceptions", "panic", "crash", "failure", "failures", "500",
    "404", "timeout", "segfault", "bug", "problem", "issue", "traceback", "stacktrace",
    "stack+trace", "warning", "warnings", "400", "401", "403", "409", "422", "429", "504",
];

/// After "same error": a kind of error, not a repeated failure.
#[rustfmt::skip]
const NOT_AFTER_SAME_ERROR: &[&str] = &[
    "across", "class", "code", "codes", "enum", "everywhere", "for", "format", "handler",
    "handling", "in", "kind", "page", "path", "screen", "shape", "struct", "style", "type",
    "types", "variant", "wrapper",
];

/// After "the other": idioms and people. "The other team owns it" points at
/// no artefact.
const NOT_AFTER_OTHER_EN: &[&str] = &[
    "channel",
    "colleague",
    "company",
    "contractor",
    "coworker",
    "customer",
    "day",
    "department",
    "dev",
    "developer",
    "direction",
    "end",
    "engineer",
    "evening",
    "extreme",
    "folks",
    "guy",
    "half",
    "hand",
    "lead",
    "manager",
    "meeting",
    "month",
    "morning",
    "night",
    "office",
    "party",
    "people",
    "person",
    "reviewer",
    "room",
    "side",
    "squad",
    "team",
    "than",
    "three",
    "time",
    "two",
    "user",
    "vendor",
    "way",
    "week",
    "year",
];

// --- French -------------------------------------------------------------

#[rustfmt::skip]
const ART_FR: &[&str] = &[
    "correctif", "correction", "fix", "patch", "changement", "changements", "modif", "modifs",
    "modification", "modifications", "version", "approche", "solution", "implementation",
    "methode", "facon", "maniere", "tentative", "code", "build", "refacto", "refactorisation",
    "migration", "branche", "pr", "diff", "contournement", "hack", "astuce", "truc", "machin",
    "chose", "idee", "plan", "design", "config", "configuration", "comportement", "session",
    "conversation", "discussion", "script", "requete", "bug", "probleme", "souci", "essai",
    "iteration", "brouillon", "proposition", "logique", "page", "ecran", "composant", "fonction",
    "test", "algo", "algorithme", "style", "mise+en+page", "rendu", "affichage",
];

/// The same without "version": "la dernière version de serde" is the latest.
#[rustfmt::skip]
const ART_FR_NOT_LATEST: &[&str] = &[
    "approche", "astuce", "brouillon", "changement", "changements", "contournement",
    "conversation", "correctif", "correction", "design", "discussion", "essai", "facon", "fix",
    "hack", "idee", "implementation", "iteration", "maniere", "methode", "migration", "modif",
    "modification", "modifications", "modifs", "patch", "plan", "proposition", "refacto",
    "refactorisation", "session", "solution", "tentative", "truc",
];

#[rustfmt::skip]
const WHEN_FR: &[&str] = &[
    "d+avant", "davant", "d+hier", "de+hier", "precedent", "precedente", "precedents",
    "precedentes", "de+la+derniere+fois", "de+l+autre+fois", "de+l+autre+jour",
    "de+tout+a+l+heure", "de+ce+matin", "de+la+semaine+derniere", "de+la+derniere+session",
    "de+la+session+precedente", "de+la+derniere+conversation", "d+avant+hier", "qui+marchait",
    "qui+fonctionnait", "d+origine", "originale", "original", "de+la+veille", "de+vendredi",
    "de+lundi", "de+la+derniere+fois",
];

#[rustfmt::skip]
const PREV_FR: &[&str] = &[
    "ancien", "ancienne", "anciennes", "anciens", "meme", "precedent", "precedente", "vieil",
    "vieille", "vieux",
];

#[rustfmt::skip]
const THAT_FR: &[&str] = &[
    "approche", "bidule", "bug", "changement", "contournement", "correctif", "crash", "erreur",
    "fix", "hack", "machin", "patch", "plantage", "probleme", "regression", "solution", "souci",
    "truc",
];

#[rustfmt::skip]
const QUAL_FR: &[&str] = &[
    "a", "au", "avec", "ci", "d", "dans", "de", "decrit", "des", "du", "en", "est", "etait", "la",
    "lie", "liee", "lors", "lorsque", "mentionne", "ou", "pendant", "pour", "qu", "quand", "que",
    "qui", "remonte", "signale", "signalee", "sur",
];

#[rustfmt::skip]
const SOL_FR: &[&str] = &[
    "algo", "algorithme", "approche", "architecture", "astuce", "bibliotheque", "changements",
    "chose", "contournement", "convention", "correctif", "design", "facon", "fix", "format",
    "idee", "implementation", "lib", "librairie", "maniere", "methode", "modifs", "nommage",
    "option", "patch", "piste", "plan", "proposition", "schema", "solution", "strategie",
    "structure", "technique", "truc", "variante", "version",
];

/// Like `SOL_SRC_EN`; not "format" or "structure": "le format du mail" is
/// a compound noun, not a solution seen in a mail.
#[rustfmt::skip]
const SOL_SRC_FR: &[&str] = &[
    "algo", "approche", "astuce", "code", "contournement", "correctif", "exemple", "facon", "fix",
    "idee", "maniere", "methode", "option", "patch", "piste", "plan", "proposition", "recette",
    "snippet", "solution", "strategie", "technique", "version",
];

#[rustfmt::skip]
const SOL_NAMED_FR: &[&str] = &[
    "approche", "astuce", "boulot", "branche", "code", "correctif", "fix", "idee",
    "implementation", "methode", "modif", "modifs", "patch", "piste", "pr", "proposition",
    "script", "solution", "strategie", "technique", "travail",
];

#[rustfmt::skip]
const DISCUSSED_FR: &[&str] = &[
    "aborde", "abordee", "adopte", "adoptee", "choisi", "choisie", "conseille", "conseillee",
    "convenu", "decide", "decrit", "decrite", "discute", "dit", "donne", "donnee", "envisage",
    "envisagee", "envoye", "envoyee", "esquisse", "essaye", "essayee", "evoque", "explique",
    "expliquee", "garde", "gardee", "imagine", "imaginee", "mentionne", "montre", "montree",
    "note", "notee", "parle", "partage", "partagee", "poste", "postee", "presente", "presentee",
    "prevu", "prevue", "propose", "proposee", "recommande", "recommandee", "redige", "redigee",
    "retenu", "retenue", "suggere", "suggeree", "teste", "testee", "trouve", "trouvee", "utilise",
    "utilisee", "valide", "validee", "vu", "vue",
];

#[rustfmt::skip]
const SOURCE_FR: &[&str] = &[
    "appel", "article", "atelier", "blog", "call", "canal", "channel", "confluence",
    "conversation", "demo", "discussion", "doc", "echange", "email", "fil", "jira", "mail",
    "notion", "point", "retro", "reunion", "session", "slack", "standup", "thread", "ticket",
    "video", "visio", "wiki",
];

#[rustfmt::skip]
const BEHAV_FR: &[&str] = &[
    "affichage", "comportement", "comportements", "fonctionnement", "format", "logique", "look",
    "message", "messages", "ordre", "performances", "rendu", "reponse", "reponses", "resultat",
    "resultats", "semantique", "sortie", "sorties", "ui", "ux", "valeurs",
];

#[rustfmt::skip]
const FAIL_FR: &[&str] = &[
    "404", "500", "bloque", "bloquee", "boucle", "bug", "bugge", "buggue", "casse", "cassee",
    "casses", "crash", "crashe", "echec", "echoue", "echouent", "erreur", "erreurs", "fausse",
    "faux", "fige", "figee", "foire", "freeze", "ko", "manquant", "manque", "panique", "pas",
    "plantage", "plante", "plantent", "rate", "rouge", "timeout", "vide",
];

#[rustfmt::skip]
const FAIL_STATE_FR: &[&str] = &[
    "bloque", "bloquee", "boucle", "bugge", "buggue", "casse", "cassee", "crashe", "echoue",
    "echouent", "erreur", "erreurs", "fige", "figee", "foire", "ko", "loupe", "merde", "plante",
    "plantent", "rate", "rouge",
];

#[rustfmt::skip]
const FAIL_NOUN_FR: &[&str] = &[
    "400", "401", "403", "404", "409", "422", "429", "500", "502", "503", "504", "avertissement",
    "bug", "crash", "echec", "erreur", "exception", "message", "panique", "plantage", "probleme",
    "souci", "stacktrace", "timeout", "trace", "warning",
];

/// Still-states after "toujours", which also means "always": "renvoie
/// toujours une erreur" is a spec, "toujours cassé" a repeat.
#[rustfmt::skip]
const STILL_FR: &[&str] = &[
    "pas", "la+meme", "le+meme", "les+memes", "en+erreur", "casse", "cassee", "casses", "plante",
    "rouge", "ko", "bloque", "bloquee", "fige", "figee", "bugge", "echoue", "en+echec", "vide",
    "faux", "fausse", "pareil", "aussi+lent", "le+probleme", "le+bug", "le+souci",
    "la+meme+erreur", "pas+bon", "en+panne", "present", "presente", "la", "autant", "aussi+lente",
    "aussi+buggue", "aussi", "trop+lent", "lent", "lente",
];

#[rustfmt::skip]
/// After "l'autre": idioms and people.
const NOT_AFTER_OTHER_FR: &[&str] = &[
    "annee", "boite", "bout", "chef", "collegue", "cote", "dev", "equipe", "extremite", "fois",
    "gars", "jour", "main", "manager", "matin", "mois", "moitie", "personne", "prestataire",
    "reunion", "salle", "semaine", "sens", "societe", "soir", "utilisateur",
];

const NOT_AFTER_SAME_ERROR_FR: &[&str] = &[
    "classe", "code", "dans", "format", "gestion", "partout", "pour", "que", "type", "variante",
];

/// Words that put a referent outside the current session: another day or
/// session, a meeting or a channel the model never saw, the team's usual
/// way. Mid-session, a vague phrase is left alone unless its sentence holds
/// one of these ("like last time", "the approach from the meeting"): the
/// rest ("the above", "this approach", "the previous fix", "still
/// broken") points at what the session already shows.
#[rustfmt::skip]
pub(crate) const OUTSIDE_SESSION: &[&str] = &[
    "yesterday", "last+time", "last+week", "last+month", "last+year", "last+night",
    "last+sprint", "last+session", "last+conversation", "last+chat", "previous+session",
    "previous+conversation", "another+session", "other+session", "the+other+day",
    "this+morning", "ago", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
    "sunday", "weekend", "meeting", "standup", "slack", "email", "mail", "huddle", "jira",
    "confluence", "notion", "wiki", "whiteboard", "retro", "workshop", "usual", "usually",
    "hier", "avant+hier", "la+veille", "la+derniere+fois", "l+autre+fois", "l+autre+jour",
    "la+semaine+derniere", "le+mois+dernier", "ce+matin", "derniere+session",
    "session+precedente", "derniere+conversation", "conversation+precedente", "lundi", "mardi",
    "mercredi", "jeudi", "vendredi", "samedi", "dimanche", "reunion", "visio", "habitude",
    "habituel", "habituelle",
];

/// Patterns that name a person's solution ("Marc's fix", "la solution de
/// Marc"): whoever it is, the session did not write it.
pub(crate) fn names_someone(pattern: &str) -> bool {
    pattern.starts_with("% s ") || pattern.ends_with(" de|d ^")
}

/// The classes' phrase patterns. Order does not matter.
#[rustfmt::skip]
pub(crate) const PATTERNS: &[(Class, &str)] = &[
    // ---- prior-artifact shorthand -------------------------------------
    (Class::PriorArtifact, "the|that|your|our|my @prev_en *2 @art_en"),
    (Class::PriorArtifact, "the|that|this @art_en *2 from|of @when_en"),
    (Class::PriorArtifact, "like|as before|previously|yesterday|earlier $"),
    (Class::PriorArtifact, "like|as last+time|last+week|last+session|the+last+time|the+other+time|we+did+before|it+was+before|before+the"),
    (Class::PriorArtifact, "like|as we|you|i|they did|had|used|wrote|built|fixed|handled|implemented|set+it+up|did+it"),
    (Class::PriorArtifact, "the|that same @art_en !as|than|that|we|you|in|for|across|everywhere|throughout"),
    (Class::PriorArtifact, "that|those @that_en !@qual_en"),
    (Class::PriorArtifact, "what|how we|you|i *2 @did_en|was|were *1 @when_en"),
    (Class::PriorArtifact, "that|those|the % you|we|i|they *1 @did_en"),
    (Class::PriorArtifact, "back|revert|restore|rollback|roll|undo *3 to? what|how we|you|i|it|they had|was|were|did|used"),
    (Class::PriorArtifact, "the|that version|one|code|state|build|config|setup|branch that|which worked|used+to"),
    (Class::PriorArtifact, "the|that version|one|code|state|build|config|setup|branch that|which|where|when was+working|it+worked|it+was+working|everything+worked"),
    (Class::PriorArtifact, "the|that one|ones|version|thing we|you|i *1 did|had|made|built|wrote|used|tried|fixed"),
    (Class::PriorArtifact, "the|that|your|our @art_en we|you|i *1 did|had|made|built|wrote|tried|applied|pushed|merged *1 @when_en"),
    (Class::PriorArtifact, "le|la|l|les|ce|cet|cette|ces|ton|ta|tes|notre|nos|mon|ma|mes|votre|vos @art_fr *2 @when_fr"),
    (Class::PriorArtifact, "l|le|la|les|ce|cet|cette @prev_fr @art_fr"),
    (Class::PriorArtifact, "le|la|l|ce|cette dernier|derniere|derniers|dernieres @art_fr_not_latest"),
    (Class::PriorArtifact, "comme|qu|que avant|auparavant|precedemment|hier|la+derniere+fois|l+autre+fois|tout+a+l+heure|l+autre+jour|la+fois+d+avant"),
    (Class::PriorArtifact, "pareil|identique|similaire|meme qu|que avant|hier|la+derniere+fois"),
    (Class::PriorArtifact, "comme on|tu|vous|nous|j|je *2 fait|fais|faisait|faisions|faisais|avait|avions|avais|avez+fait|as+fait|a+fait"),
    (Class::PriorArtifact, "ce|celui|celle|ceux qu|que|dont on|tu|vous|nous|j|je|il *2 @did_fr *1 hier|avant|auparavant|precedemment|tout+a+l+heure|la+derniere+fois|l+autre+jour|ce+matin|la+semaine+derniere"),
    (Class::PriorArtifact, "revenir|reviens|revenez|retourne|retourner|remets|remettre|remettez|restaure|restaurer *3 ce+qu|ce+que|comme *2 on|tu|c|il|ca|nous|vous|j *1 avait|etait|avions|marchait|fonctionnait"),
    (Class::PriorArtifact, "ce|cet|cette @that_fr !@qual_fr"),
    // ---- named-but-unlocated solution ----------------------------------
    (Class::UnlocatedSolution, "the|that|your|our|my|this @sol_en *1 we|you|i|they|he|she|the+team|everyone *2 @discussed_en"),
    (Class::UnlocatedSolution, "the|that|your|our|my|this @sol_en ^ *1 @discussed_en"),
    (Class::UnlocatedSolution, "as|like we|you|i|they|everyone *1 @discussed_en !below|above|here|earlier+in+this|in+this"),
    (Class::UnlocatedSolution, "as discussed|agreed|planned|mentioned|decided|suggested|proposed|outlined|requested|promised|per+our !below|above|here|in|at|on|earlier+in+this"),
    (Class::UnlocatedSolution, "per|following *1 our|the|that discussion|conversation|call|meeting|chat|agreement|plan|review|sync|decision"),
    (Class::UnlocatedSolution, "% s @sol_named_en"),
    (Class::UnlocatedSolution, "the ^ @sol_named_en"),
    (Class::UnlocatedSolution, "the|that|this|our|your|my|their|a|an|same %? @sol_src_en *2 from|in|on|at|during the|that|our|my|your|their|last|yesterday|today|this+morning|monday|tuesday|wednesday|thursday|friday s? %? @source_en"),
    (Class::UnlocatedSolution, "the|that|this|our|your|my|their|a|an|same %? @sol_src_en *2 from|in|on|at|during the|that|our|my|your|their last|previous|other @source_en"),
    (Class::UnlocatedSolution, "the|that|this|our|your|a @sol_src_en from|by ^ $"),
    (Class::UnlocatedSolution, "la|l|le|les|cette|ce|ton|ta|votre|notre|tes|vos @sol_fr *1 dont|qu|que *3 @discussed_fr"),
    (Class::UnlocatedSolution, "comme convenu|discute|dit|indique|mentionne|decide|demande|evoque|propose|suggere|valide|prevu+ensemble !ci|dans|plus|en|sur|precedemment+dans"),
    (Class::UnlocatedSolution, "comme on|nous|tu|vous|je|j *3 @discussed_fr !ci|dans+ce|plus+haut|plus+bas"),
    (Class::UnlocatedSolution, "suite a|au|aux *1 notre|la|nos|ta|votre|cette discussion|echange|echanges|reunion|call|appel|conversation|point|decision"),
    (Class::UnlocatedSolution, "@sol_named_fr de|d ^"),
    (Class::UnlocatedSolution, "@sol_src_fr *3 de|dans|sur|en|pendant|lors+de la|le|l|notre|ma|ta|cette|ce|mon|votre @source_fr"),
    (Class::UnlocatedSolution, "@sol_src_fr *3 du|au|lors+du|en|par @source_fr"),
    // ---- comparison to an unstated referent ----------------------------
    (Class::UnstatedComparison, "the|that other ~pl !@not_after_other_en %?"),
    (Class::UnstatedComparison, "same|similar|identical|equivalent|consistent|like|as|match|matches|matching|mirror|mirrors|mimic|resemble|copy *1 as|to|with|like|in|of|from? the|that|those @prev_en *1 @cmp_en"),
    (Class::UnstatedComparison, "as|like usual"),
    (Class::UnstatedComparison, "the|our usual way|approach|fix|setup|pattern|format|style|thing|stuff|process|method|template|structure|layout"),
    (Class::UnstatedComparison, "l autre !@not_after_other_fr %?"),
    (Class::UnstatedComparison, "comme|pareil|identique|similaire|meme|aligne|alignee|semblable|calque|calquee *2 l|le|la|les|celui|celle ancien|ancienne|anciens|anciennes|vieux|vieille|precedent|precedente|precedents|d+avant|de+avant|de+l+ancienne|de+l+ancien|qu+avant"),
    (Class::UnstatedComparison, "comme d+habitude|a+l+habitude|toujours $"),
    (Class::UnstatedComparison, "sur|a|aux|avec|comme|que l|le|la|les|celui|celle|ceux|celles ancien|ancienne|anciens|anciennes|precedent|precedente|precedents|precedentes|vieux|vieilles $"),
    (Class::UnstatedComparison, "la|le|l methode|facon|maniere|approche|structure|format|process|procedure habituelle|habituel"),
    // ---- exact-behaviour reference -------------------------------------
    (Class::ExactBehaviour, "exactly as|like|how|the+same|the+way !below|above|follows|following|shown|specified|described|written|listed|in+the+spec|in+this|i+want|i+need|i+asked"),
    (Class::ExactBehaviour, "exactly what !i|you|we|was|is|s|the"),
    (Class::ExactBehaviour, "same @behav_en *2 before|previously|earlier|yesterday|originally|last+time|it+did|it+had|they+did|it+used|used+to|the+old|the+previous|the+original"),
    (Class::ExactBehaviour, "the+way|how|what it|they|this|that|everything used+to"),
    (Class::ExactBehaviour, "the+way|how it|they|this|everything|things was|were|did|worked|behaved $"),
    (Class::ExactBehaviour, "the+way|how|what it|they|this|everything did|was|were|worked|behaved|looked|ran|handled|used *1 before|previously|earlier|yesterday|originally|initially|last+week|last+time"),
    (Class::ExactBehaviour, "work|works|behave|behaves|act|acts|run|runs|look|looks|function|functions|respond|responds like|as it|they|this *1 did|used|was|were|worked|behaved"),
    (Class::ExactBehaviour, "the|its|their old|original|previous|former|earlier @behav_en"),
    (Class::ExactBehaviour, "do|does|did what it|they did|used|was|were"),
    (Class::ExactBehaviour, "like|as the|its|their @prev_en %? did|used+to|worked|behaved|looked|handled|was|were"),
    (Class::ExactBehaviour, "exactement comme|pareil|la+meme+chose|de+la+meme+facon|de+la+meme+maniere|le+meme|la+meme !ci|dans|que+dans|decrit|indique|ecrit|je+veux|demande"),
    (Class::ExactBehaviour, "exactement ce+que|ce+qu il|elle|ca|cela|c|on|l|le|tu+faisais"),
    (Class::ExactBehaviour, "meme @behav_fr *3 avant|auparavant|precedemment|hier|qu+avant|que+avant|d+avant|la+derniere+fois|qu+hier|qu+il+avait|que+l+ancien|que+l+ancienne|precedente|precedent|d+origine|initial|initiale"),
    (Class::ExactBehaviour, "comme|ce+que|ce+qu|la+ou|de+la+facon+dont|de+la+maniere+dont|la+facon+dont|la+maniere+dont il|elle|ca|cela|c|ils|elles|tout *2 faisait|marchait|fonctionnait|etait|faisaient|marchaient|fonctionnaient|etaient|affichait|rendait|renvoyait|retournait|comportait"),
    (Class::ExactBehaviour, "l|le|la|son|sa|leur ancien|ancienne|precedent|precedente|original|originel|initial @behav_fr"),
    (Class::ExactBehaviour, "@behav_fr d+origine|initial|initiale|originel|originelle|d+avant|precedent|precedente"),
    // ---- repeat failure -------------------------------------------------
    (Class::RepeatFailure, "still *2 @fail_en"),
    (Class::RepeatFailure, "still *1 not|doesn+t|don+t|isn+t|didn+t|won+t|can+t|cannot|aren+t|wasn+t|does+not|is+not|did+not|no|never *1 @works_en"),
    (Class::RepeatFailure, "@fail_state_en *2 again|still"),
    (Class::RepeatFailure, "failing|failed|fails|fail again"),
    (Class::RepeatFailure, "get|got|getting|see|saw|seeing|hit|hitting|have|having|throws|throwing|shows|showing *2 @fail_noun_en *1 again"),
    (Class::RepeatFailure, "same|identical @fail_noun_en !@not_after_same_error"),
    (Class::RepeatFailure, "back+to+square+one|yet+again|again+and+again|once+again|same+old"),
    (Class::RepeatFailure, "didn+t|did+not|hasn+t|has+not|haven+t|have+not|still+doesn+t|still+didn+t|never really? fix|fixed|solve|solved|resolve|resolved|help|helped|work|worked|do+anything|make+a+difference|make+any+difference|do+the+trick|address|change+anything"),
    (Class::RepeatFailure, "doesn+t|does+not|don+t really? fix|solve|resolve|help|address|do+the+trick|make+a+difference|make+any+difference"),
    (Class::RepeatFailure, "nothing changed|happened|happens|works|worked|changes|is+fixed|got+fixed"),
    (Class::RepeatFailure, "no|zero difference|change|improvement $"),
    (Class::RepeatFailure, "makes|made|make no|zero+difference"),
    (Class::RepeatFailure, "% s|is|are|came|comes|coming back !up|online|to|in|on|from|and|now|home|out|at|with|end|button|link|office"),
    (Class::RepeatFailure, "bug|error|issue|problem|crash|warning|exception|failure|panic|regression *2 still+there|still+here|still+present|still+happening|still+occurs|persists|remains|persisting|reappeared|reappears|resurfaced|returned|is+back"),
    (Class::RepeatFailure, "keeps|keep *1 failing|crashing|breaking|hanging|erroring|happening|timing+out|throwing|coming+back|popping+up|panicking|freezing|flaking"),
    (Class::RepeatFailure, "i|we|still|it keep|keeps getting|seeing|hitting|running+into"),
    (Class::RepeatFailure, "the+same+thing|same+thing happens|happened|happening|again|keeps|still"),
    (Class::RepeatFailure, "still the+same $"),
    (Class::RepeatFailure, "not|never|isn+t|wasn+t|aren+t actually? fixed|resolved|solved yet? $"),
    (Class::RepeatFailure, "encore|de+nouveau|a+nouveau|re *2 @fail_fr"),
    (Class::RepeatFailure, "toujours *1 @still_fr"),
    (Class::RepeatFailure, "y+a+toujours|y+a+encore|ai+toujours|ai+encore|a+toujours|a+encore|j+ai+toujours|ca+fait+toujours|ca+fait+encore *2 @fail_noun_fr"),
    (Class::RepeatFailure, "@fail_state_fr *2 encore|toujours|de+nouveau|a+nouveau"),
    (Class::RepeatFailure, "meme @fail_noun_fr !@not_after_same_error_fr"),
    (Class::RepeatFailure, "ca+recommence|ca+repart|rebelote|retour+a+la+case+depart|au+meme+point|rien+n+a+change|n+a+rien+change|ca+n+a+pas+marche|n+a+pas+marche|n+a+pas+fonctionne|n+a+pas+corrige|n+a+pas+regle|n+a+pas+resolu|n+a+rien+corrige|n+a+rien+regle|n+a+servi+a+rien|sert+a+rien|est+revenu|est+revenue|c+est+revenu|ca+revient|est+de+retour|reapparu|reapparue|reapparait|toujours+pareil|toujours+la+meme|pareil+qu+avant"),
    (Class::RepeatFailure, "pas|toujours+pas|jamais corrige|corrigee|regle|reglee|resolu|resolue $"),
];

/// Lists holding multi-word entries (`last+time`); every other list is
/// sorted single words, searched by bisection.
const PHRASE_LISTS: &[&str] = &[
    "when_en",
    "when_fr",
    "fail_state_en",
    "art_fr",
    "behav_en",
    "fail_noun_en",
    "still_fr",
];

pub(crate) fn list(name: &str) -> List {
    let l = words(name);
    if PHRASE_LISTS.contains(&name) {
        List::Phrases(l)
    } else {
        List::Words(l)
    }
}

/// Every single-word set searched by bisection, for the sortedness test.
#[cfg(test)]
pub(crate) const WORD_SETS: &[&str] = &[
    "is_common_capital_words",
    "noun_follower_words",
    "is_filler_words",
    "is_interrogative_words",
    "is_object_start_words",
    "is_mental_after_still_words",
    "is_action_verb_words",
    "is_not_before_encore_words",
    "is_not_after_encore_words",
    "is_success_words",
    "is_negation_words",
    "is_english_subject_words",
    "is_chitchat_words",
    "is_continuation_word_words",
    "work_verbs_en",
    "work_stems_fr_er",
    "work_forms_fr",
    "did_en",
    "did_fr",
];

pub(crate) fn words(name: &str) -> &'static [&'static str] {
    match name {
        "art_en" => ART_EN,
        "prev_en" => PREV_EN,
        "when_en" => WHEN_EN,
        "qual_en" => QUAL_EN,
        "that_en" => THAT_EN,
        "sol_en" => SOL_EN,
        "sol_named_en" => SOL_NAMED_EN,
        "sol_src_en" => SOL_SRC_EN,
        "sol_src_fr" => SOL_SRC_FR,
        "still_fr" => STILL_FR,
        "discussed_en" => DISCUSSED_EN,
        "source_en" => SOURCE_EN,
        "cmp_en" => CMP_EN,
        "behav_en" => BEHAV_EN,
        "fail_en" => FAIL_EN,
        "fail_state_en" => FAIL_STATE_EN,
        "works_en" => WORKS_EN,
        "fail_noun_en" => FAIL_NOUN_EN,
        "not_after_same_error" => NOT_AFTER_SAME_ERROR,
        "art_fr" => ART_FR,
        "art_fr_not_latest" => ART_FR_NOT_LATEST,
        "when_fr" => WHEN_FR,
        "prev_fr" => PREV_FR,
        "that_fr" => THAT_FR,
        "qual_fr" => QUAL_FR,
        "sol_fr" => SOL_FR,
        "sol_named_fr" => SOL_NAMED_FR,
        "discussed_fr" => DISCUSSED_FR,
        "source_fr" => SOURCE_FR,
        "behav_fr" => BEHAV_FR,
        "fail_fr" => FAIL_FR,
        "fail_state_fr" => FAIL_STATE_FR,
        "fail_noun_fr" => FAIL_NOUN_FR,
        "not_after_same_error_fr" => NOT_AFTER_SAME_ERROR_FR,
        "not_after_other_en" => NOT_AFTER_OTHER_EN,
        "not_after_other_fr" => NOT_AFTER_OTHER_FR,
        "is_common_capital_words" => IS_COMMON_CAPITAL_WORDS,
        "noun_follower_words" => NOUN_FOLLOWER_WORDS,
        "is_filler_words" => IS_FILLER_WORDS,
        "is_interrogative_words" => IS_INTERROGATIVE_WORDS,
        "is_object_start_words" => IS_OBJECT_START_WORDS,
        "is_mental_after_still_words" => IS_MENTAL_AFTER_STILL_WORDS,
        "is_action_verb_words" => IS_ACTION_VERB_WORDS,
        "is_not_before_encore_words" => IS_NOT_BEFORE_ENCORE_WORDS,
        "is_not_after_encore_words" => IS_NOT_AFTER_ENCORE_WORDS,
        "is_success_words" => IS_SUCCESS_WORDS,
        "is_negation_words" => IS_NEGATION_WORDS,
        "is_english_subject_words" => IS_ENGLISH_SUBJECT_WORDS,
        "is_chitchat_words" => IS_CHITCHAT_WORDS,
        "is_continuation_word_words" => IS_CONTINUATION_WORD_WORDS,
        "work_verbs_en" => WORK_VERBS_EN,
        "did_en" => DID_EN,
        "did_fr" => DID_FR,
        "work_stems_fr_er" => WORK_STEMS_FR_ER,
        "work_forms_fr" => WORK_FORMS_FR,
        _ => panic!("gate lexicon has no list @{name}"),
    }
}

#[rustfmt::skip]
const IS_COMMON_CAPITAL_WORDS: &[&str] = &[
    "a", "also", "an", "and", "api", "avant", "base", "best", "but", "ce", "cette",
    "contournement", "correct", "current", "d", "default", "demain", "dev", "dimanche", "easy",
    "everyone", "everything", "final", "first", "friday", "he", "here", "hier", "how", "i", "it",
    "jeudi", "l", "la", "last", "le", "les", "let", "leur", "lundi", "mardi", "mercredi", "mon",
    "monday", "new", "next", "nothing", "notre", "official", "ok", "old", "one", "or", "other",
    "previous", "prod", "production", "proper", "quick", "recommended", "right", "same", "samedi",
    "saturday", "secours", "she", "simple", "so", "something", "son", "standard", "sunday", "test",
    "tests", "that", "the", "then", "there", "they", "this", "thursday", "today", "ton", "tuesday",
    "un", "une", "usual", "vendredi", "votre", "we", "wednesday", "what", "when", "where", "which",
    "who", "why", "wrong", "yesterday", "you",
];

/// Capitalised words that are not names: sentence starts, pronouns,
/// days and months ("the fix from Monday" is a time, caught elsewhere).
pub(crate) fn is_common_capital(w: &str) -> bool {
    IS_COMMON_CAPITAL_WORDS.binary_search(&w).is_ok()
}

// --- The structural stage: who asks for work -----------------------------

/// English verbs that, opening a clause, ask for a change to be made.
/// Not read-only ones (look, check, explain, show): they ask for an answer.
#[rustfmt::skip]
const WORK_VERBS_EN: &[&str] = &[
    "add", "adjust", "annotate", "append", "apply", "batch", "bring", "build", "bump", "cache",
    "cap", "change", "clamp", "clean", "comment", "complete", "configure", "consolidate",
    "convert", "create", "debug", "decouple", "dedupe", "deduplicate", "delete", "deploy",
    "deprecate", "diagnose", "disable", "document", "downgrade", "drop", "edit", "enable",
    "escape", "expose", "extend", "extract", "fill", "filter", "finish", "fix", "flatten",
    "follow", "generate", "get", "handle", "harden", "hide", "hook", "implement", "improve",
    "increase", "inline", "insert", "install", "integrate", "introduce", "investigate", "lengthen",
    "limit", "localise", "localize", "lower", "make", "memoize", "merge", "migrate", "mock",
    "modify", "move", "normalise", "normalize", "optimise", "optimize", "paginate", "parallelize",
    "patch", "pin", "polish", "populate", "port", "prepend", "put", "raise", "rearrange",
    "rebuild", "redesign", "redo", "reduce", "refactor", "reimplement", "remove", "rename",
    "reorder", "reorganise", "reorganize", "repair", "replace", "resolve", "restore",
    "restructure", "revamp", "revert", "rework", "rewrite", "rollback", "sanitise", "sanitize",
    "scaffold", "secure", "set", "setup", "shorten", "simplify", "sort", "speed", "split",
    "standardise", "standardize", "strip", "stub", "support", "swap", "switch", "throttle", "tidy",
    "translate", "trim", "try", "turn", "tweak", "uncomment", "undo", "unify", "uninstall",
    "unpin", "unwrap", "update", "upgrade", "use", "validate", "vendor", "wire", "wrap", "write",
];

/// Forms of French work verbs (imperative, infinitive, "tu" and "vous"
/// present), folded. Regular -er verbs are expanded from their stem in
/// `is_work_verb`; this list holds the irregular ones.
#[rustfmt::skip]
const WORK_STEMS_FR_ER: &[&str] = &[
    "activ", "adapt", "ajout", "ajust", "amelior", "annul", "appliqu", "augment", "bascul", "boug",
    "branch", "cach", "chang", "cod", "comment", "complet", "configur", "corrig", "cre", "debogu",
    "debugg", "debugu", "decomment", "decoupl", "deplac", "deploi", "desactiv", "developp",
    "diminu", "document", "echapp", "enlev", "envelopp", "export", "expos", "factoris", "filtr",
    "fix", "fusion", "gener", "ger", "harmonis", "implement", "import", "install", "integr",
    "invers", "isol", "limit", "merg", "migr", "mock", "modifi", "mutualis", "nettoi", "normalis",
    "optimis", "pass", "patch", "pouss", "rajout", "rebranch", "rectifi", "redig", "refactor",
    "refactoris", "regl", "regroup", "remont", "remplac", "renforc", "renomm", "reorganis",
    "repar", "repass", "restaur", "restructur", "retir", "securis", "separ", "simplifi", "supprim",
    "termin", "trait", "transform", "tri", "unifi", "upgrad", "utilis", "valid", "vir",
];

#[rustfmt::skip]
const WORK_FORMS_FR: &[&str] = &[
    "construire", "construis", "construisez", "convertir", "convertis", "convertissez", "definir",
    "definis", "definissez", "deploie", "deploies", "deployer", "deployez", "ecrire", "ecris",
    "ecrivez", "enrichir", "enrichis", "enrichissez", "extraire", "extrais", "extrayez", "faire",
    "fais", "faites", "finir", "finis", "finissez", "introduire", "introduis", "introduisez",
    "met", "mets", "mettez", "mettre", "nettoie", "nettoies", "nettoyer", "nettoyez", "reduire",
    "reduis", "reduisez", "reecrire", "reecris", "reecrivez", "refaire", "refais", "refaites",
    "remets", "remettez", "remettre", "remplir", "remplis", "remplissez", "rendez", "rendre",
    "rends", "reprendre", "reprends", "reprenez", "resolvez", "resoudre", "resous", "retablir",
    "retablis", "retablissez", "revenez", "revenir", "reviens", "suis", "suivez", "suivre",
    "traduire", "traduis", "traduisez",
];

pub(crate) fn is_work_verb_en(w: &str) -> bool {
    // "reapply", "rewire": a verb of the list with "re" in front.
    let base = |w: &str| WORK_VERBS_EN.binary_search(&w).is_ok();
    base(w) || (w.len() > 5 && w.strip_prefix("re").is_some_and(base))
}

/// "fixing", "using", "debugging" → a work verb? Only after a request
/// marker ("would you mind adding…", "what about using…").
pub(crate) fn is_work_gerund_en(w: &str) -> bool {
    let Some(stem) = w.strip_suffix("ing") else {
        return false;
    };
    if stem.len() < 2 {
        return false;
    }
    if is_work_verb_en(stem) {
        return true;
    }
    let mut with_e = String::with_capacity(stem.len() + 1);
    with_e.push_str(stem);
    with_e.push('e');
    if is_work_verb_en(&with_e) {
        return true;
    }
    // "debugging", "setting": a doubled final consonant.
    let b = stem.as_bytes();
    b.len() >= 3 && b[b.len() - 1] == b[b.len() - 2] && is_work_verb_en(&stem[..stem.len() - 1])
}

pub(crate) fn is_work_verb_fr(w: &str) -> bool {
    // "réappliquer", "rebrancher": a verb of the list with "re"/"ré".
    if w.len() > 6
        && let Some(base) = w.strip_prefix("re")
        && is_work_verb_fr_base(base)
    {
        return true;
    }
    is_work_verb_fr_base(w)
}

fn is_work_verb_fr_base(w: &str) -> bool {
    if WORK_FORMS_FR.binary_search(&w).is_ok() {
        return true;
    }
    // Regular -er verbs: corrige, corriges, corrigez, corriger, corrigeons.
    for suffix in ["e", "es", "ez", "er", "ons", "eons"] {
        if let Some(stem) = w.strip_suffix(suffix)
            && WORK_STEMS_FR_ER.binary_search(&stem).is_ok()
        {
            return true;
        }
    }
    false
}

/// Next words that show the verb was a noun: "Update failed", "Fix is
/// ready", "Change of plan".
#[rustfmt::skip]
const NOUN_FOLLOWER_WORDS: &[&str] = &[
    "are", "broke", "can", "could", "did", "does", "est", "etait", "failed", "fails", "for", "had",
    "has", "have", "is", "job", "jobs", "log", "logs", "looks", "of", "passed", "passes",
    "pipeline", "request", "requests", "s", "script", "seems", "should", "sont", "statement",
    "step", "steps", "tool", "was", "went", "were", "will", "worked", "works", "would",
];

pub(crate) fn noun_follower(w: &str) -> bool {
    NOUN_FOLLOWER_WORDS.binary_search(&w).is_ok()
}

/// Multi-word openings that turn what follows into a request: politeness,
/// modal questions, "let's", "il faut", "merci de". Longest first.
#[rustfmt::skip]
pub(crate) const REQUEST_MARKERS: &[&str] = &[
    "est+ce+que+tu+peux", "est+ce+que+tu+pourrais", "est+ce+que+vous+pouvez",
    "est+ce+que+vous+pourriez", "est+ce+qu+on+peut", "est+ce+qu+on+pourrait",
    "est+ce+que+tu+veux+bien", "i+would+like+you+to", "i+d+like+you+to", "i+need+you+to",
    "i+want+you+to", "would+you+mind", "would+you+please", "could+you+please", "can+you+please",
    "s+il+te+plait", "s+il+vous+plait", "je+voudrais+que+tu", "je+veux+que+tu",
    "j+aimerais+que+tu", "il+faudrait+que+tu", "il+faut+que+tu", "why+don+t+you", "why+don+t+we",
    "go+ahead+and", "we+need+to", "we+have+to", "we+should", "we+must", "you+need+to",
    "you+have+to", "you+should", "you+must", "i+want+to", "i+d+like+to", "i+need+to", "we+want+to",
    "it+s+time+to", "time+to", "make+sure+to", "try+to", "can+you", "could+you", "would+you",
    "will+you", "can+we", "could+we", "let+s", "let+us", "how+about", "what+about", "why+not",
    "need+to", "peux+tu", "pourrais+tu", "tu+peux", "tu+pourrais", "pouvez+vous", "pourriez+vous",
    "vous+pouvez", "vous+pourriez", "on+peut", "on+pourrait", "il+faut", "il+faudrait", "faut",
    "faudrait", "on+doit", "on+devrait", "on+va", "tu+dois", "tu+devrais", "vous+devez", "tu+vas",
    "je+veux", "je+voudrais", "j+aimerais", "merci+de", "merci+d", "essaie+de", "essaye+de",
    "help+me+to", "help+me", "help+to", "help+us", "aide+moi+a",
    "essayez+de", "pourquoi+ne+pas", "n+oublie+pas+de", "pense+a",
];

#[rustfmt::skip]
const IS_FILLER_WORDS: &[&str] = &[
    "accord", "actually", "again", "ah", "ahead", "allez", "alors", "alright", "also", "and",
    "asap", "aussi", "bien", "bon", "btw", "but", "cool", "coup", "d", "daccord", "desormais",
    "donc", "dorenavant", "du", "enfin", "ensuite", "et", "finally", "first", "go", "good",
    "great", "hello", "hey", "hi", "hmm", "hop", "instead", "just", "juste", "kindly", "lastly",
    "maintenant", "mais", "maybe", "merci", "moi", "next", "nice", "now", "oh", "ok", "okay",
    "oui", "parfait", "perfect", "perhaps", "please", "pls", "plutot", "plz", "puis", "quick",
    "quickly", "rather", "re", "right", "simplement", "sinon", "so", "stp", "super", "sure", "svp",
    "thank", "thanks", "then", "tiens", "today", "tres", "um", "urgent", "urgently", "vas",
    "voila", "well", "y", "yeah", "yep", "yes",
];

/// Single words skipped before the verb: "ok so now please fix…".
pub(crate) fn is_filler(w: &str) -> bool {
    IS_FILLER_WORDS.binary_search(&w).is_ok()
}

#[rustfmt::skip]
const IS_INTERROGATIVE_WORDS: &[&str] = &[
    "combien", "comment", "how", "laquelle", "lequel", "lesquelles", "lesquels", "pourquoi",
    "quel", "quelle", "quelles", "quels", "quoi", "what", "whats", "why",
];

/// Question openers that make a sentence a question even without `?`.
/// "when", "where", "which" are left out: "When the user clicks save, show
/// a toast" is an instruction.
pub(crate) fn is_interrogative(w: &str) -> bool {
    IS_INTERROGATIVE_WORDS.binary_search(&w).is_ok()
}

/// Multi-word question openers ("est-ce que", "qu'est-ce").
/// Read-only requests ("explain…", "tell me…") count as questions: they
/// ask for an answer, not a change.
#[rustfmt::skip]
pub(crate) const INTERROGATIVE_PHRASES: &[&str] = &[
    "est+ce+que", "est+ce+qu", "qu+est+ce", "d+ou", "a+quoi", "i+wonder", "je+me+demande",
    "any+idea", "any+ideas", "do+you+know", "une+idee", "not+sure+why", "i+don+t+understand",
    "je+ne+comprends+pas", "je+comprends+pas", "explain", "explique", "expliquez", "tell+me",
    "dis+moi", "dites+moi", "describe", "decris", "summarize", "summarise", "resume",
    "walk+me+through", "help+me+understand", "can+you+explain", "could+you+explain",
    "peux+tu+m+expliquer", "tu+peux+m+expliquer", "is+there", "are+there", "y+a+t+il",
];

/// "Comment out the logs" is English, not "comment…?".
pub(crate) fn comment_is_english(next: &str, after: Option<&str>) -> bool {
    match next {
        // "Comment on lance les tests ?" is French; "comment on the PR" is not.
        "on" => after.is_some_and(|w| {
            matches!(
                w,
                "the"
                    | "this"
                    | "that"
                    | "it"
                    | "my"
                    | "your"
                    | "our"
                    | "pr"
                    | "each"
                    | "every"
                    | "all"
                    | "a"
                    | "an"
            )
        }),
        _ => matches!(
            next,
            "out"
                | "the"
                | "this"
                | "that"
                | "it"
                | "these"
                | "those"
                | "every"
                | "each"
                | "all"
                | "a"
                | "an"
                | "in"
                | "above"
                | "below"
                | "why"
                | "what"
                | "how"
        ),
    }
}

#[rustfmt::skip]
const IS_OBJECT_START_WORDS: &[&str] = &[
    "a", "all", "an", "any", "back", "ca", "ce", "cela", "ces", "cet", "cette", "des", "du",
    "each", "en", "every", "in", "it", "its", "l", "la", "le", "les", "ma", "me", "mes", "moi",
    "mon", "my", "nos", "notre", "our", "out", "some", "ta", "tes", "that", "the", "their", "them",
    "these", "this", "those", "to", "ton", "tous", "tout", "toutes", "un", "une", "up", "us",
    "vos", "votre", "y", "your",
];

/// After a verb found mid-sentence ("… and fix the bug"), the word that
/// shows it is an imperative with an object, not a noun ("build and deploy
/// steps").
pub(crate) fn is_object_start(w: &str) -> bool {
    IS_OBJECT_START_WORDS.binary_search(&w).is_ok()
}

#[rustfmt::skip]
const IS_MENTAL_AFTER_STILL_WORDS: &[&str] = &[
    "a", "able", "agree", "alive", "am", "an", "applies", "are", "available", "be", "believe",
    "can", "compiles", "could", "deciding", "draft", "early", "exists", "experimental", "feel",
    "figuring", "fine", "good", "green", "has", "have", "here", "holds", "hope", "in", "is",
    "learning", "like", "looking", "love", "must", "my", "need", "needed", "needs", "new", "ok",
    "okay", "on", "open", "our", "passes", "pending", "prefer", "relevant", "remember", "required",
    "reviewing", "running", "should", "supported", "the", "there", "think", "thinking", "to",
    "true", "up", "use", "useful", "uses", "using", "valid", "waiting", "want", "will", "wip",
    "wonder", "working", "works", "worth", "would", "your",
];

/// After "still" in a statement, verbs of opinion or need, not of a
/// persisting fault: "I still think…", "we still need…".
pub(crate) fn is_mental_after_still(w: &str) -> bool {
    IS_MENTAL_AFTER_STILL_WORDS.binary_search(&w).is_ok()
}

#[rustfmt::skip]
const IS_ACTION_VERB_WORDS: &[&str] = &[
    "arrete", "attends", "call", "check", "cherche", "commit", "compare", "continue", "dis", "do",
    "donne", "essaie", "essaye", "execute", "explain", "find", "garde", "give", "go", "grep",
    "keep", "laisse", "lance", "launch", "leave", "let", "lis", "list", "look", "montre", "open",
    "ouvre", "ping", "pousse", "print", "pull", "push", "read", "regarde", "relance", "relis",
    "rerun", "restart", "retry", "review", "run", "search", "see", "send", "show", "start", "stop",
    "tell", "test", "teste", "try", "verifie", "verify", "wait",
];

/// Imperatives that ask for an action without changing anything (run,
/// check, relance…): a sentence opening with one is a request, not a
/// statement.
pub(crate) fn is_action_verb(w: &str) -> bool {
    IS_ACTION_VERB_WORDS.binary_search(&w).is_ok()
}

#[rustfmt::skip]
const IS_NOT_BEFORE_ENCORE_WORDS: &[&str] = &[
    "a", "ai", "as", "avez", "avons", "c", "ca", "ce", "es", "est", "et", "etes", "faut", "fois",
    "il", "j", "je", "mais", "merci", "nous", "on", "ont", "ou", "pas", "plus", "reste",
    "restent", "sommes", "sont", "suis", "tu", "vous", "y",
];

/// Before a mid-sentence "encore", words that make it "more" or "yet"
/// rather than "again": "on a encore 20 minutes", "merci encore", "pas
/// encore".
pub(crate) fn is_not_before_encore(w: &str) -> bool {
    IS_NOT_BEFORE_ENCORE_WORDS.binary_search(&w).is_ok()
}

#[rustfmt::skip]
const IS_NOT_AFTER_ENCORE_WORDS: &[&str] = &[
    "assez", "besoin", "de", "des", "du", "la", "le", "les", "longtemps", "mieux", "moins", "peu",
    "pire", "plus", "quelques", "temps", "trop", "un", "une",
];

/// After a mid-sentence "encore": a quantity, so "more", not "again".
pub(crate) fn is_not_after_encore(w: &str) -> bool {
    IS_NOT_AFTER_ENCORE_WORDS.binary_search(&w).is_ok() || w.bytes().all(|b| b.is_ascii_digit())
}

#[rustfmt::skip]
const IS_SUCCESS_WORDS: &[&str] = &[
    "better", "cleaner", "corrige", "faster", "fine", "fixed", "fonctionne", "good", "great",
    "green", "marche", "merci", "mieux", "nice", "nickel", "parfait", "pass", "passe", "passed",
    "passent", "passes", "passing", "perfect", "propre", "rapide", "regle", "resolu", "resolved",
    "solved", "super", "thank", "thanks", "vert", "verts", "worked", "works",
];

/// Words that report success, for `is_success_report`.
pub(crate) fn is_success(w: &str) -> bool {
    IS_SUCCESS_WORDS.binary_search(&w).is_ok()
}

#[rustfmt::skip]
const IS_NEGATION_WORDS: &[&str] = &[
    "anymore", "broken", "but", "cannot", "casse", "echoue", "except", "fail", "failed", "fails",
    "jamais", "mais", "n", "ne", "never", "no", "none", "not", "nothing", "pas", "plus", "rien",
    "sauf", "still", "t", "toujours", "yet",
];

/// Negations and failure words that turn a success word around ("doesn't
/// work", "ne passe plus", "still fails"). Not "again": "it works again"
/// is good news.
pub(crate) fn is_negation(w: &str) -> bool {
    IS_NEGATION_WORDS.binary_search(&w).is_ok()
}

/// "move on", "carry on", "go ahead": verbs of the lexicon used to mean
/// "proceed".
pub(crate) fn is_idiom_follower(verb: &str, next: &str) -> bool {
    matches!(
        (verb, next),
        ("move", "on" | "forward" | "ahead")
            | ("get", "started" | "going" | "back")
            | ("put", "differently")
    )
}

#[rustfmt::skip]
const IS_ENGLISH_SUBJECT_WORDS: &[&str] = &[
    "everything", "he", "i", "it", "its", "my", "nothing", "our", "she", "that", "they", "this",
    "we", "you", "your",
];

/// English subjects opening a statement; with a `?` they make a declarative
/// question ("You fixed it?", "It's still broken?").
pub(crate) fn is_english_subject(w: &str) -> bool {
    IS_ENGLISH_SUBJECT_WORDS.binary_search(&w).is_ok()
}

/// Git references that name one artefact without a hash.
pub(crate) const GIT_REF_PHRASES: &[&str] = &[
    "pending+changes",
    "local+changes",
    "unstaged+changes",
    "last+commit",
    "latest+commit",
    "previous+commit",
    "dernier+commit",
    "commit+precedent",
    "staged+changes",
    "uncommitted+changes",
    "current+diff",
    "working+tree",
    "this+branch",
    "current+branch",
    "cette+branche",
    "branche+courante",
    "branche+actuelle",
];

#[rustfmt::skip]
const IS_CHITCHAT_WORDS: &[&str] = &[
    "a", "absolument", "accord", "again", "agreed", "ah", "ahead", "aide", "all", "allez",
    "alright", "amazing", "awesome", "beaucoup", "bien", "bien!", "bon", "bonjour", "bonne",
    "bravo", "brilliant", "buddy", "bye", "c", "ca", "carrement", "certes", "cheers", "chouette",
    "ciao", "cimer", "classe", "claude", "compris", "continue", "cool", "coucou", "d", "dac",
    "daccord", "deal", "done", "encore", "enfin", "entendu", "est", "exactement", "exactly",
    "excellent", "fantastic", "fine", "fonctionne", "for", "formidable", "genial", "gg", "go",
    "good", "got", "great", "haha", "hello", "help", "hey", "hi", "hm", "hmm", "hourra",
    "impeccable", "incredible", "indeed", "is", "it", "job", "journee", "k", "kk", "l", "lgtm",
    "lol", "look", "looks", "lot", "lots", "lovely", "magnifique", "maintenant", "man", "marche",
    "mate", "merci", "merci!", "much", "neat", "nice", "nickel", "no", "non", "nope", "note",
    "noted", "now", "np", "nuit", "oh", "ok", "okay", "ouais", "oui", "parfait", "perfect",
    "please", "pour", "proceed", "right", "s", "salut", "so", "soiree", "solid", "sounds", "stp",
    "super", "sure", "svp", "sweet", "team", "thank", "thank-you", "thanks", "thanks!", "that",
    "the", "this", "thx", "ton", "top", "top!", "tres", "ty", "tysm", "understood", "vas", "very",
    "voila", "votre", "was", "well", "wonderful", "worked", "working", "works", "wow", "y", "yay",
    "yeah", "yep", "yes", "you", "youpi", "your", "yup",
];

/// Words that make up thanks and chit-chat; a prompt made only of these is
/// left alone.
pub(crate) fn is_chitchat(w: &str) -> bool {
    IS_CHITCHAT_WORDS.binary_search(&w).is_ok()
}

#[rustfmt::skip]
const IS_CONTINUATION_WORD_WORDS: &[&str] = &[
    "again", "ahead", "all", "allez", "alors", "also", "and", "as", "aussi", "away", "ca", "ceci",
    "cela", "do", "en", "encore", "et", "everything", "for", "go", "il", "it", "just", "juste",
    "l", "la", "le", "les", "maintenant", "me", "merci", "moi", "nous", "now", "ok", "oui", "out",
    "plait", "please", "pls", "quickly", "right", "s", "same", "so", "stp", "sure", "svp", "te",
    "thanks", "that", "the", "them", "then", "these", "this", "those", "too", "tout", "up", "us",
    "vas", "vous", "way", "well", "y", "yes",
];

/// Object words of a pure continuation ("fix it", "corrige ça", "fais-le"):
/// the model just said what "it" is.
pub(crate) fn is_continuation_word(w: &str) -> bool {
    IS_CONTINUATION_WORD_WORDS.binary_search(&w).is_ok()
}

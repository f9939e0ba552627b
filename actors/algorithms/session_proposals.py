"""The offline proposer: memories worth keeping, read from a session's turns without a model.

Conservative by design. It proposes only a complete statement that someone
made as a memory. Where a decision lives decides how it is read: the user's
answers to one call of the agent's question tool (one decision, noting the
option the agent recommended when another was chosen; not a choice about this
moment's work: "should I create it now?"), a plan the user approved or a spec
the user wrote (its decision sections, one proposal each), the reason the user gave for rejecting
a tool call and what the user typed while the agent worked (read as the user's
own turns). In what was said: an explicit marker (`[decision] ...`, `▶ learned ───`
blocks, `:::blocker` blocks, the markers git-notes-memory's users already
type), a decision the user states ("let's use uv for dependencies", "let's turn on X", "let's do x = 30", "from now
on we ...", "we decided to ...", "the frontend code needs to be in root"), a lesson the user states ("turns out ...",
"TIL ..."), a blocker the user names, and a labelled conclusion of the agent
("Decision: ...", "Root cause: ...", "The root cause was ..."), a cause or
gotcha the agent states plainly ("found a bug: ...", "X isn't available in
Node 18", "X only governs Y", "... by default", "X has a precedence bug", "X
needs Y so Z can ...", "X and Y both require ...", "Interesting — ...", "X is
A, not B", "No <named thing> exists on Y", "X isn't installed yet", "The reason this is hard: ...", "The stale
`server.pid` blocked startup", "Render's docs confirm: ..."), what the agent found in the sentence right before the one
fixing it, naming a thing ("The `create-next-app` created its own `.git`. Let me remove it"), the agent's
choice against a named option ("I'd add a fourth status rather than ..."; not one about the moment's work), a
setting it puts in a named config file (never `.env`), what it says it captured ("Here's what I captured:" and
its bullets), its own "Decisions" sections, a change the user orders against a named alternative ("Fix: change
X to call A instead of B"), a user's correction of where something ended up ("... but they should be at the
repo root"), a choice the user states with what it replaces ("use pnpm instead of npm", "we use Vitest, not
Jest"), and the user's rules and
instructions ("I want the messages in French", "don't ...", "X must only
...", "keep X pure", "one of our standards is that ...", "it's important that
you ...", "start your function names with ...", "add X to all your methods", the team's practice: "we include a
digit in our function names", "we're now requiring all employees to ..."; how names start or end, said with the
value anywhere in a sentence: "we're now requiring all variable names to end with '_n'"),
wherever they stand in a sentence after a lead-in; a "them" right after the
verb is read as the thing the sentence or clause before named, not the place it goes ("assert statements in our
methods"). A
lead-in ending in ":" is read with the bullets it introduces; text
hard-wrapped at a fixed width is rejoined before sentences are cut (short lines typed one by one are not). A turn in
another language than English is not read (counted by `foreign`); an answer or a plan is, by its structure. Never a
question, a plan still hedged, a status update, a transient error, code, or
the agent narrating its work (nor its guess, the user's words said back, its next step, its report of what it
did, an option it lays out, a choice it still puts to the user, a quotation); never a complaint about how the work
stands now ("the button is NOT working"; a stressed clause the team is the subject of is a decision), a
case-to-outcome table ("same value → UNCHANGED"), what the user expects to happen ("it should be fine now"), a plain "should" in a
turn asking for the work now (its spec), a command pasted from a terminal; never what asks for nothing a later session can
act on (a rule announced but not said, a topic introduced, an attitude or a
one-off task (a thing to make: "I need a multi-stage build", the task's guard:
"do not break any existing tests", a request pointing at a screenshot, the
numbered steps of a task, output the user pasted), a quality only, a value judgement, praise, a cheer, an offer of
help, words pointing back, advice about the workplace rather than the code,
its tools or the project unless measured, care for the body at the desk); never
a user's rule or decision that names nothing to check it by (no value, name,
count, always / never, thing of the code, its tools or the place of work) or
that asks for a setup step, a state of mind, only care ("thoroughly", "with more care"), a rule
still to come, a maxim ("not only ... but also", "we always strive"), an
example of the rule ("let's say"), a rule denied ("it's not that ..."), a quality to design for ("with X in
mind"), a step left to judgement ("if needed"), conformity to what exists ("align with our standards"), or points
back ("accordingly", "always import it"), nor what
is said in passing (advice by its name: "a good rule of thumb"; how things are to
keep in mind; growth, a goal or a task bound to one occasion; a state to reach in
the work at hand; how a thing other than code should be; a proposal to the team
naming nothing exact); never a sentence cut to fit (a
statement longer than a summary is kept only when its first clause stands
alone, or the rule itself without "I want you to" or "get into the habit of", or "the use of X" said as "Use
X"). One proposal per
statement: a restatement in other words is left out.

Each proposal carries four of the five confidence factors; novelty comes from
comparing it with the store (`novelty_of`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from memactors.actors.algorithms.change_claim import changes
from memactors.events.chatter import chatter
from memactors.events.memory_text import heading_text, prose_lines

SUMMARY_CHARS = 100
#: What a proposal keeps of the words it came from.
QUOTE_CHARS = 300
CONTENT_CHARS = 800
MIN_WORDS = 4
#: How much of one turn is read (as much as the transcript reader keeps of one): past this a turn is a paste, and
#: reading it all let one long hostile line cost seconds. The proposals of the first part are kept.
TURN_CHARS = 16_000

_MARKER_NS = {
    "decision": "decisions", "decided": "decisions", "learned": "learnings", "learning": "learnings",
    "til": "learnings", "remember": "learnings", "blocker": "blockers", "blocked": "blockers",
    "pattern": "patterns", "progress": "progress", "research": "research",
}
_INLINE_MARKER = re.compile(r"^[\s>]*\[(" + "|".join(_MARKER_NS) + r")\]\s*[:\-–—]?\s*(.+)$", re.IGNORECASE)
_BLOCK_START = re.compile(r"^\s*(?:▶\s*(" + "|".join(_MARKER_NS) + r")\s*[─━-]+[ \t]*(.*)|:::\s*("
                          + "|".join(_MARKER_NS) + r")\s*)$", re.IGNORECASE)
_BLOCK_END = re.compile(r"^\s*(?:[─━]{3,}|:::)\s*$")
_LABEL = re.compile(r"^\s*(?:[-*]\s*)?(?:\*\*)?(decision|key\s+decision|we\s+decided|learning|key\s+learning|lesson"
                    r"(?:\s+learned)?|root\s+cause|gotcha|blocker|rule|convention)(?:\*\*)?\s*[:—–-]\s*(?:\*\*)?\s*"
                    r"(.+)$", re.IGNORECASE)
_LABEL_NS = {"decision": "decisions", "key decision": "decisions", "we decided": "decisions",
             "learning": "learnings", "key learning": "learnings", "lesson": "learnings", "lesson learned": "learnings",
             "root cause": "learnings", "gotcha": "learnings", "blocker": "blockers", "rule": "patterns",
             "convention": "patterns"}
#: What the user says when deciding; the group is dropped from the summary ("Let's use uv" -> "Use uv").
#: The answer word a decision may open with ("ok, ", "no, "): left out of what it states.
_ANSWER_WORDS = r"(?:ok(?:ay)?|alright|right|so|yes|yeah|no|nope|good|great|fine|cool)[,.!]?\s+"
_USER_DECISION = re.compile(
    r"^(?:" + _ANSWER_WORDS + r")?(?:"
    r"(let'?s|let\s+us)\s+(?=(?:use|go\s+with|switch|move|keep|stick|standardi[sz]e|adopt|drop|pin|replace|store|"
    r"put|make|require|target|support|run|ship|cap|limit|stop|always|never|avoid|follow|import|rely\s+on|"
    r"start\s+using|turn\s+(?:on|off)|enable|disable|set|do\s+(?=[\w.-]+\s*=\s*\w))\b"
    r"|(?:start|end|begin|prefix)\s+(?:(?:all|every|each|our|your|the)\s+)*(?:[\w-]+\s+){0,3}names?\b)"
    r"|(we'?ll|we\s+will|we'?re\s+going\s+to|we\s+are\s+going\s+to)\s+(?=(?:use|go\s+with|switch|keep|stick|"
    r"standardi[sz]e|adopt|drop|pin|store|require|target|support|stop|start\s+using)\b)"
    r"|(?=we(?:'ve|\s+have)?\s+decided\b|i(?:'ve|\s+have)?\s+decided\b|we'?re\s+going\s+with\b|we\s+are\s+going\s+with\b"
    r"|we(?:'ve|\s+have)\s+(?:started\s+using|begun\s+using|switched\s+to|moved\s+to|adopted)\b"
    r"|we(?:'ll|\s+will)\s+be\s+(?:using|utili[sz]ing|switching\s+to|moving\s+to|adopting)\b"
    # a tool turned down for what is to come: "we will not use the browser terminal", "we won't use Redux" (not
    # "we don't use/need X", said of the code as it stands; not someone's version or this one test: "No, we will not
    # use your version, revert it", "we won't use Docker for this quick test")
    r"|we\s+(?:will\s+not|won'?t|(?:'ll|will)\s+never)\s+use\s+(?!(?:to|it|this|that|these|those|"
    r"them|any|anything|much|more|all|everything|you)\b)(?!.*\b(?:my|your|revert|for\s+this|in\s+this\s+"
    r"(?:test|ticket|task|run|pr|branch))\b)\w"
    r"|decision\s+is\b|the\s+decision\b)"
    r"|(from\s+now\s+on|going\s+forward|moving\s+forward|in\s+this\s+(?:repo|repository|project|codebase)|generally"
    r"|in\s+general|as\s+a\s+(?:general\s+)?rule),?\s+(?=\w)"
    r"|(?=(?:always|never)\s+(?!mind\b)\w+)"  # ("never mind, revert that" takes a word back, asks nothing)
    r"|(?=(?:we|this\s+project|the\s+project)\s+(?:always|never|only)\s+\w+)"
    r")", re.IGNORECASE)
_ANSWER_WORD = re.compile(r"^" + _ANSWER_WORDS + r"(?=\w)", re.IGNORECASE)
_USER_LEARNING = re.compile(
    r"^(?:(til|fyi|note\s+to\s+self|lesson\s+learned|heads\s+up)\s*[:,—-]?\s+"
    r"|(?=(?:it\s+)?turns\s+out\b|i\s+(?:just\s+)?(?:learned|found\s+out|realised|realized)\b"
    r"|we\s+(?:learned|found\s+out)\b|the\s+(?:root\s+)?cause\s+(?:was|is)\b)"
    r"|(remember|keep\s+in\s+mind|note|don'?t\s+forget)\s+that\s+)",
    re.IGNORECASE)
#: A user's imperative that names a change ("Switch the test runner from nose to pytest").
_CHANGE_VERB = re.compile(r"^(?:please\s+)?(?:switch|move|migrate|replace|drop|stop\s+using|upgrade|downgrade)\b",
                         re.IGNORECASE)
_USER_BLOCKER = re.compile(r"\b(?:we'?re|we\s+are|i'?m|i\s+am|this\s+is|it'?s)\s+(?:still\s+)?(?:blocked|stuck)\s+"
                           r"(?:on|by)\b|\bblocked\s+(?:on|by|until)\b", re.IGNORECASE)
_AGENT_LEARNING = re.compile(r"^(?=the\s+root\s+cause\s+(?:was|is)\b|(?:it\s+)?turns\s+out\b)", re.IGNORECASE)
#: A distinction the agent draws about a named thing: "The follow-up payload is a full re-extraction, not a sparse
#: delta", "the pop-up tab should create an Announcement, not call the /notify/ endpoint".
_CONTRAST = re.compile(r"^(?:the\s+)?(?-i:[A-Z\"'][\w\"' .-]{2,40}?)\s+(?:is|are|uses?|should|must|stays?|runs?|takes?|"
                       r"returns?|lives?)\b[^,;]{3,80},\s+not\s+(?!(?:just|only|merely|simply)\b)\w", re.IGNORECASE)
#: An absence the agent found, naming what is absent: "No id_verified or similar field exists on the User model".
_ABSENT = re.compile(r"^no\s+\S+.{0,40}?\b(?:exists?|is\s+defined)\b", re.IGNORECASE)
#: What the agent finds missing on the machine: "Anchor and Solana CLI aren't installed yet".
_AGENT_BLOCKER = re.compile(r"\b(?:isn'?t|aren'?t|is\s+not|are\s+not)\s+(?:yet\s+)?(?:installed|configured|set\s+up)\b",
                            re.IGNORECASE)
#: What the agent notices, led by "Interesting —": the finding after the lead-in.
_NOTICED = re.compile(r"^(?:interesting(?:ly)?|notably)\s*[—–:,-]\s*(?=\w)", re.IGNORECASE)
#: The agent's choice said with the option it turned down: "I'd add a fourth status, `retained`, rather than folding
#: this into `unchanged`", "for local dev, I'd set `restart: "no"` — not `always`" (the lead-in up to the verb dropped).
_AGENT_CHOICE = re.compile(r"^(?:(?:so|for\s+[^,]{3,40}|here),?\s+)?(?:i'?d|i\s+would|i'?ll|i\s+will|we'?d|we'?ll|we\s+will)"
                           r"\s+(?:(?:also|still|just|rather)\s+)?(?=(?:use|add|set|pin|generate|keep|apply|pick|choose|"
                           r"go\s+with|store|treat|put|name|return|target|default|model|represent|key|split|cap)\b)",
                           re.IGNORECASE)
#: (", not just ... but also" adds a case, it turns none down.)
_TURNED_DOWN = re.compile(r"\b(?:rather\s+than|instead\s+of)\b|(?:\s[—–-]|,)\s+not\s+(?!(?:just|only|merely|simply)\b)\S",
                          re.IGNORECASE)
#: A choice about how the agent does this moment's work, not about the project: "I'll use `sed` instead of the edit
#: tool", "I'll run it by hand rather than through the script this time".
_WORK_OF_THE_MOMENT = re.compile(r"\b(?:tools?|commands?|manually|by\s+hand|this\s+(?:file|session|run|time|turn)|"
                                 r"workaround|let\s+me)\b", re.IGNORECASE)
#: A reason or catch the agent names before a colon: "The reason this is hard: RWA tokens are permissioned".
_REASON_LEAD = re.compile(r"^(?:the\s+)?(?:reason|catch|key\s+insight|takeaway|trick|caveat)\b[^:.?]{0,50}:\s+(?=\w)"
                          # what a named tool's documentation confirms: "Render's docs confirm: persistent disks ..."
                          r"|^(?:[\w'’.-]+\s+){1,3}(?:docs|documentation)\s+(?:confirm|confirms|confirmed)\s*:\s+(?=\w)",
                          re.IGNORECASE)
#: A setting in a named configuration file, as the agent writes it: `application.yml` ... `spring.x.y: non_null`.
#: (Not `.env`: what it holds is the machine's, often a secret.)
_CONFIG_FILE = re.compile(r"`([\w./-]*\.(?:ya?ml|json|toml|ini|properties|cfg|conf))`")
_CONFIG_SETTING = re.compile(r"`((?=[\w-]*[._-])[\w.-]{3,80}\s*(?::|=)\s*[^`\s][^`]{0,60})`")
#: The agent saying what it recorded for later ("Saved. Here's what I captured:"): the bullets after it.
_CAPTURED = re.compile(r"\bhere'?s\s+what\s+i(?:'ve)?\s+(?:captured|saved|noted|recorded|stored|remembered)\b"
                       r"|\b(?:saved|noted|recorded|stored)\s+(?:this\s+)?(?:to|in)\s+(?:memory|memories|claude\.md|"
                       r"agents\.md|the\s+notes?)\b", re.IGNORECASE)
_HEDGE = re.compile(r"\b(?:maybe|perhaps|might|could\s+we|should\s+we|what\s+if|not\s+sure|i\s+think\s+we\s+could"
                    r"|probably|consider(?:ing)?|wondering|how\s+about|do\s+you\s+think|for\s+now|for\s+the\s+moment"
                    r"|temporar(?:y|ily)|right\s+now|this\s+session|today|later\s+today|tomorrow|try\s+to|just\s+yet)\b",
                    re.IGNORECASE)
_STATUS = re.compile(r"^(?:i'?ve|i\s+have|we'?ve\s+(?:finished|completed|fixed|done|merged)|all\s+tests?|tests?\s+"
                     r"(?:are\s+)?(?:pass|green)|done\b|finished\b|completed\b|it\s+works|that\s+worked|thanks|thank\s+you)",
                     re.IGNORECASE)
#: A report of one failure (transient), not a rule about failures ("every error must exit non-zero").
_ERROR = re.compile(r"\b(?:traceback|exception:|error:|errno|exited\s+with|exit\s+(?:code|status)\s+\d+|stack\s+trace"
                    r"|segfault|failed\s+with)", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(\[])")
_CLAUSE_CUT = re.compile(r"\s+\((?=[^)]{12,}\)[.!]?$)|\s+(?:because|since|(?<!such\s)as|so\s+that|so|which|—|--|-)\s+|;\s+|:\s+|,\s+(?:because|since|so|"
                         r"which|but|even\s+if|even\s+though|although|unless|as)\s+"
                         # a second finding with its own subject: "X produced Y, and the second mv overwrote Z"
                         r"|,\s+and\s+(?=(?:the|it|its|they|their|by\s+default)\s)"
                         # a purpose after the rule: "import 'locale' in every script, to ..." / "... to explain ..."
                         r"|,?\s+(?:in\s+order\s+)?to\s+(?=(?:ensure|help|indicate|make|keep|avoid|maintain|improve|"
                         r"promote|provide|explain|validate|catch|handle|document|describe|signal|distinguish|show)\b)",
                         re.IGNORECASE)
#: How a rule is asked for ("I want you to", "please make sure that you"): left out of a summary too long with it.
_REQUEST = re.compile(r"^(?:please\s+)?(?:(?:i|we)\s*(?:really\s+|also\s+|now\s+)?(?:want|need|'d\s+like|would\s+like|"
                      r"expect)\s+(?:you|everyone|all\s+of\s+you)\s+to|(?:make\s+sure|ensure)\s+(?:that\s+)?you(?:(?:'re|\s+are)(?=\s+(?:always\s+)?(?:adding|using|including|importing|"
                      r"starting|ending|naming|writing|putting)\b))?|"
                      r"remember\s+to|it(?:'s|\s+is)\s+\w+\s+that\s+you"
                      # "get into the habit of adding ...", "another important practice (we follow) is to add ..."
                      r"|(?:get|getting)\s+into\s+the\s+habit\s+of|(?:one|another)\s+(?:[\w-]+\s+){0,2}?(?:practices?|"
                      r"conventions?|standards?|rules?|things?)\s+(?:we\s+follow\s+)?is\s+to)\s+",
                      re.IGNORECASE)
#: A rule said as "the use of" a named thing ("another practice we follow is the use of the '@validate' decorator
#: ..."): too long, said as "Use ..." with the lead-in dropped.
_USE_OF = re.compile(r"^(?!.{0,80}?\b(?:never|not|no|don'?t|avoid\w*|ban(?:ned)?|forbid\w*|discourage\w*|mistakes?|worst|"
                     r"anti-?patterns?|problems?|bugs?|cause[ds]?)\b)"  # a use forbidden or blamed: never "Use ..."
                     r".{0,80}?\b(?:is|was)\s+(?:the\s+)?(?:consistent\s+)?use\s+of\s+(?=(?:the\s+)?['\"`])", re.IGNORECASE)
#: A clause that ends waiting for its words ("The most important thing is"): never a summary.
_DANGLING = re.compile(r"\b(?:is|are|was|were|be|to|the|a|an|of|and|or|ways?|that|with|for|in|on|by|find|such|"
                       r"especially|particularly|want|do|strive)$",
                       re.IGNORECASE)
_RATIONALE = re.compile(r"^(?:because|this|that|it|the\s+reason|so\s+|otherwise|which|reason:|why:)", re.IGNORECASE)
#: A user's rule or instruction, where a clause starts (the cue stays in the statement).
_USER_RULE = re.compile(
    r"^(?:please\s+)?(?:(?:always|never|don'?t|do\s+not)\s+(?!mind\b)\w+"
    # "I want the messages in French" (a requirement), not "I want to ..." (an intent) nor a task for the agent
    r"|i(?:'d|\s+would)?\s+(?:(?:(?:really|also|just|now)\s+)?(?:want|need|like|prefer|expect(?=\s+you\s+to\b))|don'?t\s+want|do\s+not\s+want)\s+"
    r"(?!to\b|it\b|this\b|that\b(?!\s+you\s+(?:always|never|only|use|include|add|start|end|import|keep|avoid)\b)|a\s+way\b|"
    r"help\b|you\s+to\s+(?:look|check|read|review|explain|tell|show|help"
    r"|investigate|find|see|try|run|fix|debug|open|summari[sz]e|write|create|build|implement|make(?!\s+sure)|update|do"
    r"|go|think|talk|meet|join|share|prepare|work\s+on|get(?!\s+into\s+the\s+habit)|come\s+up|research|propose"
    # (focusing on a practice is asked: "focus on always using annotations")
    r"|focus(?!\s+on\s+(?:always\s+)?(?:using|adding|including|importing|writing|starting|ending)\b)"
    r"|draft|put\s+together|add\s+(?:a|an|some)\b|set\s+up\s+(?:a|an)\s+(?!virtual)|organi[sz]e|take\s+charge|lead)\b)"
    # "I want to emphasize that we never ...", "I wanted to stress the importance of including ..."
    r"|we\s+(?:always\s+)?(?:like|prefer|want)\s+to\s+(?:always\s+)?(?:start|end|use|include|add|import|prefix|name)\b"
    r"|we\s+(?:always\s+|only\s+)?(?:use|follow|apply)\s+(?:the\s+)?(?:[\w-]+\s+){0,2}?['\"`]"
    # "communicate with the team only when asked": a rule by its condition
    r"|[a-z]+\s+(?:[\w'-]+\s+){0,6}only\s+(?:when|if|after|before|through|via)\b"
    r"|(?:i|we)\s*(?:want(?:ed)?|'d\s+like|would\s+like)\s+to\s+(?:emphasi[sz]e|stress|highlight|reiterate|reinforce|"
    r"underline|underscore|remind\s+you)\s+"
    r"(?:(?:again\s+)?that\b(?=.*\b(?:always|never|must|only|should|don'?t|do\s+not)\b)"
    r"|the\s+importance\s+of\s+(?:always\s+|never\s+|not\s+)?\w+ing\b)"
    r"|we\s+(?:(?:now|also|actually|generally|really|strongly|still|do)\s+)?(?:prefer|require|expect|insist)\b|remember\s+to\b"
    # the team's convention said as what it does: "we include a single digit in our function names", "we use
    # snake_case for all class names", "we prefix all variable names with 'm_'"
    r"|we\s+(?:(?:now|also|always|generally|typically|usually)\s+)?(?:use|include|add|start|end|prefix|suffix|import|"
    r"begin|write)\b[^.;]{0,60}?\b(?:(?:all|each|every|any|our|the)\s+)*(?:(?:function|method|class|variable|"
    r"attribute|argument|parameter|column|field|file|module|branch|table)\s+){1,2}names\b"
    # an imperative for names of a kind: "use all uppercase letters for class names", "include the string 'chx'
    # somewhere in the method names"
    r"|(?:use|include|add|put|append|prepend)\b[^.;]{0,60}?\b(?:to|in|for|on)\s+(?:(?:all|each|every|any|our|your|the)\s+)*"
    r"(?:(?:function|method|class|variable|attribute|argument|parameter|column|field|file|module|branch|table)\s+){1,2}"
    r"names\b"
    # a named module imported: "import the 'secrets' module, even if you don't use it"
    r"|(?:always\s+)?import\s+(?:the\s+)?['\"][\w.]+['\"]\s+module\b"
    r"|(?:keep|make\s+sure|ensure)\s+(?!it\b|this\b)\w+|make\s+it\s+clear\s+(?:in|that)\b"
    # an imperative that says when it applies: "when naming methods, start them with 'n_'"
    r"|(?:(?:when|whenever|for|in)\s+(?:naming|writing|creating|adding|defining|declaring|working\s+on|starting|ending)\b"
    r"|when\s+it\s+comes\s+to\b|for\s+(?:all\s+|your\s+|every\s+|each\s+|any\s+)?(?:\w+\s+){0,3}(?:names?|"
    r"functions?|methods?|class(?:es)?|variables?|attributes?|arguments?|files?|modules?)\b)[^,]{0,60},\s+(?:please\s+)?"
    r"(?:remember\s+to\s+|(?:make\s+sure|ensure)\s+(?:that\s+)?(?:to\s+|you\s+)?|"
    r"i\s*(?:want|need|'d\s+like|would\s+like)\s+you\s+to\s+|we\s+)?"
    r"(?:always\s+|never\s+)?(?:start|end|use|utili[sz]e|include|add|append|prepend|import|prefix|name|put|avoid|keep|"
    r"make|write|follow)\b"
    # an imperative over every case: "End all function argument names with '_g'"
    r"|(?:please\s+)?(?:start|end|prefix|suffix|name|include|add|import|annotate|document)\s+(?:all|every|each|any)\b"
    # a rule inside a sentence: "another important practice is to always include try statements"
    r"|.{0,80}?\bto\s+(?:always|never)\s+(?:use|include|add|start|end|import|name|write|run|keep|avoid|commit|put|"
    r"follow|prefix|document|test|check)\b"
    r"|please\s+(?:use|keep|add|put|run|write|document|name|prefer|append|prepend|include|import|avoid|refrain\s+from)\b"
    # the team's requirement of everyone: "we're now requiring all employees to use a VPN when working remotely"
    r"|we(?:'re|\s+are)\s+(?:now\s+)?(?:requiring|asking|encouraging|expecting)\s+(?:all|every|each)\b"
    # a rule by its condition, said first: "only reach out when it's truly necessary"
    r"|only\s+(?!(?:one|two|three|a|an|some|few|half|\d+)\b)\w+\s+(?:[\w'-]+\s+){0,4}?(?:when|if)\b"  # not "only one of"
    # a naming rule said as an imperative: "start your function names with 'y_'", "end method names with '_md'"
    r"|(?:start|end|begin|prefix|suffix)\s+(?:(?:all|every|each|any|of|your|the|our)\s+)*(?:[\w-]+\s+){0,3}names?\s+"
    r"(?:with|by)\b"
    # an imperative over every case, said at its end: "add the '@timer' decorator to all your methods"
    r"|(?:add|include|import|use|put|apply|wrap)\b[^.;]{0,80}?\b(?:to|in|on|for|into|around|at\s+the\s+top\s+of)\s+"
    r"(?:all|every|each|any)\b"
    r"|(?:add|include|import|use|put|apply|wrap)\b[^.;]{0,80}?\b(?:to|in|on|for|into)\s+(?:all\s+(?:of\s+)?)?your\s+"
    r"(?:[\w-]+\s+){0,3}?(?:names|functions|methods|classes|code|scripts|files|modules|tests|commits)\b"
    # a rule said as one of a kind: "one of our key standards is that we expect ...", "another convention we follow
    # is ending method names with '_md'", "our policy is to always ..."
    r"|(?:(?:one\s+of\s+(?:the|our|my)\s+|one\s+|another\s+|the\s+|our\s+|a\s+)(?:[\w-]+\s+){0,3}?(?:standards?|"
    r"conventions?|practices?|principles?|rules?|guidelines?|polic(?:y|ies)|requirements?|habits?|things?|"
    r"expectations?)\b"
    r"|one\s+of\s+them\b)"
    r"[\w\s']{0,40}?\s+(?:is|are)\s+(?:that\s+\w|to\s+\w|(?:always\s+|never\s+)?(?:\w+ing|use|include|add|start|end|"
    r"import|prefix|put|write|keep|run|avoid)\b|the\s+use\s+of\b)"
    # "it's important that you ...", "it is essential for everyone to ..."
    r"|it(?:'s|\s+is)\s+(?:(?:very|really|extremely|absolutely|especially)\s+)?(?:important|essential|crucial|vital|"
    r"critical|mandatory|required|necessary)\s+(?:that\s+you|for\s+you\s+to|to\s+(?:always|never))\b"

    r"|[\w`'./-]+(?:\s+[\w`'./-]+){0,5}\s+(?:is|are)\s+the\s+right\s+(?:call|choice|approach|default)\b"
    r"|[\w`'./-]+(?:\s+[\w`'./-]+){0,5}\s+(?:must|should|shall)(?:n['’]?t)?\s+(?:always\s+|never\s+|only\s+|not\s+)?\w+"
    # where a thing must live: "the frontend code needs to be in root"
    r"|[\w`'./-]+(?:\s+[\w`'./-]+){0,5}\s+(?:needs?|has|have)\s+to\s+(?:be|live|stay|sit)\s+(?:in|at|under|inside)\s+\w)",
    re.IGNORECASE)
#: Words that open a sentence and say nothing ("But", "Firstly", "Okay"): read past by the cues below.
_OPENING_WORDS = (r"but|and|so|also|then|now|additionally|firstly|secondly|thirdly|first|second|third|lastly|finally|"
                  r"however|moreover|furthermore|just|well|anyway|yes|yeah|ok(?:ay)?|alright")
#: How names start or end, with the value, anywhere in a clause no other cue reads: "we're now requiring all variable
#: names to end with '_n'", "update your attribute naming convention to end with '_x'", "we'll be starting method
#: names with 'p_'", "use 't_' as a prefix" (not from the word that opens it: "Now, ..." is read as "...").
_NAMING_ANYWHERE = re.compile(
    rf"^(?!(?:{_OPENING_WORDS})\b[,\s])"
    # a report of how names are or came to be, or a complaint about them, sets no rule
    r"(?![^.;]*\b(?:currently|renamed|decided|someone|confusing|a\s+mess|inconsistent)\b)"
    r"(?:.{0,80}?\bnam(?:es?|ing)\b[^.;]{0,40}?\b(?:start|end|begin)s?\s+with\s+(?:the\s+(?:prefix|suffix)\s+|an?\s+)?['\"]"
    r"|.{0,80}?\b(?:start|end|begin|prefix|suffix)\w*\s+(?:(?:all|each|every|any|our|your|the|of)\s+)*(?:[\w-]+\s+){0,3}?"
    r"names\b[^.;]{0,30}?\bwith\s+(?:the\s+(?:prefix|suffix)\s+|an?\s+)?['\"]"
    r"|.{0,80}?\buse\s+['\"][^'\"\s]+['\"]\s+as\s+(?:a|the)\s+(?:prefix|suffix)\b)", re.IGNORECASE)
#: "can we use X instead of Y?": a decision asked as a question.
#: (Asked of the agent too, "can you use campaign_id instead of id?", and typed fast: "intead".)
_INSTEAD_QUESTION = re.compile(r"^(?:can|could|shall)\s+(?:we|you)\s+(use|switch\s+to|go\s+with|move\s+to)\s+(.+?)\s+"
                               r"in(?:stead|tead|tsead)\s+of\s+(.+?)\s*\?$", re.IGNORECASE)
#: Words that open a sentence without saying anything ("Firstly, moving forward, ..." keeps "moving forward").
_DISCOURSE = re.compile(rf"^(?:(?:{_OPENING_WORDS}|"
                        r"one\s+more\s+thing|on\s+that\s+note|that'?s\s+why|this\s+is\s+why|which\s+is\s+why)\b[,\s]+)+",
                        re.IGNORECASE)
#: A rule that says when it starts at its end: "..., from now on."
_LATER_ON = re.compile(r",?\s+(?:from\s+now\s+on|going\s+forward|moving\s+forward)\s*[.!]?$", re.IGNORECASE)
#: Where a clause starts inside a sentence: after a lead-in ("one more thing about the build — let's ...").
_CLAUSE_START = re.compile(r"(?:\s[—–]\s|\s-\s|:\s|;\s|,\s(?:and\s|but\s|so\s)?|\.\s)")
#: A cause or gotcha the agent states plainly (the whole sentence is the statement).
_AGENT_CAUSE = re.compile(
    r"\bfound\s+(?:a|the|one)\s+(?:real\s+)?(?:\w+\s+)?(?:bug|issue|problem)\b"
    # (not a judgement of it: "the issue is intriguing because ...")
    r"|\bthe\s+(?:real\s+)?(?:root\s+cause|cause|culprit|issue|problem|bug)\s+(?:is|was)\s+(?!(?:so\s+|very\s+|quite\s+|really\s+)?"
    r"(?:intriguing|interesting|fascinating|puzzling|tricky|complex|complicated|challenging|difficult|hard|annoying|"
    r"frustrating|curious|strange|weird|odd|serious|minor|major|significant)\b)(?:that\s+)?\w+"
    r"|\b(?:failure|error|crash|bug|problem)\s+comes?\s+from\b"
    r"|\b(?:isn'?t|is\s+not|aren'?t|are\s+not|wasn'?t|was\s+not)\s+(?:available|supported)\s+(?:in|on|by|before|until)\b"
    r"|\b(?:doesn'?t|does\s+not|don'?t|do\s+not|won'?t|will\s+not|can'?t|cannot)\s+\w+(?:\s+\w+){0,4}\s+by\s+default\b"
    r"|\b(?:only|by\s+default)\s+(?:ships|supports|works|covers|governs|affects|applies|accepts|reads|runs|skips)\b"
    r"|\bby\s+default\s+(?:it|they)\s+(?:rejects?|ignores?|blocks?|strips?|drops?|skips?|refuses?)\b"
    r"|\bskips?\s+\w+(?:\s+\w+){0,3}\s+by\s+default\b"
    r"|\bhas\s+an?\s+(?:[\w-]+\s+){0,3}bug\b"
    # a cause found after a failure, its subject named: "The stale `server.pid` (...) blocked startup"
    r"|^the\s+(?!(?:test|command|change|fix|edit|script)\b)(?:[\w.`'/-]+\s+){1,5}(?:\([^()]{0,80}\)\s+)?"
    r"(?:blocked|broke|prevented|was\s+blocking|was\s+breaking|was\s+preventing)\s+(?!nothing\b)\w+"
    # what a named tool or service requires: "RedStone and DIA both require direct integration with the issuer"
    r"|^(?-i:[A-Z][\w.+-]*(?:\s+(?:and|&)\s+[A-Z][\w.+-]*)?)\s+(?:both\s+|also\s+|only\s+|still\s+)?requires?\s+"
    r"(?!you\b|us\b|me\b)"
    # a requirement found: "the frontend directory needs a package.json with type module so Node can import ..."
    r"|\bneeds?\s+(?:a|an|its\s+own|the)\s+.{0,80}?\bso\s+(?:that\s+)?\w+(?:\s+\w+)?\s+can\b",
    re.IGNORECASE)
#: The agent's next step acting on what it just found: "Let me remove it", "I'll drop the nested block", "I need to add
#: rate limiting" (a fix, not a look: "Let me check ..." is no fix).
_FIX_NEXT = re.compile(r"^(?:(?:so|now)\s*,?\s+)?(?:let\s+me|i'?ll|i\s+will|i\s+need\s+to|we\s+need\s+to)\s+"
                       r"(?:also\s+|just\s+|now\s+|first\s+)?(?:fix|add|remove|drop|change|switch|update|create|rewrite|"
                       r"simplify|declare|use|move|rename|replace|set|pin|patch|handle|wrap|install|delete|make|restructure|"
                       r"guard|strip|escape|convert|bump|raise|lower|increase|reduce)\b", re.IGNORECASE)
#: A finding with its subject named and a verb of what it is or does: "The nested resource double-prefixed the param".
_FINDING = re.compile(r"^(?:the\s+)?(?:`[^`]+`|(?-i:[A-Z][\w.+-]*)|[\w.+-]+)(?:\s+(?!(?:is|are|was|were|has|have|had)\b)"
                      r"[\w.`'/()+-]+){0,4}?\s+(?:(?:just|already|still|also|never|only|silently|always|actually)\s+)?"
                      r"(?:is|are|was|were|has|have|had|does|doesn'?t|did|didn'?t|isn'?t|aren'?t|wasn'?t|can'?t|cannot|"
                      r"won'?t|\w+(?:ed|es|s))\b", re.IGNORECASE)
#: What leads a sentence that is no finding of a named thing: the speaker, a pointer, a cheer, the next step.
_NO_FINDING_LEAD = re.compile(r"^(?:i|we|you|let|now|ok|okay|good|great|perfect|done|all|next|first|then|here|there|"
                              r"this|that|it|these|those|both|wait|hmm|actually|yes|no)\b", re.IGNORECASE)
#: The work of the moment as a subject ("The tests ...", "The `dist/` output ...", "The file ..."): how it stands now.
_MOMENT_SUBJECT = re.compile(r"^(?:the\s+)?(?:[\w.`/-]+\s+){0,2}?(?:tests?|build|command|output|result|error|edit|change|"
                             r"fix|diff|file|script|run|issue|problem|code|page|server|app|log|response|request|check|"
                             r"previous|last|first|current)\b", re.IGNORECASE)
#: A run's report or the plan narrated ("`npm install` finished with 3 warnings", "The linter flagged 12 issues",
#: "TypeScript complains about ...", "Phase 2 covers ..."): the moment's work, not a finding to keep.
_RUN_REPORT = re.compile(r"\b\d+\s+(?:\w+\s+)?(?:issues|warnings|errors|problems|failures|violations)\b|"
                         r"^(?:phase|step|stage|part|milestone)\s+\d+\b", re.IGNORECASE)
#: A run's verb ("`ruff` reported ...", "Build finished in 12s"): a report unless the sentence says how the thing
#: misbehaves (`_MISBEHAVES`): "`retry` reported success even when the request had failed" is a finding.
_RUN_VERB = re.compile(r"\b(?:finished|flag(?:ged|s)|complain(?:ed|s)|reported|printed|warn(?:ed|s)|passed|failed)\b",
                       re.IGNORECASE)
#: A cause or a condition: "even when", "only to the first worker", "because", "instead of", "unless".
_MISBEHAVES = re.compile(r"\b(?:even\s+(?:when|if|though|after|before|with)|only\s+(?:to|for|when|if|after|before|"
                         r"once|on|with)|because|instead\s+of|rather\s+than|unless|whenever|as\s+soon\s+as|"
                         r"regardless\s+of)\b", re.IGNORECASE)
#: "every request ... after a restart": all of a kind, on a condition said after it.
_ALL_OF_A_KIND = re.compile(r"\b(?:every|each|any)\b", re.IGNORECASE)
_ON_CONDITION = re.compile(r"\b(?:after|when|whenever|once|until|if|before)\b", re.IGNORECASE)
_FOUND_LEAD = re.compile(r"^(?:found\s+(?:a|the|one)\s+(?:real\s+)?(?:\w+\s+)?(?:bug|issue|problem)|the\s+(?:real\s+)?"
                         r"(?:issue|problem|bug)\s+(?:is|was))\s*[:—–-]\s*", re.IGNORECASE)
#: Lead-ins whose bullets are rules or decisions ("Decisions:", "Conventions:", "Requirements:").
_LIST_LEAD = re.compile(r"\b(?:decisions?|decided|rules?|conventions?|requirements?|constraints?|guidelines?|"
                        r"from\s+now\s+on|going\s+forward|agreed|confirmed)\b", re.IGNORECASE)
#: What a user's rule or an agent's cause is not: the agent narrating, a one-off about this conversation, a
#: statement that only introduces what follows ("The structure should be:").
_NOT_KEPT = re.compile(r"\blet\s+me\b|\bi'?ll\b|\bi\s+will\b|\byou\s+(?:pasted|sent|provided|shared)\b"
                       r"|\b(?:be|is|are|following|this|these|like)\W*$", re.IGNORECASE)
#: A statement whose subject is only pointed at ("It should...", "This is...", "The above..."): in 30 days nobody
#: knows what it was.
#: A statement that points at what it is about instead of naming it ("apply this consistently", "follow these
#: instructions"): the words it stands on were said before it.
_POINTING = re.compile(r"\b(?:apply|implement|incorporate|follow|adhere\s+to|propagate|include|use|remember|keep)\s+"
                       r"(?:this|these|that|those|it|them)\b|\b(?:this|these|those|that|the\s+same)\s+(?:(?!(?:you|we|they|i)\b)[\w-]+\s+)?"
                       r"(?:instructions?|updates?|decorators?|prefix(?:es)?|suffix(?:es)?|tools?|modules?|settings?|"
                       r"conventions?|rules?|guidelines?|format|approach|practices?|changes?|process|advice|concepts?|"
                       r"standards?|ideas?)\b"
                       # a rule announced, not yet said: "start using a new convention for function names"
                       r"|\b(?:a|some)\s+(?:new|specific|certain|small|particular|few)\s+(?:\w+\s+)?(?:conventions?|"
                       r"standards?|practices?|rules?|changes?|prefix|aspects?|approach|guidelines?|updates?)\b",
                       re.IGNORECASE)
_UNNAMED = re.compile(r"^(?:it|this|that|they|these|those|he|she|them|the\s+above|above|same)\b(?!['’]s\s+\w+\s+(?:to|that))",
                      re.IGNORECASE)
#: Kind words, not rules: "don't hesitate to reach out", "keep up the good work", "don't worry".
_PLEASANTRY = re.compile(
    r"^(?:so,?\s+|and\s+|but\s+|also,?\s+|please\s+)*(?:(?:don'?t|do\s+not|never)\s+(?:hesitate|be\s+(?:afraid|shy|too\s+hard)"
    r"|worry|stress|feel\s+(?:bad|pressured)|hold\s+back|underestimate|shy\s+away)"
    r"|never\s+stop\s+\w+ing|keep\s+(?:the\s+momentum|fostering|striving|challenging|thriving|coding)"
    r"|keep\s+(?:up|me|us|it\s+up|going|pushing|learning|growing|embracing|exploring|an\s+eye|in\s+touch|that\s+in\s+mind"
    r"|this\s+in\s+mind)|make\s+(?:this|it)\s+an?|move\s+on|shy\s+away"
    r"|always\s+(?:happy|feel|here|glad|remember\s+that|be\s+(?:receptive|open|curious|kind|patient|proactive)))\b"
    r"|^i(?:'d|\s+would)?\s+(?:want|need|like)\s+(?:you|us)\s+to\s+(?:feel|know|be\s+(?:comfortable|confident|happy|aware))",
    re.IGNORECASE)
#: A rule stated by the user needs this many words to stand alone in 30 days.
MIN_RULE_WORDS = 6
#: A short order (four or five words) that forbids or requires a named thing stands alone ("Don't run any docker
#: commands."): not one pointing back or at everything ("don't do that", "never change anything", "don't make the
#: same mistake", "don't run the tests please"). One-off orders of this length ("Don't merge the PR.") pass: no word
#: list told them from standing ones ("Don't edit the lock file.") on review.
_SHORT_ORDER = re.compile(r"^(?:please\s+)?(?:don'?t|do\s+not|never|always)\s+(?!(?:be|do|worry|stop|rush|hurry|panic|overthink|overdo|forget|hesitate|get|let|wait)\b)\w+\s+"
                          r"(?!.*\b(?:it|this|that|these|those|them|anything|everything|something|so|too|yet|now|again|"
                          r"here|there|yourself|much|more|same|mistake|please)\b)\S", re.IGNORECASE)
#: A rule announced, not yet said: "I want to give you a few coding instructions", "two key practices" (unless the
#: sentence goes on to say it: "another practice is to ...", "two rules: ...").
_ANNOUNCED = re.compile(
    r"\b(?:an?|some|two|three|four|several|a\s+couple\s+of|a\s+few|one\s+(?:more|last|very|key|important)|"
    r"a\s+(?:\w+\s+)?set\s+of)\s+(?:(?:new|specific|certain|small|slight|particular|important|key|updated|quick|minor|"
    r"additional|main|coding|naming|other|more|very|crucial|essential|general|best)\s+){0,3}(?:things?|practices?|"
    r"standards?|conventions?|aspects?|changes?|updates?|points?|guidelines?|guidance|expectations?|rules?|habits?|"
    r"areas?|items?|instructions?|quirks?|adjustments?|tweaks?|requirements?|tips?)\b(?![^:]*:)"
    r"(?!.*\b(?:is|are)\s+(?:that|to)\b)", re.IGNORECASE)
#: A convention named without its value: "I want you to update your naming convention", "we've decided to
#: standardize our IDE across the team" (whole words: "use conventional commits" names its value).
_NO_VALUE = re.compile(
    r"\b(?:update|implement|adopt|change|revise|follow|use|utili[sz]e|leverage|start\s+using|standardi[sz]e(?:\s+on)?)\s+(?:(?:a|an|the|your|"
    r"our|my)\s+)?(?:(?:new|consistent|updated|specific|different|certain|same|common|uniform)\s+)?(?:[\w-]+\s+){0,3}?"
    r"(?:(?:naming\s+conventions?|conventions?|coding\s+style|style|standards?)\b|(?:integrated\s+development\s+"
    r"environment|IDE|tools?|names|approach)(?=\s+(?:a\s+bit|across|for|we\s+(?:have|use)|\(|$)|[.!]?$))", re.IGNORECASE)
#: What only says a subject is coming: "I want to talk about our naming conventions", "shifting gears".
_TOPIC_INTRO = re.compile(
    r"^(?:[\w' ]{0,40},\s+)?(?:i|we)\s*(?:want(?:ed)?|would\s+like|'d\s+like|need)\s+to\s+(?:talk|discuss|go\s+over|"
    r"update\s+you|touch\s+(?:base|on)|introduce|share|mention|bring\s+up|give\s+you|walk\s+you|provide\s+you|shift|"
    r"switch|chat|check\s+in|ensure\s+we'?re|make\s+sure\s+we'?re|follow\s+up|circle\s+back)\b"
    r"|\b(?:shift(?:ing)?|switch(?:ing)?|chang(?:e|ing))\s+gears\b|^speaking\s+of\b"
    r"|^(?:[\w' ]{0,30},\s+)?(?:i|we)\s*(?:'d|would)\s+(?:like|love|appreciate)\s+(?:your|to\s+hear|to\s+get\s+your)\b"
    # "I want to emphasize the importance of naming conventions": a subject named, nothing asked of it
    r"|\bemphasi[sz]e\s+the\s+importance\s+of\s+(?!(?:always|never|not)\b)(?!(?!coding\b|naming\b)\w+ing\b)",
    re.IGNORECASE)
#: A wish for the team, not a rule: "we should ensure that everyone ...", "I think we should look into ...".
_TEAM_WISH = re.compile(
    r"^(?:[\w' ]{0,30},\s+)?(?:i\s+(?:think|believe|feel)\s+)?we\s+(?:should|must|need\s+to)\s+(?:(?:also|definitely|all|"
    r"always|really|probably|actively|continue\s+to)\s+)*(?:ensure|look\s+into|consider|discuss|share|challenge|"
    r"encourage|promote|foster|create|organi[sz]e|shift|be|find|explore|think|strive|aim|continue|work\s+(?:together|on)|"
    r"start\s+(?:by|with|planning|thinking)|make\s+(?:sure|it|this|that)|focus|prioriti[sz]e|seek|provide|offer|"
    r"establish|develop|embrace|celebrate|remember|keep\s+(?:in\s+mind|an\s+eye)|plan|invest|support|involve)\b",
    re.IGNORECASE)
#: An attitude or a one-off task asked for, not a rule to keep: "I want you to familiarize yourself with ...",
#: "it's important that you feel ...", "make sure you're comfortable with ...", "we should strive to ...".
_SOFT = re.compile(
    r"^(?:[\w' ]{0,40},\s+)?(?:(?:so|and|also|just|now)\s+)?(?:(?:i|we)\s*(?:really\s+|also\s+)?(?:want|need|'d\s+like|would\s+like|"
    r"expect)\s+(?:you|everyone|us|all\s+of\s+you)\s+to|make\s+sure\s+(?:to|you(?:'re)?|that\s+you(?:'re)?)|"
    r"ensure\s+(?:that\s+)?you(?:'re)?|it(?:'s|\s+is)\s+\w+\s+that\s+(?:you|everyone)(?:'re)?|remember\s+to|"
    r"(?:we|you|everyone|everybody)\s+(?:should|must)|please|always|never|don'?t|do\s+not)?\s*(?:also\s+|really\s+|continue\s+to\s+|"
    r"definitely\s+|always\s+|actively\s+)?(?:feel|understand|develop|familiari[sz]e|"
    r"(?:focus|concentrate)\s+on\s+(?!(?:\w+ly\s+|always\s+)?\w+ing\b)|prioriti[sz]e\s+(?!\w+ing\b)|"
    r"stay|remain|be|know|learn|think|explore|dive|brainstorm|strive|aim\s+(?:to|for\s+(?!(?:a|an|at\s+least|\d+)\b))|"
    r"embrace|trust|enjoy|relax|grow|prepare|"
    r"present|partner|shadow|attend|participate|reach\s+out|come\s+up|hold|find\s+ways|lead|plan|try|give\s+it|"
    r"start\s+by|highlight|involve|join|check\s+in|continue(?!\s+to\b)|keep\s+(?:finding|looking\s+for|seeking)\s+ways|"
    r"pay\s+(?:close\s+|extra\s+|"
    r"more\s+)?attention|take\s+(?:the\s+lead|ownership|advantage|care|a\s+look|the\s+time|pride|initiative)|"
    r"get\s+(?:comfortable|familiar|to\s+know)|keep\s+up|start\s+(?:thinking|brainstorming|implementing|working|"
    r"planning|exploring|looking|paying|preparing|familiari[sz]ing|adopting|applying)|comfortable|aware|"
    r"available|involved|prepared|ready|proactive|mindful|open)\b", re.IGNORECASE)
#: A value judgement, not a fact or a rule: "consistency is key", "clear documentation is essential".
_MAXIM = re.compile(
    r"^(?!it\b)[^,]{0,80}?\b(?:is|are)\s+(?:(?:so|very|really|also|absolutely|truly|always|equally|just)\s+)?"
    r"(?:key|essential|important|crucial|vital|critical|paramount|valuable|beneficial|helpful|fundamental|"
    r"an?\s+(?:key|continuous|crucial|vital|fundamental|important|essential|great|ongoing)\b)", re.IGNORECASE)
#: An offer of help, not a memory: "I'm here to support you", "we're all just a call away", "reach out anytime".
_OFFER = re.compile(r"\b(?:here\s+to\s+(?:help|support|assist)|always\s+(?:available|here)\b|(?:a\s+)?(?:call|message)"
                    r"(?:\s+or\s+(?:a\s+)?(?:call|message))?\s+away|not\s+alone\b|(?:hesitate|free)\s+to\s+reach\s+out|"
                    r"(?:your|their)\s+(?:voice|ideas)\s+(?:and\s+ideas\s+)?matter|door\s+is\s+always\s+open|"
                    r"^(?:[\w' ]{0,30},\s+)?i\s+want\s+your\s+(?:input|thoughts|feedback|opinion))",
                    re.IGNORECASE)
#: Praise: "I like the way you're thinking".
_PRAISE = re.compile(r"^(?:[\w' ]{0,30},\s+)?i\s+(?:really\s+)?(?:like|love|appreciate)\s+(?:the\s+way|your|how|that\s+you"
                     r"|what\s+you|the\s+sound\s+of)\b|^i\s+must\s+say\b", re.IGNORECASE)
#: A bare pronoun standing for what was named before the sentence, right after the verb that asks ("I want you to
#: start implementing them", "always start them with 'f_'"; not "start names with 'y_' and end them with '_y'").
_BARE_PRONOUN = re.compile(
    r"^(?:(?:please|also|so|now|just|and|then|additionally|finally|lastly|yes|yeah|ok(?:ay)?|from\s+now\s+on|going\s+forward|"
    r"moving\s+forward)"
    r"[,\s]+)*(?:(?:i|we)\s*(?:really\s+)?(?:want|need|'d\s+like|would\s+like|expect)\s+"
    r"(?:you|everyone|us)\s+to\s+|make\s+sure\s+(?:to\s+|you\s+|that\s+you\s+)?|ensure\s+(?:that\s+)?(?:you\s+)?|"
    r"it(?:'s|\s+is)\s+\w+\s+that\s+you\s+|remember\s+to\s+|(?:we|you)\s+(?:should|must)\s+|always\s+|never\s+|"
    r"don'?t\s+|do\s+not\s+)*(?:[\w'’]+\s+){1,3}?(?-i:(?:it|them|these|those|this|(?<!ensure\s)(?<!sure\s)that|they))"
    r"(?=\s*(?:[.!;,]|$|['’]s\b|\s+(?:to|in|into|for|on|with|right|as|from|at|away|altogether|inside|consistently|regularly|"
    r"immediately|every|whenever|when|and|over|across|throughout|up|out|more|too|exists?|is|are|happen)\b))",
    re.IGNORECASE)
#: What a "them" in the next sentence most likely stands for ("Now, about method names. Always start them with ...").
_PLURAL_SUBJECT = re.compile(
    r"\b(?:(?:function\s+argument|function|method|class|variable|attribute|argument|parameter|file|module|branch|test|"
    r"table|column|field|component|route|endpoint)\s+names|function\s+arguments|functions|methods|classes|variables|"
    r"attributes|parameters|commit\s+messages|docstrings|modules|branches|endpoints|components|routes|migrations|"
    r"handlers|annotations|type\s+hints|(?:assert|try)\s+statements|assertions|decorators)\b", re.IGNORECASE)
#: Where a thing named goes, not the thing: "(including assert statements) in our methods", "to all your classes"
#: ("for your functions" only after a thing: "a convention for your variable names" names what it is about).
_CONTAINER = re.compile(r"\b(?:in|to|into|on|across|throughout|(?P<about>for))\s+(?:(?:all|each|every|any|of|our|your|the|my|"
                        r"their)\s+)+$", re.IGNORECASE)

#: How far before a thing named its place ("to all your") is looked for: a few words; looking back to the sentence's
#: start for each thing named made a long sentence cost quadratic time (a 100 KB line of rule words took seconds).
_PLACE_REACH = 120


def _subject_named(sentence: str, before: str | None) -> str | None:
    """What a "them" in the next sentence stands for: the last thing `sentence` names that is not where another
    goes ("add assert statements to your methods" -> assert statements; names are never such places); None when it
    names only such places, `before` when it names nothing."""
    named = list(_PLURAL_SUBJECT.finditer(sentence))
    things: list[str] = []
    for m in named:
        place = _CONTAINER.search(sentence, max(0, m.start() - _PLACE_REACH), m.start())
        if not place or m.group(0).lower().endswith("names") or place.group("about") and not things:
            things.append(m.group(0))
    return things[-1].lower() if things else None if named else before
#: A rule that asks only for a quality ("keep the dashboard clean", "make sure your comments are clear"): nothing a
#: later session could act on or check, unless it says always / never or names something exact.
_QUALITY = re.compile(
    r"\b(?:clear|concise|meaningful|relevant|thorough|diligent|efficient|optimi[sz]ed|readable|maintainable|accurate|"
    r"up[- ]to[- ]date|user[- ]friendly|intuitive|focused|brief|detailed|professional|respectful|organi[sz]ed|"
    r"well[- ](?:documented|tested|structured|organi[sz]ed|written|commented|designed)|clean|robust|simple|modular|"
    r"reusable|secure|safe|smooth|effective|effectively|efficiently|properly|carefully|responsive|engaging|inclusive|"
    r"comfortable|informed|timely|promptly|structured|productive)\b(?!\s+immediately)", re.IGNORECASE)
#: The body at the desk ("your eyes should be level with the top of your monitor", "stay hydrated").
_BODY = re.compile(r"\b(?:eyes?|eye\s+level|eye\s+strain|wrists?|arms?|elbows?|lower\s+back|posture|hydrat\w*)\b",
                   re.IGNORECASE)
#: What the workplace, not the code, is about: meetings, time off, events, careers, clients, people.
_WORKPLACE = re.compile(
    r"\b(?:meetings?|agenda|vacations?|holidays?|breaks?|lunch|posture|wrists?|chairs?|desk|ergonomic\w*|hotel|"
    r"travel\w*|trips?|flights?|visa|expenses?|reimburse\w*|events?|part(?:y|ies)|outings?|celebrat\w+|"
    r"team[- ]building|career|salar(?:y|ies)|raises?|promotions?|interviews?|hiring|candidates?|feedback|mentor\w*|"
    r"mentees?|morale|culture|well[- ]?being|health\w*|stress|burnout|work[- ]life|balance|family|emotions?|"
    r"feelings?|confiden\w+|inclusiv\w+|diversity|respect\w*|empath\w+|clients?|customers?|pitch|presentations?|"
    r"audience|slides?|stakeholders?|colleagues|coworkers|peers|team\s+members?|employees?|managers?|HR|benefits|"
    r"insurance|contracts?|negotiat\w+|office|onsite|calendar|goals?|objectives|growth|skills?|mindset|attitude|"
    r"curiosity|patience|kindness|elevators?|emergenc\w+|safety|awareness|volunteer\w*|charity|community|social|"
    r"fun|workplace|environment\s+where|atmosphere|recognition|rewards?|employer|time\s+off|days\s+off|core\s+values)\b", re.IGNORECASE)
#: ... unless it names code, a tool or the project: then it may well be a rule for the work.
_WORK_THING = re.compile(
    r"\b(?:code|coding|codebase|functions?|methods?|class(?:es)?|variables?|attributes?|arguments?|parameters?|"
    r"names?|naming|modules?|imports?|decorators?|docstrings?|annotations?|type\s+hints?|comments?|tests?|testing|"
    r"commits?|branch(?:es)?|merges?|pull\s+requests?|PRs?|repo(?:sitor(?:y|ies))?|lint(?:ers?|ing)?|formatt(?:ers?|ing)|"
    r"debug(?:ger|ging)?|profil(?:er|ing)|IDE|editor|pipelines?|CI|CD|builds?|deploy\w*|environments?|venv|"
    r"dependenc(?:y|ies)|packages?|librar(?:y|ies)|frameworks?|APIs?|endpoints?|databases?|schemas?|quer(?:y|ies)|"
    r"servers?|scripts?|files?|folders?|director(?:y|ies)|logs?|logging|exceptions?|errors?|hooks?|git|tickets?|"
    r"ticketing|GPUs?|TPUs?|training|neural|models?|monitors?|laptops?|computers?|machines?|desktops?|passwords?|"
    r"VPN|phones?|notebooks?|whiteboards?|video\s+calls?|tools?|software|programs?|programming|syntax|style\s+guide|"
    r"release|versions?|config\w*|secrets?|tokens?|credentials?|cache|migrations?|containers?|docker|commands?|"
    r"terminal|shell|CLI|UI|frontend|backend|project|app|application|system|platform|keyboard|documentation|docs|"
    r"readme|security|backups?)\b", re.IGNORECASE)
#: One-off work asked for in the middle of a task, not a rule to keep: a thing to make ("I need a multi-stage
#: build", "I want same template for ..."), the task's guard ("do not break any existing tests"), a request that
#: points at an attachment ("on screenshot 2, ...").
_DELIVERABLE = re.compile(r"^(?:please\s+)?i\s*(?:'d|\s+would)?\s+(?:(?:also|just|really|now)\s+)?(?:want|need|like)\s+"
                          r"(?:a|an|one|some|(?:the\s+)?same)\s+(?!.*\b(?:every|all|each|always|never|any)\b)",
                          re.IGNORECASE)
#: A one-off task, said to one or to all: a deadline ("by Friday", "by end of day", "today", "this week") or the
#: moment's ticket ("for this ticket") makes it a task, not a convention ("from today on" starts one).
_ONE_OFF = re.compile(
    r"\bby\s+(?:(?:this|next|the\s+end\s+of(?:\s+the)?|end\s+of(?:\s+the)?)\s+)?(?:monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday|tomorrow|tonight|today|day|week|month|sprint|eod|cob|noon)\b|\bby\s+\d{1,2}(?::\d\d)?\s*"
    r"(?:am|pm)\b|(?<!from\s)(?<!of\s)(?<!starting\s)\b(?:today|tonight|tomorrow)\b(?!\s+on\b)|\bthis\s+(?:week|"
    r"afternoon|morning|evening)\b|\bfor\s+(?:this|the\s+current)\s+(?:ticket|pr|pull\s+request|task|issue|story)\b",
    re.IGNORECASE)
#: A recurrence word: a rule with a deadline that repeats is a convention still ("every day", "every future
#: ticket", "always", "whenever", "from now on", "going forward", "all future"); not "each README" nor "all of
#: you", which count the task's things or people.
_RECURS = re.compile(
    r"\b(?:always|whenever|from\s+now\s+on|going\s+forward|moving\s+forward|(?:all|any)\s+future|"
    r"in\s+(?:the\s+)?future|(?:every|each)\s+(?:(?:single|other|future|new|upcoming|subsequent)\b|"
    r"(?:day|night|morning|evening|week|weekday|month|quarter|year|sprint|release|time|monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday)s?\b))", re.IGNORECASE)
#: A rule about a kind of thing, said first: "Every PR must ...", "Feature branches must be merged by Friday".
_KIND_FIRST = re.compile(r"^(?:(?P<every>every|each)\s+)?(?P<kind>(?:[\w-]+\s+)?[\w-]+)\s+(?:must|should|shall|"
                         r"ha(?:s|ve)\s+to|needs?\s+to|(?:is|are)\s+to)\b", re.IGNORECASE)


def _recurs(statement: str) -> bool:
    """Whether a rule said with a deadline repeats: a recurrence word, or a kind of the work its subject ("Every
    PR", "Feature branches"; not "The release notes", "Each of you")."""
    if _RECURS.search(statement):
        return True
    kind = _KIND_FIRST.match(statement)
    return bool(kind and _WORK_THING.search(kind["kind"])
                and (kind["every"] or kind["kind"].lower().endswith("s")
                     and not re.match(r"(?:the|this|that|these|those|our|your|my|their|its|all|both)\b", kind["kind"],
                                      re.IGNORECASE)))


_TASK_GUARD = re.compile(r"^(?:please\s+)?(?:do\s+not|don'?t|never)\s+(?:break|change|touch|modify|alter|remove)\s+"
                         r"(?:any(?:thing)?\s+(?:else|existing|other|unrelated)|(?:the\s+)?(?:existing|other|unrelated)"
                         r"|anything\b)", re.IGNORECASE)
_ATTACHMENT = re.compile(r"\b(?:on|in|from|see)\s+(?:the\s+)?(?:screen\s*shot|image|picture|attachment)s?(?:\s+\d+)?\b",
                         re.IGNORECASE)
#: A count or a measure (a digit, or said in words: "zero", "two", "twice", "at least"): what a rule is checked by.
_MEASURED = re.compile(r"\d|\b(?:zero|once|twice|two|three|four|five|six|seven|eight|nine|ten|half|at\s+least|"
                       r"no\s+more|at\s+most|daily|weekly|per\s+(?:day|week|month|year))\b", re.IGNORECASE)
#: A name inside a sentence (a tool, a product, a place: "standardize on Zoom"), not its first word, "I", nor
#: the person addressed at its end ("..., Jorge.").
_PROPER_NAME = re.compile(r"(?<=[\s(])(?!I\b|I['’])(?-i:[A-Z][\w+#.-]*)(?![\w+#-]*[.!?]$)")
#: Words that make a cheer a rule ("never push to main!").
_RULE_WORD = re.compile(r"\b(?:always|never|must|only|don'?t|do\s+not)\b", re.IGNORECASE)
#: Where the work is done: what a workplace rule names ("work from home at most once a week").
_WORK_PLACE = re.compile(r"\b(?:from\s+home|remote(?:ly)?|common\s+area|on-?site|in\s+the\s+office)\b", re.IGNORECASE)
#: Plan sections that hold decisions (an approved plan's stack, choices, conventions); not a word inside a compound
#: name ("Multi-Architecture Consensus" is a part of the system, not its architecture).
_PLAN_SECTION = re.compile(r"(?<![\w-])(?:decisions?|decided|stack|tech(?:nology|nologies)?|choices?|approach|architecture|design"
                           r"|conventions?|constraints?|confirmed|key\s+points?|configuration|requirements?)\b",
                           re.IGNORECASE)
#: The agent's own sections of decisions ("## Key Design Decisions"): read like a plan's; not the ones it asks
#: the user to make ("## Open decisions", "Decisions needed from you").
_DECISION_SECTION = re.compile(r"^(?!.*\b(?:open|pending|needed|needs?|to\s+make|for\s+you|from\s+you|remaining|"
                               r"questions?|todo|to\s+do)\b).*\bdecisions\b", re.IGNORECASE)
_BULLET_LINE = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+(.+)$")
_LABELLED = re.compile(r"^(?:\*\*)?([^*:]{2,40}?)(?:\*\*)?\s*[:—–]\s*(?:\*\*)?\s*(.+)$")
_HEADING_LINE = re.compile(r"^\s{0,3}#{1,6}\s+(.*)")  # closing hashes: `heading_text` (a regex for them backtracks)
#: Text hard-wrapped at a fixed width: a line that does not end a sentence, continued on the next.
_WRAP_END = re.compile(r"[.!?:;)`|]\s*$")
_LIST_OR_BLOCK = re.compile(r"^\s*(?:[-*+•>|#]|\d+[.)]|```|$)")
_ENGLISH = frozenset("""the a an to of and is in it that for we you this on with be are not do i my our your
it's don't can will should must have has was were they what when how if or but so as at by from""".split())
#: Common words of other languages written in Latin script (Spanish, Portuguese, French, Italian, German, Dutch,
#: Czech, Polish, Indonesian...), none of them an English word.
_OTHER = frozenset("""de la el los las del que por con para una es lo se su al más pero como muy también
le les des est et pour dans une du qui pas sur avec il elle sont
der die das und ist nicht mit für ein eine auch sich auf dem den zu von
het een van niet voor zijn ook
je že na jsem jako pro při nebo ale jak tak už jen které který
nie jest się czy jak tak
yang dan di ini itu untuk dengan tidak ada ke dari akan
não uma com os em do da""".split())
_SPECIFIC = re.compile(r"`[^`]+`|\b\w*\d\w*\b|\b\w+[./_]\w+|\b[A-Z][a-z]+[A-Z]\w*|\b[A-Z]{2,}\b|--[\w-]+")


@dataclass(frozen=True)
class SessionTurn:
    """A turn as the proposer reads it."""

    uuid: str
    role: str
    text: str
    line: int
    source: str = ""  # "" said; "answer", "plan", "rejection", "queued" (adapters/claude/transcript.py)


@dataclass(frozen=True)
class RawProposal:
    """A statement worth proposing, before the store is consulted (novelty) and the screen applied."""

    namespace: str
    summary: str
    content: str
    line: int
    uuid: str
    relevance: float
    actionability: float
    specificity: float
    coherence: float
    cue: str
    quote: str = ""  # the words it came from, when the content does not hold them (provenance, shown by review)
    source: str = ""  # where in the session: "user", "assistant", "answer", "plan", "rejection", "queued"


def _capitalised(text: str) -> str:
    text = text.strip().strip("*").strip()
    return text[:1].upper() + text[1:] if text else text


def _ended(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?", ")", "`")) else text + "."


def fit_summary(statement: str) -> str | None:
    """`statement` as a summary of at most SUMMARY_CHARS: whole, or its first clause when that stands alone;
    None when neither fits."""
    text = _ended(" ".join(statement.split()))
    if len(text) <= SUMMARY_CHARS:
        return text
    found: str | None = None
    for match in _CLAUSE_CUT.finditer(text):
        head = text[:match.start()].rstrip(",;:—- ")
        if len(head) + 1 > SUMMARY_CHARS:
            break
        if len(head.split()) >= MIN_WORDS and head.count("(") == head.count(")") and head.count("`") % 2 == 0 \
                and not _DANGLING.search(head):
            found = _ended(head)
    return found


def _specificity(text: str) -> float:
    return min(1.0, 0.4 + 0.15 * len(_SPECIFIC.findall(text)))


def _statement_ok(sentence: str) -> bool:
    words = sentence.split()
    if len(words) < MIN_WORDS or re.search(r"\?(?![\w=&])", re.sub(r"`[^`]*`", "", sentence)) or _HEDGE.search(sentence) or _ERROR.search(sentence):
        return False
    if _STATUS.match(sentence):
        return False
    return chatter(sentence) is None


def _sentences(text: str) -> list[tuple[str, str]]:
    """(sentence, the rest of its paragraph) for every prose sentence of `text`."""
    out: list[tuple[str, str]] = []
    for line, heading in prose_lines(text):
        if heading:
            continue
        parts = [p.strip() for p in _SENTENCE.split(line) if p.strip()]
        for i, part in enumerate(parts):
            out.append((part, " ".join(parts[i + 1:])))
    return out


def _content(statement: str, rest: str) -> str:
    """The statement with the sentence after it when that gives its reason."""
    content = _ended(statement)
    follow = _SENTENCE.split(rest, maxsplit=1)[0].strip() if rest else ""
    if follow and _RATIONALE.match(follow) and "?" not in follow:
        content = f"{content} {follow}"
    return content[:CONTENT_CHARS]


def _said_nothing(statement: str) -> bool:
    """Whether `statement` asks for nothing a later session can act on: a rule announced but not said, a topic
    introduced, an attitude or one-off task, a value judgement, praise, a cheer, or words that only point back."""
    if statement.count("(") != statement.count(")"):
        return True  # a piece of a parenthesis: "..., all files stay out of production, why not for dev)"
    specific = bool(_SPECIFIC.search(statement) or re.search(r"'[^']+'|\"[^\"]+\"", statement)
                    or _PROPER_NAME.search(statement))
    rule = bool(_RULE_WORD.search(statement))
    if not specific and not rule and _QUALITY.search(statement):
        return True
    if _BODY.search(statement) and not _MEASURED.search(statement):
        return True  # how to sit or look at a screen: care for the body, not a rule for the work
    if not specific and _WORKPLACE.search(statement) and not _WORK_THING.search(statement) \
            and not _MEASURED.search(statement):
        return True  # not about code, tools or the project
    return bool((_ANNOUNCED.search(statement) or _NO_VALUE.search(statement)) and not specific
                or _TOPIC_INTRO.search(statement) or _TEAM_WISH.match(statement) or _OFFER.search(statement)
                or _SOFT.match(statement) or _MAXIM.match(statement) and not specific or _PRAISE.match(statement)
                or statement.endswith("!") and not re.search(r"['`\"\d]", statement) and not rule
                or _BARE_PRONOUN.match(statement) or _DELIVERABLE.match(statement) or _TASK_GUARD.match(statement)
                or _ATTACHMENT.search(statement) or _ONE_OFF.search(statement) and not _recurs(statement))


#: A clause that ends waiting for the list it introduces ("a README covering:"): never a statement.
_WAITING = re.compile(r"\b(?:covering|including|containing|listing|such\s+as)(?:\s*:|\W*$)", re.IGNORECASE)


def _points(statement: str) -> bool:
    """Whether the first clause of `statement` points at what it is about instead of naming it (`_POINTING`); a
    value said right after it names it ("we start variable names with a specific prefix, 'x_'")."""
    head, _, tail = _DISCOURSE.sub("", statement).partition(", ")
    return bool(_POINTING.search(head)) and not re.match(r"['\"`][^'\"`\s]+['\"`]", tail)


def _proposal(namespace: str, statement: str, rest: str, turn: SessionTurn, *, relevance: float,
              actionability: float, cue: str, whole: str = "") -> RawProposal | None:
    """A proposal of `statement` when it says something worth keeping; `whole`: the sentence it was cut from (kept
    as its content)."""
    statement = _capitalised(" ".join(statement.split()))
    if not _statement_ok(statement) or _WAITING.search(statement) or _UNNAMED.match(statement) or _PLEASANTRY.match(statement) \
            or _points(statement) or _said_nothing(statement):
        return None
    summary = fit_summary(statement)
    if summary is None and _REQUEST.match(statement):  # too long as asked: said as the rule itself, it may fit
        bare = statement
        for _ in range(2):  # "I want you to get into the habit of adding ...": each lead-in in turn
            bare = _capitalised(_REQUEST.sub("", bare, count=1))
        summary = None if _said_nothing(bare) else fit_summary(bare)
    if summary is None and _USE_OF.match(statement):
        bare = "Use " + statement[_USE_OF.match(statement).end():]
        summary = None if _said_nothing(bare) else fit_summary(bare)
    if summary is None or chatter(summary) is not None or _WAITING.search(summary):
        return None
    content = _content(whole or statement, rest)
    coherence = 1.0 if summary == _ended(statement) else 0.85
    return RawProposal(namespace=namespace, summary=summary, content=content, line=turn.line, uuid=turn.uuid,
                       quote=statement[:QUOTE_CHARS],
                       relevance=relevance, actionability=actionability, specificity=_specificity(content),
                       coherence=coherence, cue=cue)


def _explicit(turn: SessionTurn) -> list[RawProposal]:
    """Marked memories: inline `[decision] text` and `▶ decision ───` / `:::decision` blocks."""
    found: list[RawProposal] = []
    lines = turn.text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        inline = _INLINE_MARKER.match(line)
        block = _BLOCK_START.match(line)
        if inline:
            namespace = _MARKER_NS[inline.group(1).lower()]
            parts = [p.strip() for p in _SENTENCE.split(inline.group(2)) if p.strip()]
            if parts:
                made = _proposal(namespace, parts[0], " ".join(parts[1:]), turn, relevance=0.95,
                                 actionability=0.85, cue="marker")
                if made:
                    found.append(made)
        elif block:
            namespace = _MARKER_NS[(block.group(1) or block.group(3)).lower()]
            body: list[str] = [block.group(2)] if block.group(2) else []
            i += 1
            while i < len(lines) and not _BLOCK_END.match(lines[i]):
                body.append(lines[i])
                i += 1
            sentences = _sentences("\n".join(body))
            if sentences:
                first, _ = sentences[0]
                made = _proposal(namespace, first, " ".join(s for s, _ in sentences[1:3]), turn, relevance=0.95,
                                 actionability=0.85, cue="block")
                if made:
                    found.append(made)
        i += 1
    return found


def _clauses(sentence: str):
    """(clause, what came before it): `sentence`, then what follows each lead-in inside it ("one more thing —
    let's ..."), at most four."""
    yield sentence, ""
    bare = _DISCOURSE.sub("", sentence)
    if bare != sentence:
        yield bare[:1].upper() + bare[1:], ""
    for n, match in enumerate(_CLAUSE_START.finditer(sentence)):
        if n >= 4:
            return
        rest = sentence[match.end():].strip()
        if len(rest.split()) >= MIN_WORDS:
            yield rest, sentence[:match.start()]


#: A clause before the rule that says when it applies ("when naming function arguments, always ..."): kept with it.
_CONDITION = re.compile(r"^(?:when|whenever|for|in|if|while|on|before|after|as\s+for)\b", re.IGNORECASE)


def _resolved(sentence: str, subject: str | None) -> str:
    """`sentence` with a bare "them" right after its verb replaced by what the sentence before named ("Always start
    them with 'f_'" after "Now, about method names." -> "Always start method names with 'f_'")."""
    bare = _BARE_PRONOUN.match(sentence)
    if not subject or not bare or not sentence[:bare.end()].endswith("them"):
        return sentence
    return f"{sentence[:bare.end() - 4]}{subject}{sentence[bare.end():]}"


#: A correction of where or how something ended up: "the Makefile and ops/ folder got created inside backend/ but
#: they should be at the repo root" -> "The Makefile and ops/ folder should be at the repo root".
_CORRECTION = re.compile(
    r"^(?:(?:hey|hi|ok(?:ay)?|so|also|and|but)[,!]?\s+)*(?P<subject>(?:the\s+)?[\w`'./-]+(?:(?:,\s+|\s+and\s+|\s+)"
    r"[\w`'./-]+){0,9}?)\s+(?:all\s+|both\s+)?(?:got|were|was|is|are|have\s+been|has\s+been|ended\s+up)\s+[^,;]{2,60}?,?"
    r"\s+but\s+(?:they|it)\s+(?P<verb>should|must|need\s+to)\s+(?P<rest>[^.;!?]{3,80})", re.IGNORECASE)
#: A change the user orders against a named alternative, the fix they prescribe: "Fix: Change the content view to
#: call requireRole(['admin']) instead of requireAuth()" (the "Fix:" dropped).
_ORDERED_CHANGE = re.compile(r"^(?:(?:the\s+)?fix\s*:\s*)?(?=(?:please\s+)?(?:change|make|switch|rewrite|set|call)\b"
                             r".{3,120}?\b(?:instead\s+of|rather\s+than)\s+\S)", re.IGNORECASE)


#: A word of a rule typed in capitals among words typed in lower case: how a user stresses what must (not) be
#: done ("stage the data files (NOT THE .ENV)", "their catch ups count for ANY class"). Case-sensitive.
_STRESSED = re.compile(r"(?<![\w'])(?:NOT|NO|NEVER|DON'?T|ONLY|MUST|ALWAYS|ANY|ALL|EVERY|NONE)(?![\w'])")
#: A stop a user typed before a sentence begun in lower case ("they're live. so maybe ...").
_TYPED_STOP = re.compile(r"(?<=[.!?])\s+(?=[a-z])")
#: What ends a stressed clause after the stressed word: a comma or dash going on, "and" with the next step, a
#: stop.
_STRESS_END = re.compile(r"\s*(?:,|;|\s[—–-]\s|\sand\s+(?:i'?ll|ill|i\s+will|then|we'?ll|let'?s)\b|\.(?=\s|$))",
                         re.IGNORECASE)
#: How the work stands at this moment or what just happened to it, not what holds in 30 days: a time word ("still",
#: "again", "anymore", "since your last change", "currently"), the present in progress ("is NOT working", "are ONLY
#: showing"), or what someone just did ("you removed ALL my comments", "i tried it"): a report or a complaint. Read
#: only in a clause whose subject is not the team: "we are NOT using Redux", "we're NOT supporting IE11 anymore" and
#: "we agreed that deploys happen ONLY on Tuesdays" are decisions.
_AT_THIS_MOMENT = re.compile(
    r"\b(?:still|again|anymore|any\s+more|no\s+longer|currently|right\s+now|at\s+the\s+moment|"
    r"since\s+(?:your|my|last|then|yesterday))\b"
    r"|\b(?:is|are|was|were|am|isn'?t|aren'?t|wasn'?t|weren'?t)\s+(?:(?:not|only|still|just|now|also|even|never|all)\s+)*"
    r"(?!(?:thing|string|nothing|something|anything|everything|setting|spring|during|morning|evening|padding|"
    r"heading|ceiling|king|ring|sibling|pending|missing)\b)[a-z]{2,}ing\b"
    r"|^(?:i|you|it|they|he|she)\s+(?:(?:just|already|then|also|\w+ly)\s+)?(?:\w+ed|did|didn'?t|broke|made|wrote|"
    r"took|got|left|ran|went|put|set|forgot|lost|gave|saw)\b", re.IGNORECASE)
#: A clause the team is the subject of: what it decided, whatever its tense.
_TEAM_SUBJECT = re.compile(r"^(?:(?:so|but|and|also|ok(?:ay)?|now)[,\s]+)?(?:we|we're|we've|we'll|our\s+team|the\s+team)\b",
                           re.IGNORECASE)
#: The words of a clause, a dotted name ("v2.1", "next.config.js") as one: linear in any run of dots.
_CLAUSE_WORD = re.compile(r"[\w']+(?:\.+[\w']+)*")
#: A time word of the moment in an agent's "X is A, not B" ("The login form is working now, not throwing errors
#: anymore"): a state against the one before, not a distinction that holds.
_STATE_AGAINST_BEFORE = re.compile(r"\b(?:now|still|again|anymore|any\s+more|no\s+longer|currently|right\s+now)\b",
                                   re.IGNORECASE)
#: What leads the clause in and says nothing: "pls", "so", "however".
_STRESS_LEAD = re.compile(r"^(?:(?:pls|plz|please|so|however|but|and|also|ok(?:ay)?|then|now)\b[,\s]*)+",
                          re.IGNORECASE)


def _stressed(turn: SessionTurn, made: list[RawProposal]) -> list[RawProposal]:
    """A user's clause that stresses a word of a rule in capitals among words in lower case, said where no cue
    of `_user` read it: the clause (with the condition said before it when both fit a summary). Not in a list's
    item: a list is read by its lead-in (`_lead_in_bullets`), and a spec's items stress what the task asks."""
    found: list[RawProposal] = []
    seen: set[str] = set()  # a clause said again is read once
    prose = "\n".join(line for line in turn.text.split("\n") if not _BULLET_LINE.match(line))
    for whole, rest in _sentences(prose):
        for piece in _TYPED_STOP.split(whole):
            shout = _STRESSED.search(piece)
            lower = re.findall(r"\b[a-z][a-z']+\b", piece)
            if not shout or len(lower) < MIN_WORDS or foreign(piece):
                continue
            cuts = [m for m in re.finditer(r",\s+|;\s+|\s[—–-]\s|:\s+", piece[:shout.start()])]
            if cuts and cuts[-1].end() == shout.start():  # "X, NOT Y": what Y is turned down for is said before it
                cuts.pop()
            start = cuts[-1].end() if cuts else 0
            end = _STRESS_END.search(piece, shout.end())
            clause = _STRESS_LEAD.sub("", piece[start:end.start() if end else len(piece)].strip())
            before = piece[:start].rstrip(" ,;:—–-")
            before = _STRESS_LEAD.sub("", before[before.rfind(", ") + 2 if ", " in before else 0:])
            if clause in seen or _AT_THIS_MOMENT.search(clause) and not _TEAM_SUBJECT.match(clause):
                continue  # said again, or how the work stands now: "the button is NOT working after the refresh"
            seen.add(clause)
            words = set(_CLAUSE_WORD.findall(clause.casefold()))
            if any((said := set(_CLAUSE_WORD.findall(p.summary.casefold()))) <= words or words <= said
                   for p in made + found):
                continue  # a cue of `_user` read it already, or read the sentence it is part of
            sayings = [f"{before}, {clause[:1].lower()}{clause[1:]}"] if _CONDITION.match(before) else []
            for said in sayings + [clause]:
                proposal = _proposal("patterns", said, rest, turn, relevance=0.8, actionability=0.85,
                                     cue="user stress", whole=whole)
                if proposal and fit_summary(_capitalised(said)) == proposal.summary:
                    found.append(proposal)
                    break
    return found


def _user(turn: SessionTurn) -> list[RawProposal]:
    found: list[RawProposal] = []
    subject: str | None = None
    for whole, rest in _sentences(turn.text):
        whole = _resolved(whole, subject)
        subject = _subject_named(whole, subject)
        if _ATTACHMENT.search(whole):
            continue  # "on screenshot 2, ...": a request about what the user shows, not a rule
        if whole.endswith(":"):
            head = whole.rstrip(":").rstrip()
            if _DANGLING.search(head) or _WAITING.search(head):
                continue  # "make sure that a README covering:": the words wait for the list, no statement
            whole = head + "."  # a lead-in: its own statement, and the bullets it introduces
        instead = next((m for clause, _ in _clauses(whole) if (m := _INSTEAD_QUESTION.match(clause))), None)
        if instead and (_WORK_OF_THE_MOMENT.search(whole) or re.search(r"\b(?:for|in|on)\s+(?:this|that)\s+\w+", whole,
                                                                       re.IGNORECASE)):
            continue  # "could you use the staging bucket instead for this upload?": this moment's work
        if instead:
            # said as a question: the summary states it, the content keeps the words as typed
            made = _proposal("decisions", f"{instead.group(1)} {instead.group(2)} instead of {instead.group(3)}", rest,
                             turn, relevance=0.85, actionability=0.85, cue="user change", whole=whole)
            if made:
                found.append(made)
            continue
        ordered = _ORDERED_CHANGE.match(whole)
        if ordered:
            made = _proposal("decisions", whole[ordered.end():], rest, turn, relevance=0.85, actionability=0.9,
                             cue="user change")
            if made:
                found.append(made)
                continue
        correction = _CORRECTION.match(whole)
        if correction:
            made = _proposal("decisions", f"{correction.group('subject')} {correction.group('verb')} "
                             f"{correction.group('rest')}", rest, turn, relevance=0.85, actionability=0.85,
                             cue="user correction")
            if made:
                found.append(made)
                continue
        for anywhere in (False, True):  # a naming rule said anywhere in a clause only when no clause had a cue
            made = _user_clauses(whole, rest, turn, anywhere)
            if made:
                found.append(made)
                break
    return found + _stressed(turn, found)


def _user_clauses(whole: str, rest: str, turn: SessionTurn, anywhere: bool) -> RawProposal | None:
    """The proposal of the first clause of a user's sentence that makes one (`_user_statement`), with the clause
    before it when that says when it applies."""
    for sentence, before in _clauses(whole):
        named_before = _PLURAL_SUBJECT.findall(before)
        if named_before:  # "for method names, please end them with '_n'": "them" is said in the clause before
            sentence = _resolved(sentence, named_before[-1].lower())
        made = _user_statement(sentence, rest, turn, anywhere=anywhere)
        condition = _DISCOURSE.sub("", before).strip(" ,")
        case = condition if _CONDITION.match(condition) and len(condition) <= 80 else ""
        short = made is False and bool(case) and len(sentence.split()) < MIN_RULE_WORDS \
            and bool(_QUOTED_VALUE.search(sentence) or _EXACT.search(sentence)) and not _EXAMPLE.match(f"{case}, ")
        if short:  # "when ending argument names, please use the suffix '_e'": short, but said with its case
            made = _user_statement(sentence, rest, turn, case, anywhere)
        if made and case and _EXAMPLE.match(f"{case}, "):
            made = False  # "in this example, we use the 'if' keyword ...": the rule's example, not a rule
        if made is not None:
            if made and case and (not named_before or short):
                head = sentence[:1] if re.match(r"I\b", sentence) else sentence[:1].lower()  # "I" stays capital
                made = _proposal(made.namespace, f"{condition}, {head}{sentence[1:]}", rest, turn,
                                 relevance=made.relevance, actionability=made.actionability, cue=made.cue) or made
            if made:
                return made
    return None


#: "Don't" and "always" that forbid or require nothing: "don't forget to ...", "don't hesitate", "always a pleasure",
#: "never settle for ...", "always keep an open mind".
_NO_RULE_WORD = re.compile(r"\b(?:don'?t|do\s+not)\s+(?:forget|hesitate|let|get|wait|overwhelm|miss|be\s+afraid)\b|"
                           r"\balways\s+(?:a\s+pleasure|keep\s+an\s+open|striving|seek|apply)\b|"
                           r"\bnever\s+(?:settle|compromise|mind)\b", re.IGNORECASE)


#: A value in quotes ('_md', "dev"), not the apostrophes of "it's ... you're".
_QUOTED_VALUE = re.compile(r"(?<![A-Za-z])'[^'\s][^']*'(?![A-Za-z])|\"[^\"]+\"")


def _names_nothing(summary: str) -> bool:
    """Whether a user's rule or decision names nothing a later session could check it by: no value, name or count,
    no always / never, no thing of the code, its tools or the place of work ("ensure we deliver with excellence",
    "I want you to fully disconnect"): advice, not a rule."""
    return not (_SPECIFIC.search(summary) or _QUOTED_VALUE.search(summary) or _PROPER_NAME.search(summary)
                or _RULE_WORD.search(_NO_RULE_WORD.sub("", summary)) or _WORK_THING.search(summary)
                or _MEASURED.search(summary)
                or _WORK_PLACE.search(summary)
                # a tool named right after the verb that takes it up ("use uv for locking"), a folder ("public/")
                or re.match(r"(?:use|switch\s+to|adopt|go\s+with|stick\s+with|move\s+to)\s+(?!(?:a|an|the|our|your|"
                            r"some|more|this|that|these|those|its|their|my)\b)\w", summary, re.IGNORECASE)
                or re.search(r"\w/(?=[\s.,;]|$)", summary)
                # a choice declared names what it chose: "null status on initial load is the right call"
                or re.search(r"\bis\s+the\s+right\s+(?:call|choice|approach|default)\b", summary, re.IGNORECASE))


#: How a request to the user is led in ("make sure you", "I want you to", "don't forget to").
_ASKED = (r"^(?:[\w' ]{0,30},\s+)?(?:(?:so|also|and|now|just|please|additionally)\W+)*(?:(?:i\s+(?:want|need)|i'd\s+like)"
          r"\s+you\s+to\s+|make\s+sure\s+(?:that\s+)?(?:you\s+|to\s+)?|ensure\s+(?:that\s+)?(?:you\s+)?|remember\s+to\s+|"
          r"don'?t\s+forget\s+to\s+|please\s+)*")
#: A rule that points back at what was said before it instead of saying it: "update your code accordingly",
#: "follow this format", "make sure all your classes have the decorator".
_POINTS_BACK = re.compile(r"\baccordingly\b|\bdo\s+so\b|\b(?:this|these|those)\s+(?:new\s+|basic\s+)?(?:\w+\s+){0,2}(?:format|structure|"
                          r"style|way|convention|approach|decorator|suffix|prefix|tool|platform|module|app|method)\b|"
                          r"\bfor\s+that\s+purpose\b|\b(?:with|use|add|follow|apply)\s+that\s+(?:\w+\s+)?(?:suffix|prefix|decorator|"
                          r"convention|format|module|tool|approach|method)\b|\bthe\s+(?:decorator|suffix|prefix|app|extension|platform)\s*[.!]?$",
                          re.IGNORECASE)
#: A setup step, done once: "make sure you have the latest version installed", "enable two-factor authentication",
#: "update your contact information" (not "install X" asked as the tool to adopt, nor a step for every case).
_SETUP_STEP = re.compile(_ASKED + r"(?:also\s+)?(?:install|configure|enable|sign\s+in|log\s+in|set\s+(?:the|your)|"
                         r"have\s+(?:the|it|our)\b.*\binstalled|download|brush\s+up|update\s+your\s+(?:contact|profile|"
                         r"email|status)|select|choose)\b(?!.*\b(?:always|every|each|all|never|whenever)\b)", re.IGNORECASE)
#: A state of mind or habit asked for, not a rule: "make sure you're consistent with the new convention",
#: "ensure that you're familiar with the platform" (not "make sure you're taking at least ...").
_STATE_ASKED = re.compile(r"^(?:[\w' ]{0,30},\s+)?(?:(?:i\s+want|i'd\s+like)\s+you\s+to\s+)?(?:make\s+sure|ensure|it'?s\s+"
                          r"(?:\w+\s+)?(?:important|crucial|essential|vital))\s+(?:that\s+)?(?:you'?re|you\s+are|we'?re|we\s+are|"
                          r"you\s+get\s+(?:accustomed|familiar)|you\s+have\s+all|we\s+keep\s+our)\s+(?!taking\b|always\b|never\b)",
                          re.IGNORECASE)
#: A maxim recalled: "don't forget the power of ...", "keep in mind that your commit messages are documentation".
_RECALLED_MAXIM = re.compile(r"^(?:[\w' ]{0,30},\s+)?(?:keep\s+in\s+mind|don'?t\s+forget|remember)\s*,?\s+(?:the\s+"
                             r"(?:importance|power|value|beauty)\b|that\b(?!.*\b(?:always|never)\b))", re.IGNORECASE)


#: A rule still to come, named but not said: "keep the following guidelines in mind", "name functions a bit
#: differently", "update your Python coding style", "add two particular decorators to all your methods".
_RULE_TO_COME = re.compile(r"\b(?:the\s+following|something\s+(?:very\s+)?(?:important|else)|a\s+bit\s+differently|"
                           r"a\s+similar|(?:a\s+)?(?:specific|particular)\s+(?:set\s+of\s+)?(?:\w+\s+)?(?:decorators?|"
                           r"instructions|guidelines|style|conventions?)|update\s+your\s+(?:[\w-]+\s+){0,6}(?:style|"
                           r"conventions?|approach)|align\s+with\s+our\s+new)\b", re.IGNORECASE)


#: A maxim, not a rule: a standard said in general ("your code should not only work but also be readable", "we
#: always strive for consistency", "we must embody these values", "follow best practices and our coding standards").
_MAXIM_RULE = re.compile(r"\bnot\s+(?:just|only)\b.{0,80}\bbut\b"
                         r"|^(?:[\w' ]{0,30},\s+)?(?:we|our\s+\w+)\s+(?:always\s+|all\s+)?(?:(?:should|must|need\s+to)\s+"
                         r"(?:also\s+|always\s+|continually\s+)?)?(?:strive|value|embody|aim|cultivate|adhere\s+to\s+(?:industry"
                         r"|the\s+highest)|continually|uphold|want\s+(?:our\s+code|to\s+(?:ensure|maintain|keep)))\b"
                         r"|\b(?:best\s+practices|(?:our|the)\s+coding\s+standards|industry\s+standards|coding\s+practices)\b"
                         r"(?!.*\b(?:always|never)\b)"
                         # "security should be a top priority"; a cheer: "make this project a shining example of ..."
                         r"|\btop\s+priority\b|^make\s+(?:this\s+|our\s+)?[\w-]+(?:\s+[\w-]+)?\s+(?:an?\s+)?(?:even\s+better|"
                         r"shining|valuable|great|better)\b", re.IGNORECASE)


#: An example of a rule, not the rule: "if you have a variable named 'count', it should be 'count_z'".
_EXAMPLE = re.compile(r"^(?:[\w' ]{0,30},\s+)?(?:if\s+you\s+have\s+an?\s+\w+(?:\s+\w+)?\s+(?:named|called|that)\b|"
                      r"in\s+this\s+example\b|for\s+(?:example|instance)\b|.*,\s+let'?s\s+say,)", re.IGNORECASE)
#: What asks only for care ("document your code thoroughly", "follow the style guide rigorously"), a rule pointed at
#: ("no, this instruction applies to all methods"), a standard announced without its value ("we are
#: standardizing our video call software"), a step done once ("activate the environment before installing",
#: "keep your phone charged"), what one will see or what will do ("you should see an icon", "either framework
#: should suffice").
_NOT_THE_RULE = re.compile(
    r"\b(?:thoroughly|adequately|rigorously|appropriately|accurately)\b(?!.*\b(?:always|never)\b)"
    r"|(?:\bactivate\b|\b(?:have|get)\s+(?:\w+\s+){1,3}set\s+up\b|\balso\s+get\s+the\b|\bcharged\b)"
    r"(?!.*\b(?:always|every|each|all|never|whenever)\b)"
    r"|\byou\s+should\s+(?:see|notice|find)\b|\bshould\s+(?:suffice|be\s+sufficient|work\s+fine)\b"
    r"|\bthis\s+(?:instruction|is\s+the\s+standard)\b"
    # a rule denied, not said: "it's not that you should never create a ticket"; only care: "with more care"
    r"|^(?:[\w' ]{0,30},\s+)?it(?:'s|\s+is)\s+not\s+that\b|\bwith\s+(?:more|extra|great(?:er)?|due|utmost)\s+care\b"
    # a step left to judgement ("take detailed messages if needed"), unless a rule stands in a clause before it
    # ("never force-push to main; rebase if needed"); conforming to what exists, nothing named to check ("I want
    # your code to align with our team's standards", "in line with our existing design system")
    r"|^(?:(?!;|,\s+and\b).)*?\bif\s+(?:needed|necessary)\b|\b(?:align(?:s|ed)?\s+with|(?:be|are|is)\s+in\s+line\s+with)\s+(?:our|the|your)\b"
    r"|\b(?:decided\s+to\s+standardi[sz]e|are\s+standardi[sz]ing)\s+our\b(?!.*\b(?:and|to\s+use|on)\b)", re.IGNORECASE)


#: Exact words a later session can check a statement by: code, a number, a path or dotted name, a CamelCase name,
#: a flag (not a word in capitals: a company's "VATO" is no value).
_EXACT = re.compile(r"`[^`]+`|\b\w*\d\w*\b|\b\w+[./_]\w+|\b[A-Z][a-z]+[A-Z]\w*|--[\w-]+")
#: What a mentor says in passing rather than asks to be done from now on: advice by its own name ("a good rule of
#: thumb is ..."; a house rule says "a practice we follow"), how things are to keep in mind ("one thing to remember
#: is that TPUs ...", unlike "... is to never ..."), growth asked for (a skill, a course), a task bound to one
#: occasion ("by the end of the day", "our upcoming workshop"), a state to reach in the work at hand ("ensure that
#: the backend is scalable"; not "ensure that all names ...").
_IN_PASSING = re.compile(
    r"(?:\brule\s+of\s+thumb\b|\b(?:good|helpful|best|useful|great)\s+practices?\b(?!\s+we\b))(?!.*\b(?:always|never)\b)"
    r"|\bthings?\s+to\s+(?:remember|note|keep\s+in\s+mind)\s+is\s+(?!to\b)"
    r"|\b(?:keep|bear)\s+in\s+mind\b(?!.*\b(?:always|never)\b)|\bembod(?:y|ying|iment)\b|\bkeep\s+an\s+open\s+mind\b"
    # a quality to design for: "structure the code with modularity and reusability in mind"
    r"|\bwith\s+(?:[\w-]+\s+){1,4}in\s+mind\b"
    # no imperative after the always: "Always seeking to improve ...", "Always within the framework of ..."
    r"|^(?:always|never)\s+(?!using\b)(?:\w{3,}ing|within)\b"
    # a subject to talk about, a maxim, an understanding to have, a goal to set, a document or audit to make once
    r"|\b(?:speak|talk)\s+(?:with|to)\s+you\s+about\b|(?:is|are)\s+(?:just\s+|equally\s+)?as\s+(?:important|crucial|"
    r"essential|valuable)\s+as\b|\bhave\s+an?\s+(?:\w+\s+)?(?:understanding|idea|grasp|sense|picture)\s+of\b"
    r"|\bset\s+(?:a|yourself\s+a)\s+goal\b|\b(?:put\s+together|draft|write\s+up)\s+(?:a|an)\s+(?:\w+\s+)?(?:proposal|"
    r"report|plan|summary|document)\b|\bconduct\s+an?\s+(?:\w+\s+)?(?:audit|survey|assessment|analysis)\b"
    # a warning against neglect, care asked for without saying what to do: "don't compromise on quality"
    r"|^(?:[\w' ]{0,30},\s+)?(?:please\s+)?(?:don'?t|do\s+not|never)\s+(?:neglect|compromise|fall\s+into|overlook|"
    r"underestimate|lose\s+sight)\b"
    r"|\b(?:challenge\s+yourself|become\s+proficient|proficien\w+|start\s+(?:reading|diving)|courses?|workshops?|katas?)\b"
    r"|\b(?:enhanc|strengthen|improv|build|develop|hone|sharpen)\w*\s+(?:your\s+)?(?:[\w-]+\s+){0,2}(?:skills?|"
    r"confidence|abilities|knowledge|expertise)\b"
    r"|\b(?:by\s+the\s+end\s+of\s+(?:the|this|today)|upon\s+your\s+return|(?:our|the)\s+upcoming|for\s+your\s+next"
    r"\s+task)\b"
    r"|^(?:[\w' ]{0,30},\s+)?(?:please\s+)?(?:ensure|make\s+sure)\s+(?:that\s+)?(?!you\b)(?:(?!all\b|every\b|each\b|"
    r"any\b)[\w'-]+\s+){1,4}?(?:is|are|can|has|have|follows?)\b(?!.*\b(?:all|every|each|any)\b)", re.IGNORECASE)
#: How a thing is to be, said of it rather than asked of the listener, over no case in particular ("the dashboard
#: should be dynamic", "innovation must be balanced with practicality"): its subject, when it is no thing of the
#: code or its tools ("all method names should ..." and "each commit should ..." are rules).
_WISHED_OF = re.compile(r"^(?:[\w' ]{0,30},\s+)?(?!(?:i|you|we|please|all|every|each|any|no|only|under|never|always|if|"
                        r"when)\b)((?:(?!(?:you|we|all|every|each|any|no)\b)[\w'-]+\s+){1,6}?)(?:should|must|shall)\b"
                        r"(?!\s+you\b)(?!.*\b(?:all|every|each|any|always|never|only)\b)", re.IGNORECASE)
#: A proposal to the team, not a rule: "I think we should propose a casual dress code", "we should review ...".
_PROPOSED_TO_TEAM = re.compile(r"^(?:[\w' ]{0,30},\s+)?(?:i\s+think\s+|i'?m\s+thinking\s+)?we\s+should\b",
                               re.IGNORECASE)


def _in_passing(summary: str) -> bool:
    """Whether a user's rule is said in passing rather than asked from now on (`_IN_PASSING`), a wish of how a
    thing is to be (`_WISHED_OF`) or a proposal to the team that names nothing exact."""
    if _EXACT.search(summary):
        return False
    wished = _WISHED_OF.match(summary)
    # what it asks for said as "it", "them" or "there" at its end, no thing of the code named before: said before it
    # ("include a digit in them" names what it asks for: only where is said before)
    pronoun = re.search(r"(?<!\bin)(?<!\bwithin)(?<!\bfor)(?<!\bto)(?<!\binto)(?<!\bon)(?<!\bwith)\s(?:it|them|there)"
                        r"(?:\s+(?:nonetheless|anyway|as\s+well|too|instead))?\s*[.!]?$", summary, re.IGNORECASE)
    return bool(_IN_PASSING.search(summary) or wished and not _WORK_THING.search(wished.group(1))
                or pronoun and not _WORK_THING.search(summary[:pronoun.start()])
                or _PROPOSED_TO_TEAM.match(summary) and not _PROPER_NAME.search(summary))


#: A numbered step of the work at hand ("move to Phase 4", "make sure that step 2 is completed"): done once, not kept.
_WORK_STEP = re.compile(r"\b(?:phase|step|stage|milestone|sprint)\s+\d+\b", re.IGNORECASE)


#: What a kind of user of the product can or must do, its subject named: "Users should be able to filter on a custom rep
#: range", "only admins can delete a campaign" (a requirement that holds as long as the product does; "you should be
#: able to see it now" is an expectation). Not clients or customers: the workplace's, as often as the product's.
_CAPABILITY = re.compile(
    r"^(?:the\s+|all\s+|every\s+|each\s+|only\s+)?(?:(?:logged[- ]in|signed[- ]in|registered|anonymous|new|regular|"
    r"admin|end)\s+)?(?:users?|admins?|administrators?|visitors?|guests?|members?|students?|buyers?|sellers?|operators?|"
    r"reviewers?|players?)\s+(?:should|must|shall|can(?:not|'t)?|need\s+to|have\s+to)\s+(?:(?:only|never|not|always|"
    r"also)\s+)?(?:be\s+able\s+to\s+)?(?!be\b|feel\b|know\b|understand\b|trust\b|enjoy\b)[a-z]+", re.IGNORECASE)


#: "Users should be able to log in now", "... to see it", "... to do this too": what to expect after this session's
#: change, or a requirement that names nothing of its own.
_POINTS_BACK_OR_NOW = re.compile(r"\b(?:now|too|it|this|that|these|those|them)\b", re.IGNORECASE)


def _kept(made: RawProposal | None) -> RawProposal | bool:
    """A user's rule or decision when it names something and asks for more than a setup step, a state of mind or
    what was said before it; False (said, nothing to keep) when not."""
    if not made or _EXAMPLE.match(made.summary) or _WORK_STEP.search(made.summary):
        return False
    if _CAPABILITY.match(made.summary) and not _POINTS_BACK_OR_NOW.search(made.summary):
        return made  # what users can do names the product's behaviour: something a later session can check
    if _names_nothing(made.summary) or re.match(r"(?:or|which)\s", made.summary, re.IGNORECASE):
        return False  # names nothing, or the tail of a sentence cut before it ("Or feature request must be ...")
    if _QUOTED_VALUE.search(made.summary):  # a value said: "set the formatter to 'black'" is a rule
        return made
    asked_once = _SETUP_STEP.match(made.summary) and not re.search(r"\b(?:want|like)\s+you\s+to\b", made.summary, re.I)
    if asked_once or _POINTS_BACK.search(made.summary) or _STATE_ASKED.match(made.summary) \
            or _RECALLED_MAXIM.match(made.summary) or _RULE_TO_COME.search(made.summary) \
            or _MAXIM_RULE.search(made.summary) or _NOT_THE_RULE.search(made.summary) or _in_passing(made.summary):
        return False
    return made


#: What the user expects to happen, not a rule: "it should be fine now", "the CI should pick it up", after a
#: report of what they did ("I pushed the branch, ...").
_EXPECTED = re.compile(r"\bshould\s+(?:now\s+)?(?:be\s+(?:fine|good|ok(?:ay)?|ready|done|there|back|live|up|fixed|working|"
                       r"visible|gone|enough|able)|work|pass|pick\s+(?:it|them|this|that)\s+up|kick\s+in|show\s+up|"
                       r"appear|succeed|go\s+through)\b|^i\s+(?:just\s+)?(?:ran|pushed|deployed|tried|added|fixed|installed|"
                       r"updated|changed|merged|restarted|deleted|created|tested|checked|rebuilt|reverted)\b",
                       re.IGNORECASE)
#: A turn that asks for a piece of work now ("Now let's build the merge logic ... Show me the full implementation",
#: "Let's do the Dockerfile first", numbered steps, "Fix: ...").
_TASK_TURN = re.compile(r"(?im)^\s*(?:(?:ok(?:ay)?|so|now|great|good)[,!.]?\s+)*(?:let'?s\s+(?:now\s+)?(?:build|write|"
                        r"implement|create|add|do|make|start|fix|wire|set\s+up)\b|show\s+me\s+the\b|fix\s*:|\d+[.)]\s+"
                        r"(?:update|create|copy|add|write|build|implement|fix|replace|remove|move)\b)")
#: How a thing asked for should be, said with a plain "should" ("missing fields should pass through to the merged
#: case"): in a turn asking for the work, the spec of that work, which its code will say.
_SPEC_OF_TASK = re.compile(r"\bshould\b", re.IGNORECASE)
#: What binds beyond the task: always, never, only, must, a "not" (an option turned down).
_BINDING = re.compile(r"\b(?:always|never|only|must|not|no)\b|n't\b", re.IGNORECASE)


#: A user's choice said with what it replaces: "use pnpm instead of npm", "prefer named exports over default
#: exports", "we use Tailwind, not styled-components", "no more inline styles, use the theme tokens".
_PREFERENCE = re.compile(
    r"^(?:please\s+)?(?:(?:use|put|store|keep|write|call|import|pick)\s+\S.{1,100}?\s(?:instead\s+of|rather\s+than)\s+\S"
    r"|prefer\s+\S.{1,80}?\s(?:over|to|instead\s+of|rather\s+than)\s+\S"
    r"|we\s+(?:use|prefer)\s+\S.{1,60}?(?:,|\s[—–-])\s+not\s+\S"
    r"|no\s+more\s+[\w`'./ -]{2,40}?\s*[,;:—–-]\s*(?:use|go\s+with|switch\s+to)\s+\S)", re.IGNORECASE)
_PREFERENCE_LEAD = re.compile(r"^please\s+", re.IGNORECASE)


def _user_statement(sentence: str, rest: str, turn: SessionTurn, case: str = "",
                    anywhere: bool = False) -> RawProposal | None | bool:
    """The proposal a user's clause makes; None when it has no cue (try the next clause), False when it has one
    but says nothing worth keeping. `case`: the clause before it saying when it applies (its words count too);
    `anywhere`: read with `_NAMING_ANYWHERE` too (when no clause of the sentence had a cue)."""
    decision = _USER_DECISION.match(sentence) or _LATER_ON.search(sentence)
    if decision and decision.re is _LATER_ON:  # "start the method names with 'x_' from now on"
        return _kept(_proposal("decisions", sentence[:decision.start()], rest, turn, relevance=0.85,
                               actionability=0.95, cue="user decision"))
    if decision:
        dropped = next((g for g in decision.groups() if g), None)
        # the lead-in goes either way: "No, we won't use Redux" states "We won't use Redux"
        statement = sentence[decision.end():] if dropped else _capitalised(_ANSWER_WORD.sub("", sentence))
        # "let's do x = 30" says "set x = 30"; the content keeps the words as typed
        said, statement = statement, re.sub(r"^do\s+(?=[\w.-]+\s*=)", "set ", statement, flags=re.IGNORECASE)
        again = _USER_DECISION.match(statement) if dropped else None  # "from now on, let's use Skype"
        if again and any(again.groups()):
            statement = statement[again.end():]
        general = bool(re.match(r"(?:from\s+now\s+on|going\s+forward|moving\s+forward|in\s+this|generally|in\s+general"
                                r"|as\s+a)", dropped or "",
                                re.IGNORECASE))
        if re.match(r"(?:generally|in\s+general|as\s+a)", dropped or "", re.IGNORECASE) \
                and re.search(r"\b(?:these|those)\b", statement, re.IGNORECASE):
            return False  # "generally, we host these meetings ...": about what was named before, not standing alone
        return _kept(_proposal("decisions", statement, rest, turn, relevance=0.85,
                               actionability=0.95 if general or re.match(r"(?:always|never)\b", statement, re.I)
                               else 0.85, cue="user decision", whole=sentence if said != statement else ""))
    if _CHANGE_VERB.match(sentence) and changes(sentence):
        return _proposal("decisions", sentence, rest, turn, relevance=0.85, actionability=0.9,
                         cue="user change") or False
    learning = _USER_LEARNING.match(sentence)
    if learning and re.match(r"(?:remember|keep|don)", learning.group(2) or "", re.IGNORECASE) \
            and not (_EXACT.search(sentence) or _QUOTED_VALUE.search(sentence)):
        return False  # "keep in mind that GPUs have limited memory": how things are, explained in passing
    if learning:
        return _proposal("learnings", sentence[learning.end():], rest, turn, relevance=0.85, actionability=0.75,
                         cue="user learning") or False
    if _USER_BLOCKER.search(sentence):
        return _proposal("blockers", sentence, rest, turn, relevance=0.8, actionability=0.7,
                         cue="user blocker") or False
    if _PREFERENCE.match(sentence):
        return _kept(_proposal("decisions", _PREFERENCE_LEAD.sub("", sentence), rest, turn, relevance=0.85,
                               actionability=0.9, cue="user preference"))
    if _USER_RULE.match(sentence) or anywhere and _NAMING_ANYWHERE.match(sentence):
        if len(f"{case} {sentence}".split()) < MIN_RULE_WORDS and not (len(sentence.split()) >= MIN_WORDS
                                                                     and _SHORT_ORDER.match(sentence)) \
                or _NOT_KEPT.search(sentence) or _PLEASANTRY.match(sentence):
            return False
        required = _CAPABILITY.match(sentence) and not _POINTS_BACK_OR_NOW.search(sentence)
        if _EXPECTED.search(sentence) and not required \
                or _TASK_TURN.search(turn.text) and _SPEC_OF_TASK.search(sentence) \
                and not _BINDING.search(sentence) and not _QUOTED_VALUE.search(sentence):
            return False
        rule = re.search(r"\b(?:always|never|must|should|shall|don'?t|do\s+not|only)\b", sentence, re.IGNORECASE)
        return _kept(_proposal("patterns" if rule else "decisions", sentence, rest, turn, relevance=0.8,
                               actionability=0.85, cue="user rule"))
    return None


def _shorter(sentence: str) -> list[str]:
    """Shorter ways to say a sentence too long for a summary: without its parentheses, then what comes before the
    option it turns down ("X, not Y" -> "X")."""
    bare = re.sub(r"\s*\([^()]*\)", "", sentence)
    out = [bare] if bare != sentence else []
    cut = _TURNED_DOWN.search(bare)
    if cut and len(bare[:cut.start()].split()) >= MIN_WORDS:
        out.append(bare[:cut.start()].rstrip(" ,—–-"))
    return out


#: The agent asking the user to settle what it just proposed ("Worth a quick gut-check from you", "OK with you?"):
#: the choice is not made yet.
_ASKS_BACK = re.compile(r"\?|\b(?:let\s+me\s+know|gut[- ]check|check\s+(?:with|from|by)\s+you|your\s+call|up\s+to\s+you|confirm|sign[- ]off|"
                        r"(?:ok|okay|fine)\s+with\s+you|if\s+you\s+(?:agree|prefer|'d\s+rather|would\s+rather)|"
                        r"objections?|push\s*back|thoughts)\b", re.IGNORECASE)


def _agent_sentence(sentence: str, rest: str, turn: SessionTurn, names: frozenset[str]) -> RawProposal | None:
    """A choice the agent made against a named option, or a reason it names: the cues of `_agent` that read a
    sentence cut shorter when it is too long for a summary (its whole kept as the content)."""
    choice = _AGENT_CHOICE.match(sentence)
    if choice and _TURNED_DOWN.search(sentence) and not _WORK_OF_THE_MOMENT.search(sentence) \
            and not _ASKS_BACK.search(rest) \
            and (_SPECIFIC.search(sentence) or any(n in sentence for n in names)):
        namespace, statement, cue = "decisions", sentence[choice.end():], "agent choice"
    elif _REASON_LEAD.match(sentence) and not _NOT_KEPT.search(sentence):
        lead = _REASON_LEAD.match(sentence)
        namespace, statement, cue = "learnings", sentence[lead.end():], "agent reason"
        owner = re.match(r"^(.+?)(?:['’]s?)?\s+(?:docs|documentation)\b", lead.group(0), re.IGNORECASE)
        if owner:  # the documented tool stays named: "Render: persistent disks require a paid instance type"
            statement = f"{owner.group(1)}: {statement}"
    elif _CONTRAST.match(sentence) and not _NOT_KEPT.search(sentence) and not _STATE_AGAINST_BEFORE.search(sentence):
        namespace, statement, cue = "learnings", sentence, "agent contrast"
    else:
        return None
    for said in [statement] + _shorter(statement):
        made = _proposal(namespace, said, rest, turn, relevance=0.8, actionability=0.8 if cue == "agent choice"
                         else 0.75, cue=cue, whole=_capitalised(statement))
        # a choice is kept whole or without what it turned down, never cut further ("treat the example as ...")
        if made and (cue != "agent choice" or made.summary == _ended(_capitalised(" ".join(said.split())))):
            return made
    return None


def _settings(turn: SessionTurn) -> list[RawProposal]:
    """Settings the agent puts in a named configuration file, said in one sentence (`application.yml` ...
    `spring.jackson.default-property-inclusion: non_null`): the file sets the value."""
    found: list[RawProposal] = []
    in_code = False
    for line in turn.text.split("\n"):
        if line.lstrip().startswith("```"):
            in_code = not in_code
        if in_code or line.lstrip().startswith(("```", "|")) or _BULLET_LINE.match(line):
            continue  # code, a table, a list of what was done
        for sentence in _SENTENCE.split(line):
            files = _CONFIG_FILE.findall(sentence)
            settings = _CONFIG_SETTING.findall(sentence)
            if not files or not settings or re.search(r"\blet\s+me\b|\?", sentence, re.IGNORECASE):
                continue
            summary = _ended(f"{files[0]} sets {' '.join(settings[0].split())}")
            if len(summary) > SUMMARY_CHARS:
                continue
            said = " ".join(sentence.replace("`", "").replace("**", "").split())
            found.append(RawProposal(namespace="decisions", summary=summary, content=_ended(said)[:CONTENT_CHARS],
                                     line=turn.line, uuid=turn.uuid, relevance=0.8, actionability=0.85,
                                     specificity=_specificity(summary), coherence=0.85, cue="agent setting"))
    return found


def _captured(turn: SessionTurn) -> list[RawProposal]:
    """What the agent says it recorded for later ("Here's what I captured:"): the bullets after it, one proposal,
    under the bold or heading line that titles them."""
    lines = turn.text.split("\n")
    start = next((i for i, line in enumerate(lines) if _CAPTURED.search(line) and line.rstrip().endswith(":")), None)
    if start is None:
        return []
    title, items = "", []
    for line in lines[start + 1:]:
        bullet = _BULLET_LINE.match(line)
        heading = _HEADING_LINE.match(line) or re.match(r"^\s*\*\*([^*]+)\*\*\s*$", line)
        if bullet:
            items.append(" ".join(bullet.group(1).replace("**", "").replace("`", "").split()))
        elif heading and not items:
            title = heading_text(heading.group(1)).replace("*", "").strip().rstrip(":")
        elif line.strip() and items:
            break
    if not items:
        return []
    summary = title or items[0]
    for item in items[0 if title else 1:]:
        piece = f"{summary}{', ' if summary != title else ': '}{item}"
        if len(piece) + 1 > SUMMARY_CHARS:
            break
        summary = piece
    summary = fit_summary(summary) if summary != title else None
    if summary is None or _HEDGE.search(summary):
        return []
    content = (f"{title}: " if title else "") + "; ".join(items)
    return [RawProposal(namespace="decisions", summary=summary, content=_ended(content)[:CONTENT_CHARS],
                        line=turn.line, uuid=turn.uuid, relevance=0.85, actionability=0.8,
                        specificity=_specificity(content), coherence=0.85, cue="agent captured")]


#: The agent guessing, not finding: "I think the root cause is ...", "the issue is likely that ...".
_AGENT_GUESS = re.compile(r"\b(?:i\s+(?:think|believe|suspect|guess|assume)|(?:my|best)\s+guess|likely|possibly|"
                          r"presumably|seems?|appears?|looks\s+like|suspect(?:ed)?|hypothes[ie]s|assuming)\b", re.IGNORECASE)
#: The agent saying back what the user said or asked: "You asked whether ...", "so the question is: ...".
_RESTATED = re.compile(r"\byou(?:'re|\s+are)?\s+(?:asked|asking|said|mentioned|want(?:ed)?|requested|wrote|meant|"
                       r"prefer(?:red)?|chose|picked)\b|\b(?:the|your|my)\s+question\s+(?:is|was)\b|\bwhether\b",
                       re.IGNORECASE)
#: What leads in the agent's narration, a step of its plan, a report of what it did, or words it quotes: "Checking
#: the config: ...", "Next step: ...", "What I changed: ...", "The README says: ...".
_ASIDE_LEAD = re.compile(r"^(?:(?:so|now|ok(?:ay)?),?\s+)?(?:\w+ing\b[^:]{0,40}|(?:the\s+)?(?:next\s+)?steps?\b[^:]{0,12}|"
                         r"(?:the\s+)?plan|then|next|after\s+that|finally|summary|changes?(?:\s+made)?|results?|status|"
                         r"what\s+(?:i|we)\s+(?:changed|did|fixed|added|found|updated)|(?:the\s+)?fix\s+is\s+in|done|fixed|"
                         r"[^:]{0,40}\b(?:says|said|reads|states|shows|prints|printed|returned|output))\s*:\s"
                         r"|^(?:then|next|after\s+that|finally|step\s+\d+)\b"
                         # an option laid out for the user to pick, not a choice made: "Option B uses Redis, not ..."
                         r"|^(?:option|alternative|approach|choice)\s+(?:[a-z]|\d+)\b", re.IGNORECASE)
#: How the work stands now, a status report: "The tests are failing because ...", "the build is green".
_AGENT_STATUS = re.compile(r"^(?:(?:so|now|ok(?:ay)?|great|good|perfect)[,!.]?\s+)?(?:the\s+)?(?:\d+\s+|all\s+)?(?:tests?|"
                           r"build|ci|deploy(?:ment)?|server|app|pipeline|linter|lint|checks?)\s+(?:is\s+|are\s+|now\s+|still\s+)*"
                           r"(?:pass(?:es|ing)?|fail(?:s|ing|ed)?|green|red|running|broken|succeed(?:s|ed)?|works?|working|up|"
                           r"live|done|complete)\b", re.IGNORECASE)
#: Code said as prose (outside backticks): "if (user == null) return; ...".
_CODE_SAID = re.compile(r"==|!=|=>|&&|\|\||[{}]|\)\s*;|\breturn\s*;")


#: A parenthesised aside, or a word (a run of non-spaces) that may be a path. Each word is matched whole, once, and
#: tested for '/' or '?' in Python: a pattern like `\S*[/?]\S*` retries every start inside a long word with neither
#: and costs quadratic time (a 16,000-character word took 2.5 s).
_ASIDE_OR_PATH = re.compile(r"\s\([^()]*\)|\S+")


def _unsaid(match: re.Match[str]) -> str:
    """'' for an aside or a word with '/' or '?' (a path, a query: named, not said); the word itself otherwise."""
    word = match.group()
    return "" if word[0].isspace() or "/" in word or "?" in word else word


def _aside(sentence: str) -> bool:
    """Whether an agent's sentence states nothing found or decided: a guess, a question or what the user said said
    back, narration, a plan's next step, a report of what was done, a quotation, or code."""
    prose = re.sub(r"`[^`]*`", "", sentence)
    return bool(prose.rstrip().endswith("?") or _AGENT_GUESS.search(prose) or _RESTATED.search(prose)
                or _ASIDE_LEAD.match(prose) or _AGENT_STATUS.match(prose)
                # code in an aside or a path ("(b.timestamp || b.createdAt)", "/queries?caseId={id}") is named, not said
                or _CODE_SAID.search(_ASIDE_OR_PATH.sub(_unsaid, prose)))


#: What leads in the agent's report of what it did: "## Summary", "Here's what changed:", "I've implemented the
#: export feature:", "Changes made:".
_REPORT_LEAD = re.compile(r"^(?:#+\s*)?(?:\*\*)?(?:(?:a\s+)?summary(?:\s+of\s+(?:the\s+)?(?:changes|work|what\s+\w+\s+done))?|"
                          r"changes(?:\s+made)?|what\s+(?:changed|i\s+(?:did|changed)|was\s+done)|here'?s\s+what\s+(?:changed|"
                          r"i\s+(?:did|changed|fixed|added))|(?:done|finished|completed)\b.*|i'?ve\s+(?:now\s+)?(?:implemented|added|"
                          r"made|updated|fixed|created|changed|built|refactored|written|wired)\b.*)\s*:?(?:\*\*)?\s*:?\s*$",
                          re.IGNORECASE)


def _without_reports(text: str) -> str:
    """`text` without the lists that report what the agent did (the bullets after a report's lead-in): they say
    what the diff says."""
    out: list[str] = []
    skipping = False
    for line in text.split("\n"):
        if _REPORT_LEAD.match(line.strip()):
            skipping = True
            continue
        if skipping and (not line.strip() or _BULLET_LINE.match(line) or line.startswith((" ", "\t"))):
            continue
        skipping = False
        out.append(line)
    return "\n".join(out)


def _run_report(sentence: str) -> bool:
    """Whether `sentence` reports how a run went ("All 42 tests passed", "ruff reported 0 errors", "Phase 2 covers
    ..."), not how a named thing misbehaves (a cause or a condition said: "... only to the first worker")."""
    if _RUN_REPORT.search(sentence):
        return True
    if not _RUN_VERB.search(sentence) or _MISBEHAVES.search(sentence):
        return False
    every = _ALL_OF_A_KIND.search(sentence)  # searched once each, from where "every" ends: linear on any input
    return not (every and _ON_CONDITION.search(sentence, every.end()))


def _found_before_fix(sentence: str, rest: str, names: frozenset[str]) -> bool:
    """Whether `sentence` is what the agent found just before it fixes it (the next sentence acts on it): a named
    thing's state or behaviour ("The `create-next-app` created its own `.git` inside `frontend/`. Let me remove
    it"), not the work of the moment, a run's report, a need, or narration."""
    return bool(rest and _FIX_NEXT.match(rest) and not sentence.endswith(":") and not _NOT_KEPT.search(sentence)
                and not _NO_FINDING_LEAD.match(sentence) and not _MOMENT_SUBJECT.match(sentence)
                and not _run_report(sentence) and _FINDING.match(sentence)
                and (_SPECIFIC.search(sentence) or any(n in sentence for n in names))
                and not re.search(r"\b(?:needs?|should|must|has\s+to|have\s+to)\b", sentence, re.IGNORECASE))


def _agent(turn: SessionTurn) -> list[RawProposal]:
    found: list[RawProposal] = _captured(turn) + _settings(turn) + _plan(turn, _DECISION_SECTION)
    names = frozenset(m for m in re.findall(r"`([^`\n]{2,60})`", turn.text))
    for sentence, rest in _sentences(_without_reports(turn.text)):
        if _aside(sentence):
            continue
        label = _LABEL.match(sentence)
        chosen = None if label else _agent_sentence(sentence, rest, turn, names)
        if chosen:
            found.append(chosen)
            continue
        if label:
            kind = " ".join(label.group(1).lower().split())
            statement = label.group(2).strip().strip("*").strip()
            if kind == "root cause" and not re.match(r"(?:the|a|an)\b", statement, re.IGNORECASE):
                statement = f"The root cause was {statement[:1].lower()}{statement[1:]}"
            made = _proposal(_LABEL_NS[kind], statement, rest, turn, relevance=0.85,
                             actionability=0.85 if _LABEL_NS[kind] != "learnings" else 0.8, cue="agent label")
        elif _ABSENT.match(sentence) and _SPECIFIC.search(sentence) and not _NOT_KEPT.search(sentence):
            made = _proposal("learnings", sentence, rest, turn, relevance=0.8, actionability=0.7, cue="agent absence")
        elif _AGENT_BLOCKER.search(sentence) and not _NOT_KEPT.search(sentence):
            made = _proposal("blockers", sentence, rest, turn, relevance=0.8, actionability=0.7, cue="agent blocker")
        elif _NOTICED.match(sentence) and not _NOT_KEPT.search(sentence) \
                and not re.search(r"\b(?:appears|seems|looks\s+like|likely)\b", sentence, re.IGNORECASE):
            made = _proposal("learnings", sentence[_NOTICED.match(sentence).end():], rest, turn, relevance=0.8,
                             actionability=0.7, cue="agent noticed")
        elif _AGENT_LEARNING.match(sentence):
            made = _proposal("learnings", sentence, rest, turn, relevance=0.8, actionability=0.75,
                             cue="agent learning")
        elif _AGENT_CAUSE.search(sentence) and not _NOT_KEPT.search(sentence):
            if sentence.endswith(":"):  # "X needs Y so Z can ...:" before the code that shows it
                sentence = sentence.rstrip(":").rstrip() + "."
            made = _proposal("learnings", _FOUND_LEAD.sub("", sentence), rest, turn, relevance=0.8,
                             actionability=0.75, cue="agent cause")
        elif _found_before_fix(sentence, rest, names):
            made = _proposal("learnings", sentence, rest, turn, relevance=0.8, actionability=0.7, cue="agent finding")
        else:
            continue
        if made:
            found.append(made)
    return found


def rejoin(text: str) -> str:
    """`text` with lines hard-wrapped at a fixed width joined again (a line that does not end a sentence, followed
    by one that goes on: not a bullet, heading, quote, table or fence). Code blocks are left as they are."""
    out: list[str] = []
    in_code = False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            in_code = not in_code
            out.append(line)
            continue
        previous = out[-1] if out else ""
        wrapped = (not in_code and previous.strip() and not _WRAP_END.search(previous)
                   and not _LIST_OR_BLOCK.match(line) and not previous.lstrip().startswith(("```", "|", "#"))
                   # a short line followed by one in lower case is typed on its own ("let's do x = 30"), not wrapped
                   and (previous.endswith(" ") or line[:1].islower() and len(previous) >= 50 or len(previous) >= 60))
        if wrapped:
            out[-1] = f"{previous.rstrip()} {line.strip()}"
        else:
            out.append(line)
    return "\n".join(out)


def foreign(text: str) -> bool:
    """Whether `text` is in another language than English (the offline reader's cues are English)."""
    letters = [c for c in text if c.isalpha()]
    if len(letters) < 12:
        return False
    if sum(not c.isascii() for c in letters) > 0.3 * len(letters):
        return True
    tokens = re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", text.lower())
    other = sum(t in _OTHER for t in tokens)
    english = sum(t in _ENGLISH for t in tokens)
    # a short line (a question and the option chosen) may hold too few common words: its accented words tell it
    prose = re.findall(r"[^\W\d_]+", re.sub(r"```.*?(?:```|\Z)|`[^`\n]*`", " ", text, flags=re.DOTALL).lower())
    accented = sum(any(not c.isascii() for c in t) for t in prose)  # not in code: output quoted in an English turn
    return other >= 3 and other > english or accented >= 2 and accented + other > english


#: A question about this moment's work, whose answer is a one-off choice, not a decision to keep: "Should I
#: create the scaffold now?", "How do you want to get the file onto your phone?", "How would you like to proceed?".
_ONE_OFF_QUESTION = re.compile(
    r"\b(?:now|next|first|right\s+away|yet|go\s+ahead|proceed|continue)\W*\?\s*$"
    r"|\bhow\s+(?:do|would|should)\s+(?:you|i|we)\s+(?:(?:like|want)\s+(?:me\s+)?to\s+)?(?:get|send|share|deliver|"
    r"transfer|receive|access|see|view|open|proceed|continue|test\s+it|run\s+it)\b"
    r"|\bnext\s+step"
    # the user asked to act and report back: "Can you update the key and let me know when it's ready?"
    r"|\blet\s+me\s+know\s+when\b|\b(?:can|could|would)\s+you\s+(?:please\s+)?(?:update|provide|add|set|paste|share|"
    r"restart|install|run|create|rotate|renew|replace)\b(?=.*\?)", re.IGNORECASE)


def _answers(turn: SessionTurn) -> list[RawProposal]:
    """The answers to one call of the agent's question tool: one decision, each question's header (or the
    question) and the option chosen, as many as fit in the summary and all in the content (the questions asked
    together settle one subject); an answer that asks back is no decision."""
    pieces: list[str] = []
    asked: list[str] = []
    specifics: list[str] = []
    for row in turn.text.split("\n"):
        question, chosen, overridden, header = (row.split("\t") + ["", "", "", ""])[:4]
        if not chosen or "?" in chosen or len(chosen.split()) > 40 or _ONE_OFF_QUESTION.search(question):
            continue
        topic = header or question.rstrip("?")
        piece = f"{topic}: {chosen}"
        if fit_summary(piece) is None and fit_summary(chosen) is None:
            continue
        said = f'"{question}"; the user chose "{chosen}"'
        asked.append(f'{said} over the recommended "{overridden}"' if overridden else said)
        pieces.append(piece)
        specifics.append(f"{question} {chosen}")
    if not pieces:
        return []
    summary = fit_summary(pieces[0]) or fit_summary(pieces[0].split(": ", 1)[1])
    for piece in pieces[1:]:
        joined = f"{summary.rstrip('.')}; {piece}"
        if len(joined) + 1 > SUMMARY_CHARS:
            break
        summary = _ended(joined)
    content = "Asked " + "; asked ".join(asked)
    return [RawProposal(namespace="decisions", summary=summary, content=_ended(content)[:CONTENT_CHARS],
                        line=turn.line, uuid=turn.uuid, relevance=0.9, actionability=0.85,
                        specificity=_specificity(" ".join(specifics)), coherence=0.9, cue="answer")]


def _plan(turn: SessionTurn, sections: re.Pattern[str] = _PLAN_SECTION) -> list[RawProposal]:
    """An approved plan's decision sections (stack, decisions, conventions...; the headings `sections` finds), one
    proposal each: its items as `label: value` in the content, as many as fit in the summary."""
    found: list[RawProposal] = []
    title = ""
    section: str | None = None
    items: list[str] = []

    def flush() -> None:
        if section is None or not items:
            return
        lead = f"{title}: " if title and section.casefold() not in title.casefold() else ""
        summary = f"{section}"
        for item in items:
            piece = f"{summary}{', ' if summary != section else ': '}{item}"
            if len(piece) + 1 > SUMMARY_CHARS:
                break
            summary = piece
        if summary == section:  # the first item alone too long: its first clause, when that stands alone
            summary = (fit_summary(f"{section}: {items[0]}") or section).rstrip(".")
        if summary == section:
            return
        content = f"{lead}{section}: " + "; ".join(items)
        found.append(RawProposal(namespace="decisions", summary=_ended(summary), content=_ended(content)[:CONTENT_CHARS],
                                 line=turn.line, uuid=turn.uuid, relevance=0.9, actionability=0.85,
                                 specificity=_specificity(content), coherence=0.85, cue="approved plan"))

    for raw in turn.text.split("\n"):
        heading = _HEADING_LINE.match(raw)
        if heading:
            flush()
            name = heading_text(heading.group(1)).replace("*", "").strip()
            if not title and raw.lstrip().startswith("# "):
                title = name
                section = None
            else:
                section = name if sections.search(name) else None
            items = []
            continue
        if section is None:
            continue
        bullet = _BULLET_LINE.match(raw)
        row = [c.strip() for c in raw.strip().strip("|").split("|")] if raw.lstrip().startswith("|") else None
        if bullet:
            text = bullet.group(1).replace("**", "").replace("`", "").strip()
            labelled = _LABELLED.match(text)
            items.append(f"{labelled.group(1).strip()} {labelled.group(2).strip()}" if labelled else text)
        elif row and len(row) >= 2 and not set("".join(row)) <= set("-: "):
            if any(c.lower() in ("decision", "choice", "option", "item", "area", "topic") for c in row[:1]):
                continue  # a table's header row
            items.append(" ".join(c.replace("**", "").replace("`", "") for c in row[:2] if c))
    flush()
    return found[:8]


#: A case mapped to its outcome ("Same value → status: UNCHANGED", "empty input -> 400").
_CASE_ROW = re.compile(r"\S\s*(?:→|->|=>|⇒)\s*\S")


def _lead_in_bullets(turn: SessionTurn) -> list[RawProposal]:
    """Bullets a user's lead-in ending in ":" introduces ("Decisions:", "from now on:"), each a statement."""
    found: list[RawProposal] = []
    lines = turn.text.split("\n")
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped.endswith(":") or not _LIST_LEAD.search(stripped) or _BULLET_LINE.match(line):
            continue
        for follow in lines[i + 1:]:
            bullet = _BULLET_LINE.match(follow)
            if not bullet:
                if follow.strip():
                    break
                continue
            text = bullet.group(1).replace("**", "").strip()
            if _CASE_ROW.search(text):
                continue  # a case and what it gives: the table of the behaviour asked for, which its code will say
            namespace = "patterns" if re.search(r"\b(?:always|never|must|should|don'?t|do\s+not)\b", text, re.I) \
                else "decisions"
            made = _proposal(namespace, text, "", turn, relevance=0.85, actionability=0.9, cue="lead-in list")
            if made:
                found.append(made)
    return found


_QUOTED = re.compile(r"'([^'\s][^']*)'|`([^`]+)`|\"([^\"]+)\"")
_CONTENT_WORD = re.compile(r"[a-z0-9_@.-]{3,}")
_FUNCTION_WORDS = frozenset("""the and you your our for with that this from all any are was were have has will would
should must always never please make sure want need like also just now ensure remember start using use from going
forward moving when whenever names name""".split())


def _gist(summary: str) -> tuple[frozenset[str], frozenset[str]]:
    """(exact values, content words) of a summary: what a restatement in other words keeps."""
    values = frozenset(next(g for g in m.groups() if g).casefold() for m in _QUOTED.finditer(summary))
    words = frozenset(_CONTENT_WORD.findall(_QUOTED.sub(" ", summary.casefold()))) - _FUNCTION_WORDS
    return values, words


def _restates(gist: tuple[frozenset[str], frozenset[str]], earlier: tuple[frozenset[str], frozenset[str]]) -> bool:
    """Whether a statement says again what an earlier one said: the same exact values and half of its other words,
    or (with no exact value) most of its words."""
    (values, words), (before_values, before_words) = gist, earlier
    if values:
        return values <= before_values and bool(words & before_words) and len(words & before_words) >= 0.5 * len(words)
    return not before_values and len(words) >= 3 and len(words & before_words) >= 0.7 * len(words)


_PASTE_INTRO = re.compile(r"\b(?:this|these|the\s+following)\s+(?:errors?|output|logs?|responses?|stack\s*traces?|"
                          r"exceptions?|warnings?)\b", re.IGNORECASE)
_TASK_STEP = re.compile(r"^\s*\d+[.)]\s+(?:update|create|copy|check|add|write|build|implement|fix|remove|delete|move|"
                        r"install|generate|integrate|refactor|rename|wire|hook\s+up)\b(?!.*\b(?:every|all|each|always|"
                        r"never|any)\b)", re.IGNORECASE)


_JSON_KEY = re.compile(r'^\s*"[^"]+"\s*:')


#: A line pasted from a terminal: a prompt and its command ("$ npm run build", "PS C:\\app> dotnet test").
_SHELL_PROMPT = re.compile(r"^\s*(?:\$|❯|➜|PS\s+[A-Z]:\\[^>]*>|[\w.-]+@[\w.-]+:[^$#\s]*[$#])\s+(?=[\w./~-])")


def typed(text: str) -> str:
    """What the user wrote as their own words: output pasted after "this error" or "the following log", from
    an unfenced JSON block or a shell prompt ("$ npm run build") on, and the numbered steps of a task ("3. Update Navbar.tsx — replace the text with
    the logo"), left out."""
    kept: list[str] = []
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.rstrip().endswith(("{", "[")) and i + 1 < len(lines) and _JSON_KEY.match(lines[i + 1]):
            break  # a request or response pasted: what follows is what a program printed
        if _SHELL_PROMPT.match(line):
            break  # a command pasted from a terminal: it and what follows are what the shell printed
        if _TASK_STEP.match(line):
            continue
        kept.append(line)
        if _PASTE_INTRO.search(line):
            break
    return "\n".join(kept)


def propose(turns: Sequence[SessionTurn]) -> list[RawProposal]:
    """Every statement in `turns` worth proposing, in order, each once: a later restatement of one already proposed
    (the same summary, or its exact values and subject said in other words) is left out."""
    out: list[RawProposal] = []
    seen: set[str] = set()
    gists: list[tuple[frozenset[str], frozenset[str]]] = []
    for turn in turns:
        if len(turn.text) > TURN_CHARS:  # read up to the last word that fits
            turn = replace(turn, text=turn.text[:TURN_CHARS + 1].rsplit(None, 1)[0])
        if turn.source == "answer":  # the option picked is a decision in any language: read by its structure
            made = _answers(turn)
        elif turn.source == "plan":
            made = _plan(turn)
        elif foreign(turn.text):
            continue  # the cues are English: counted unread, never guessed at
        else:
            made = _explicit(turn)
        if not made and turn.source not in ("answer", "plan"):
            text = typed(turn.text) if turn.role == "user" else turn.text
            turn = SessionTurn(turn.uuid, turn.role, rejoin(text), turn.line, turn.source)
            made = _user(turn) + _lead_in_bullets(turn) + _plan(turn) if turn.role == "user" else _agent(turn)
        for proposal in made:
            key = " ".join(proposal.summary.casefold().split())
            gist = _gist(proposal.summary)
            if key not in seen and not any(_restates(gist, earlier) for earlier in gists):
                seen.add(key)
                gists.append(gist)
                out.append(replace(proposal, source=turn.source or turn.role))
    return out


def novelty_of(best_similarity: float) -> float:
    """Novelty from the relevance of the most similar memory already kept (0.3 or less: wholly new)."""
    return max(0.0, min(1.0, (1.0 - best_similarity) / 0.7))

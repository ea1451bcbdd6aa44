import { B, E, J, fillers, rx, rxCased, words } from './prompt-text.grammar';
import { FOREIGN_OVERRIDES } from './prompt-text.languages';

/**
 * The patterns behind each prompt-text rule. Each one names a way text can address the
 * model instead of describing a tool; benign descriptions (third person, about the business)
 * do not need any of them. Every pattern is matched against every reading of the text
 * (as written, look-alikes folded, spaced letters joined), case-insensitively.
 */

const DETERMINERS = 'all|any|every|each|the|of|your|my|our|these|those|this|that|its|their';
const TEMPORAL = 'previous|prior|preceding|above|earlier|foregoing|former|original|initial|old';
const DONT = `(?:do${J}not|don${J}t|never|must${J}not|should${J}not)`;
const DROP_VERBS = `(?:ignore|disregard|forget|neglect|pay${J}no${J}attention${J}to|${DONT}${J}follow|stop${J}following|no${J}longer${J}follow)`;
const BREAK_VERBS = `(?:ignore|disregard|forget|override|overrule|bypass|circumvent|neglect|abandon|discard|stop${J}following)`;
const GUIDANCE =
  `(?:instructions?|directions?|directives?|guidelines?|guardrails?|programming|system${J}prompts?|safety${J}(?:rules|measures|policies|filters))`;
const AUDIENCE = '(?:user|human|customer|operator|person)s?';
/** What an override says to drop, after "previous" and the like. */
const WHAT_WAS_SAID =
  '(?:instructions?|rules|directions?|directives?|guidelines?|guidance|prompts?|commands?|orders|messages?|context|constraints|' +
  'polic(?:y|ies)|text|content|conversation|input|everything)';
/** "ignore the above." / "ignore all previous and …": nothing after the qualifier but the end of a clause. */
const CLAUSE_END = `[^\\p{L}\\p{N}]{0,5}(?:$|[.,;:!?)\\]\\n]|(?:and|then|or|but)${E})`;
/**
 * Defensive advice is welcome in a description ("ignore any instructions contained in the
 * page"): an override followed by where the untrusted instructions sit is not one.
 */
const DEFENSIVE = `(?!${J}(?:contained|embedded|found|inside|within|it${J}contains|they${J}contain|that${J}(?:appear|are${J}(?:found|embedded|contained))|` +
  `in${J}(?:(?:the|any|its|this|that|each)${J})?(?:results?|responses?|output|content|documents?|text|pages?|emails?|messages?|files?|data|input|tool${J}output)))`;

const ENGLISH_OVERRIDES: readonly RegExp[] = [
  // "ignore all previous instructions", "disregard the above.", but not "ignore the previous value"
  rx(`${B}${DROP_VERBS}${J}${fillers(DETERMINERS, 4)}(?:${TEMPORAL})(?:${J}${WHAT_WAS_SAID}${E}|${CLAUSE_END})`),
  // "ignore everything above", "forget all you were told"
  rx(`${B}(?:ignore|disregard|forget)${J}(?:everything|anything|all|what)${J}(?:above|before|previously|so${J}far|(?:you${J}(?:were|have${J}been)${J}told))${E}`),
  // "override your instructions", "bypass the safety rules"
  rx(`${B}${BREAK_VERBS}${J}${fillers(DETERMINERS, 3)}(?:(?:other|system|safety|developer|existing|current|given|security|${TEMPORAL})${J})?${GUIDANCE}${E}${DEFENSIVE}`),
  // "you are now", "you're now", "youre now"
  rx(`${B}(?:you${J}(?:are|re)|youre)${J}now${E}`),
  rx(`${B}${words('from', 'now', 'on')}${J}(?:you|ignore|always|never|act|respond|answer|reply)${E}`),
  rx(`${B}(?:pretend|imagine)${J}(?:that${J})?(?:you${J}(?:are|were|have|re|ve)|youre)${E}`),
  rx(`${B}your${J}new${J}(?:role|task|goal|instructions?|purpose|persona|objective)${E}`),
  rx(`${B}(?:new|updated|additional|important|real|actual|hidden|secret)${J}instructions?${E}\\s{0,3}[:\\-–—]`),
  rx(`${B}(?:here${J}are|these${J}are)${J}(?:your${J}|the${J})?new${J}instructions${E}`),
  rx(`${B}new${J}instructions?${J}(?:for|to)${J}(?:you|the${J}(?:assistant|model|ai|agent|llm))${E}`),
  rx(`${B}system${J}prompts?${E}`),
  rx(`${B}(?:reveal|print|repeat|leak|disclose|output|recite|show|display|tell${J}me)${J}(?:me${J})?your${J}(?:\\p{L}{1,12}${J})?(?:prompt|instructions|rules)${E}`),
  rx(`${B}${DONT}${J}(?:tell|inform|mention|reveal|notify|alert)${J}(?:(?:this|it|that|anything|them)${J})?(?:to${J})?(?:the${J})?${AUDIENCE}${E}`),
  rx(`${B}without${J}(?:telling|informing|alerting|letting)${J}(?:the${J})?${AUDIENCE}${E}`),
  rx(`${B}(?:keep|hide)${J}(?:this|it|that)${J}(?:secret${J}|hidden${J})?from${J}(?:the${J})?${AUDIENCE}${E}`),
  rx(`${B}the${J}user${J}(?:must|should|need${J}to|needs${J}to)${J}(?:not|never)${J}(?:know|see|find${J}out|be${J}told)${E}`),
  rx(`${B}you${J}must${J}(?:always|never)${E}`),
  // Pseudo-tags that announce instructions: <IMPORTANT>, </system>, <instructions>.
  rx(`<\\s{0,3}\\/?\\s{0,3}(?:system|instructions?|important|admin|secret|hidden|assistant|developer)(?:_[a-z]{1,20})?\\s{0,3}>`),
];

export const OVERRIDE_PATTERNS: readonly RegExp[] = [...ENGLISH_OVERRIDES, ...FOREIGN_OVERRIDES];

/** Chat-template and transcript markers that make text look like a turn of the conversation. */
export const ROLE_MARKER_PATTERNS: readonly RegExp[] = [
  rx('\\[\\s{0,3}\\/?\\s{0,3}(?:inst|sys|system)\\s{0,3}\\]'),
  rx('<<\\s{0,3}\\/?\\s{0,3}sys\\s{0,3}>>'),
  rx('<\\|\\s{0,3}[a-z_]{2,30}\\s{0,3}\\|>'),
  rx('<\\/?(?:start|end)_of_turn>'),
  rx(`#{2,6}\\s{0,3}(?:instructions?|system(?:${J}prompt)?)${E}`),
  rx('(?:^|\\n)\\s{0,3}(?:system|assistant|developer|human)\\s{0,3}:'),
  rxCased(`${B}(?:SYSTEM|ASSISTANT|DEVELOPER|HUMAN|USER)\\s{0,3}:`),
];

const SCHEME = '(?:[a-z][a-z0-9+.-]{1,20}:)';
const LINK_TEXT = '\\[[^\\]\\n]{0,200}\\]';

/** Markdown that a client renders or fetches on its own: a way to send data to a host. */
export const EXFILTRATION_PATTERNS: readonly RegExp[] = [
  // Any remote or inline image: rendering it is a request the model can fill with data.
  rx(`!${LINK_TEXT}\\(\\s{0,3}<?\\s{0,3}(?:${SCHEME}|\\/\\/)`),
  rx(`!${LINK_TEXT}\\[[^\\]\\n]{0,100}\\]`),
  // Links whose URL carries a query string.
  rx(`${LINK_TEXT}\\(\\s{0,3}<?\\s{0,3}${SCHEME}?\\/\\/[^\\s)?]{0,500}\\?[^\\s)]`),
  rx(`${LINK_TEXT}\\(\\s{0,3}<?\\s{0,3}data:`),
  // Reference-style definitions with a query string: [1]: https://host/?q=…
  rx(`(?:^|\\n)\\s{0,3}${LINK_TEXT}:\\s{0,3}<?${SCHEME}?\\/\\/[^\\s?]{0,500}\\?\\S`),
  // A bare URL whose query has a slot to fill: https://host/?q={secret}
  rx(`${SCHEME}?\\/\\/[^\\s?]{1,500}\\?[^\\s]{0,500}?(?:\\{|\\$\\{|\\$[a-z_]|<[a-z])`),
];

const HTML_ELEMENTS =
  'script|style|iframe|frame|frameset|object|embed|applet|img|image|svg|math|video|audio|source|track|picture|link|meta|' +
  'base|form|input|button|textarea|select|a|div|span|p|br|hr|b|i|u|s|em|strong|code|pre|details|summary|font|center|' +
  'marquee|body|html|head|template|slot|noscript|xml|table|tr|td|th|ul|ol|li|h[1-6]';

/** Markup is rendered (or hidden) by some clients and read raw by the model. */
export const HTML_PATTERNS: readonly RegExp[] = [
  rx(`<\\/?(?:${HTML_ELEMENTS})(?=[\\s/>])[^<>]{0,500}>`),
  rx('(?:\\]\\(|href\\s{0,3}=\\s{0,3}["\']?|src\\s{0,3}=\\s{0,3}["\']?)\\s{0,3}(?:javascript|vbscript):'),
  rx(`${B}on(?:error|load|click|mouseover|focus)\\s{0,3}=`),
  rx('<!\\[CDATA\\['),
];

/** Comments: text a rendered view hides and the model still reads. */
export const COMMENT_PATTERNS: readonly RegExp[] = [rx('<!--'), rx('(?:^|\\n)\\s{0,3}\\[\\/\\/\\]:\\s{0,3}#')];

/** Well-known secret files: a tool description has no reason to name them. */
export const SECRET_PATTERNS: readonly RegExp[] = [
  rx('~\\/\\.ssh'),
  rx(`${B}id_(?:rsa|dsa|ecdsa|ed25519)${E}`),
  rx('\\/etc\\/(?:passwd|shadow)'),
  rx('\\.aws\\/credentials|\\.git-credentials|(?<![\\p{L}\\p{N}])\\.netrc'),
];

import { B, E, J, fillers, rx } from './prompt-text.grammar';

/**
 * The same override ideas in other languages: "ignore the previous instructions", "you are
 * now", "do not tell the user", "new instructions:", "system prompt". Latin-script patterns
 * are written without accents because they also run on the folded reading (marks dropped);
 * Cyrillic and CJK patterns match the reading as written.
 */

/** Up to `max` short words of any script, for languages whose word lists would be long. */
const anyWords = (max: number) => `(?:\\p{L}{1,15}${J}){0,${max}}?`;

const FRENCH: readonly RegExp[] = [
  rx(`${B}(?:ignore[rz]?|oublie[rz]?|neglige[rz]?|ne${J}tiens${J}pas${J}compte${J}des?)${J}${fillers('toutes|tous|les|des|vos|tes|ces|de|d|la|le')}(?:instructions?|consignes?|directives?|regles)${E}`),
  rx(`${B}(?:ignore[rz]?|oublie[rz]?)${J}${anyWords(3)}(?:precedentes|anterieures|ci${J}dessus)${E}`),
  rx(`${B}(?:tu${J}es|vous${J}etes)${J}maintenant${E}`),
  rx(`${B}ne${J}(?:le${J}|lui${J}|rien${J})?(?:dis|dites|revele[rz]?|mentionne[rz]?)${J}(?:rien${J}|pas${J})?(?:a${J})?l${J}utilisat(?:eur|rice)${E}`),
  rx(`${B}nouvelles?${J}(?:instructions?|consignes?)${E}\\s{0,3}:`),
  rx(`${B}(?:prompt|invite)${J}(?:du${J})?systeme${E}`),
];

const SPANISH: readonly RegExp[] = [
  rx(`${B}(?:ignora[rd]?|olvida[rd]?|omite|no${J}hagas${J}caso${J}(?:a|de))${J}${fillers('todas|todos|las|los|tus|sus|de|estas|esas')}(?:instrucciones|indicaciones|reglas|directrices|ordenes)${E}`),
  rx(`${B}(?:ahora${J}eres|a${J}partir${J}de${J}ahora${J}eres)${E}`),
  rx(`${B}no${J}(?:le${J})?(?:digas|digan|cuentes|menciones|informes)${J}(?:nada${J})?(?:(?:esto|eso)${J})?al${J}usuario${E}`),
  rx(`${B}nuevas${J}instrucciones${E}\\s{0,3}:`),
  rx(`${B}(?:prompt|mensaje)${J}del${J}sistema${E}`),
];

const PORTUGUESE: readonly RegExp[] = [
  rx(`${B}(?:ignore|ignora|ignorar|esqueca|esquece|esquecer|desconsidere)${J}${fillers('todas|todos|as|os|suas|tuas|de|estas|essas')}(?:instrucoes|instrucao|regras|diretrizes|orientacoes)${E}`),
  rx(`${B}(?:agora${J}voce${J}e|voce${J}agora${J}e)${E}`),
  rx(`${B}nao${J}(?:diga|conte|mencione|informe|fale)${J}(?:nada${J})?(?:(?:isso|isto)${J})?(?:ao|para${J}o)${J}usuario${E}`),
  rx(`${B}novas${J}instrucoes${E}\\s{0,3}:`),
  rx(`${B}prompt${J}do${J}sistema${E}`),
];

const ITALIAN: readonly RegExp[] = [
  rx(`${B}(?:ignora|ignorare|dimentica|dimenticare|trascura)${J}${fillers('tutte|tutti|le|gli|i|tue|sue|di|queste')}(?:istruzioni|regole|direttive|indicazioni)${E}`),
  rx(`${B}(?:ora|adesso)${J}sei${J}(?:un|una|il|la|lo)${E}`),
  rx(`${B}non${J}(?:dire|dirlo|dirgli|rivelare|menzionare)${J}(?:nulla${J}|niente${J})?(?:(?:questo|cio)${J})?all${J}utente${E}`),
  rx(`${B}nuove${J}istruzioni${E}\\s{0,3}:`),
  rx(`${B}prompt${J}(?:di${J})?sistema${E}`),
];

const GERMAN: readonly RegExp[] = [
  rx(`${B}(?:ignoriere|ignorier|ignorieren${J}sie|vergiss|vergessen${J}sie|missachte)${J}${fillers('alle|die|deine|ihre|samtliche|bisherigen|vorherigen|obigen|fruheren|vorigen')}(?:anweisungen|instruktionen|regeln|vorgaben|befehle)${E}`),
  rx(`${B}(?:du${J}bist${J}(?:jetzt|nun|ab${J}sofort)|ab${J}jetzt${J}bist${J}du)${E}`),
  rx(`${B}(?:sag|sage|sagen${J}sie|erzahl|erzahle|verrate)${J}(?:es${J}|das${J}|dies${J})?(?:dem|der)${J}(?:benutzer|nutzer|anwender)(?:in)?${J}nichts?${E}`),
  rx(`${B}neue${J}anweisungen${E}\\s{0,3}:`),
];

const DUTCH: readonly RegExp[] = [
  rx(`${B}(?:negeer|vergeet)${J}${fillers('alle|de|je|jouw|vorige|eerdere')}(?:instructies|regels|aanwijzingen)${E}`),
];

const RUSSIAN: readonly RegExp[] = [
  rx(`${B}(?:про)?(?:игнорир\\p{L}{0,6}|забуд\\p{L}{0,4}|забыть|не${J}обращай\\p{L}{0,3}${J}внимани\\p{L}{0,2}${J}на)${J}${anyWords(3)}(?:инструкци|указани|правил|директив|промпт)\\p{L}{0,4}`),
  rx(`${B}(?:теперь${J}ты|ты${J}теперь)${E}`),
  rx(`${B}не${J}(?:говори|сообщай|рассказывай|упоминай)\\p{L}{0,3}${J}(?:об${J}этом${J}|это${J}|ничего${J})?пользовател\\p{L}{0,3}`),
  rx(`${B}нов\\p{L}{0,3}${J}инструкци\\p{L}{0,3}${E}\\s{0,3}:`),
  rx(`${B}системн\\p{L}{0,4}${J}(?:промпт|подсказк|инструкци)`),
];

const CHINESE_JAPANESE_KOREAN: readonly RegExp[] = [
  rx('(?:忽略|忽视|忽視|无视|無視|不要理会|不要理會|忘记|忘記|忘掉)[^。.!！?？\\n]{0,12}(?:指令|指示|说明|說明|规则|規則|提示)'),
  rx('你现在是|你現在是|从现在开始你|從現在開始你'),
  rx('(?:不要|别|別|切勿|不得)(?:告诉|告訴|通知|透露给|透露給)(?:用户|用戶|使用者)'),
  rx('新的?(?:指令|指示)\\s{0,3}[:：]'),
  rx('系统提示|系統提示|系统指令|系統指令'),
  rx('(?:以前|前|上記|これまで)の(?:指示|命令|指令)を?(?:無視|忘れ)'),
  rx('ユーザーに(?:言わ|伝え|教え)ないで'),
  rx('(?:이전|앞의|위의)\\s{0,3}(?:지시|지침|명령)(?:을|를)?\\s{0,3}(?:무시|잊)'),
];

export const FOREIGN_OVERRIDES: readonly RegExp[] = [
  ...FRENCH, ...SPANISH, ...PORTUGUESE, ...ITALIAN, ...GERMAN, ...DUTCH, ...RUSSIAN, ...CHINESE_JAPANESE_KOREAN,
];

/**
 * Rules: the Lead Rule Filter's send modes and conditions, and the preview over the capture
 * log. Rules are configuration, not code (DESIGN.md principle 6); the preview and the live
 * filter call the same decideSend → evaluateRules, so what you preview is what fires.
 *
 * RULE REFERENCE
 *
 * A rule set is a combinator (`and` / `or`) over conditions `{ field, match_type, pattern,
 * case_sensitive }`.
 *
 * Fields. A dotted path into the lead record: `source.page_url`, `attributes.utm_source`,
 * `contact.email`, `value.amount`. Arrays anywhere on the path are expanded: a condition passes
 * when any element passes, and a negated type (not_equals, not_contains, not_in_list) passes
 * when no element matches. Only the record's own properties are read.
 *
 * Missing fields. undefined, null, "" (or only whitespace) and empty arrays are missing. A
 * missing field fails every type except not_exists, not_equals, not_contains and not_in_list,
 * which pass.
 *
 * Text. Numbers and booleans compare as their string form (`5`, `true`), other objects as
 * JSON. Both sides are Unicode NFC (a decomposed "Zürich" equals "zürich"), trimmed, and
 * lowercased unless case_sensitive (JavaScript lowercasing, the same on every server's locale;
 * not full case folding, so "ß" does not equal "ss").
 *
 * Match types.
 *   equals / not_equals          the whole value
 *   contains / not_contains      a substring
 *   starts_with / ends_with      a prefix / suffix
 *   regex                        JavaScript RegExp, flags `u`, plus `i` unless case_sensitive;
 *                                write the pattern without /slashes/. Refused: patterns over
 *                                500 characters, backreferences, nested quantifiers ((a+)+,
 *                                (.*a){20}, (\w+\s?)*), overlapping alternatives under a
 *                                quantifier ((a|aa)+) and patterns too costly for one lead's
 *                                budget (a.*b.*c). A value is tested on as many characters as
 *                                the pattern's worst case allows, at most 2,000 (the reason
 *                                says when it was cut; see regex.ts).
 *   exists / not_exists          the field has a value / has none; the pattern is ignored
 *   in_list / not_in_list        equals one of the items / none of them
 *   email_domain_in              the email's domain is an item or a subdomain of one
 *                                (sales.acme.com is in acme.com); items may be written `acme.com`,
 *                                `@acme.com`, `*.acme.com`; domains ignore case_sensitive
 *   is_work_email                the email's domain is not a free-mail or disposable provider
 *                                (FREE_MAIL_DOMAINS: gmail.com, yahoo.co.uk, outlook.com, …);
 *                                the pattern is ignored
 *   greater_than / less_than     numbers: "1,200.50", "1 200", "$99" (comma, space or apostrophe
 *                                thousands separators, dot decimals; "1.200,50" is not a number);
 *                                or ISO-8601 dates on both sides (a date-time without offset is
 *                                UTC), compared as times. A value that is not a number (date)
 *                                fails, and the reason says so.
 * Lists (in_list, not_in_list, email_domain_in): items separated by commas or new lines, trimmed,
 * empty items ignored. Email-domain types accept an address (`Jane <jane@acme.com>`) or a bare
 * domain (`acme.com`) as the field's value.
 *
 * Combinators. `and`: every condition passes; the reason names the first failing one
 * ("condition 2 of 3 failed: attributes.utm_source equals "fb": no (value is "google")").
 * `or`: at least one passes; the reason names the first passing one, else "none of the N
 * conditions matched". No conditions: `and` matches every lead (vacuous truth; the reason says
 * "no conditions"), `or` matches none. Any other combinator value is treated as `and`.
 * Every condition is evaluated (no short-circuit), so every result has a reason.
 *
 * Invalid conditions (validateRuleSet lists them: unknown match type, missing pattern, a regex
 * that does not compile or is refused, a non-numeric bound, an empty list, a limit of budget.ts
 * exceeded) fail every record.
 *
 * BUDGETS (budget.ts). At most 10 conditions (5 regexes), patterns of 2,000 characters (regex:
 * 500), lists of 250 items, paths of 10 parts; per lead, the first 2,000 characters of a value
 * (ends_with: the last), the first 20 values of a field, and 3,000 units of work. When a lead's
 * budget runs out, the remaining conditions are not evaluated and fail (`overBudget`).
 *
 * Redacted records (the capture log's entries: `_redacted: true`, no raw email, phone or name;
 * redacted.ts). An entry says in `_reduced` which fields it does not hold exactly, with the live
 * value's lengths. A condition on a field it holds exactly is evaluated as on any record; on a
 * reduced field, exists / not_exists, a field missing live, and email_domain_in / is_work_email
 * on contact.email (from contact.email_domain) are answered; anything else — and any field the
 * log does not keep — is not evaluable (`evaluable: false`, `unanswerable` says why) and counts as
 * not passed. Each condition costs the entry what it costs live; after one whose live cost is
 * unknown, a later pass is not evaluable. An outcome a not-evaluable condition could change is
 * `undetermined`, and so is a send decision (decideSend) on a state or approval field the entry
 * reduced: the preview counts those apart. Reasons never quote the values of contact fields.
 *
 * SEND MODES (decideSend)
 *   automatic_completed   completed captures (state not `partial`; no state counts as `lead`)
 *   automatic_partial     every capture, partial and completed
 *   automatic_match       rulesApplyTo `partial` (default): completed captures are sent,
 *                         partials when the rules match; `all`: every record must match
 *   booking               state `schedule` only
 *   manual                the approval field (default attributes.approved) is true, 1, or
 *                         "true" / "yes" / "approved" / "1" (any case)
 * The partial-leads ladder: automatic_completed → automatic_match → automatic_partial.
 */
export {
	CASE_SENSITIVE_MATCH_TYPES,
	MATCH_TYPES,
	PATTERN_FREE_MATCH_TYPES,
	SEND_MODES,
	type ConditionResult,
	type MatchType,
	type PreviewConditionCount,
	type PreviewEntry,
	type PreviewExample,
	type PreviewOptions,
	type PreviewReport,
	type RuleCondition,
	type RuleEvaluation,
	type RuleSet,
	type SendDecision,
	type SendMode,
	type SendPolicy,
} from './types';
export { evaluateRules } from './evaluate';
export { validateRuleSet } from './validate';
export { DEFAULT_APPROVAL_FIELD, decideSend, validateSendPolicy } from './send-policy';
export { buildPreview } from './preview';
export { parseRuleDate, parseRuleNumber } from './numbers';
export { MAX_REGEX_INPUT_LENGTH, MAX_REGEX_PATTERN_LENGTH } from './regex';
export {
	CONDITION_UNITS,
	LEAD_BUDGET_UNITS,
	MAX_CONDITIONS,
	MAX_FIELD_DEPTH,
	MAX_LIST_ITEMS,
	MAX_PATTERN_LENGTH,
	MAX_REGEX_CONDITIONS,
	MAX_VALUE_CHARS,
	MAX_VALUES_PER_CONDITION,
	MIN_REGEX_INPUT,
	VALUE_UNITS,
} from './budget';
export {
	DAYS_SINCE_LEAD_CREATED,
	daysSinceLeadCreated,
	recordsWithLedgerFacts,
	withLedgerFacts,
	type LedgerLookup,
	type LedgerScope,
} from './stage';

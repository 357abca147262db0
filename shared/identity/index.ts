/**
 * Identity: one normalizer per field, per-platform profiles, and the record-level API
 * (normalize once with normalizeIdentity, render per platform with renderIdentity).
 * Rules: docs/normalization.md. Pure functions; `null` means "omit".
 */
export type { IdentityField, FieldOutcome } from './fields';
export { IDENTITY_FIELDS, HASHABLE_FIELDS, compactFieldMap } from './fields';
export { hashSha256, isSha256Hex } from './hash';

export {
	cleanEmailText,
	normalizeEmail,
	normalizeEmailText,
	readEmailText,
	renderEmail,
} from './email';
export {
	normalizePhone,
	normalizePhoneText,
	phoneHashForm,
	renderPhone,
	type PhoneContext,
} from './phone';
export { normalizeName, normalizeFirstName, normalizeLastName, normalizeNameText } from './name';
export { normalizeCity, normalizeCityText } from './city';
export { normalizeRegion, normalizeRegionText, type RegionContext } from './region';
export {
	normalizePostalCode,
	normalizePostalCodeText,
	type PostalCodeContext,
} from './postal-code';
export { normalizeCountry, normalizeCountryText } from './country';
export { normalizeGender, normalizeGenderText } from './gender';
export {
	normalizeDateOfBirth,
	normalizeDateOfBirthText,
	type DateOfBirthContext,
} from './date-of-birth';
export { normalizeExternalId, normalizeExternalIdText } from './external-id';
export { normalizeIp, normalizeIpText } from './ip';
export { normalizeUserAgent, normalizeUserAgentText } from './user-agent';
export {
	normalizeClickId,
	normalizeClickIdText,
	normalizeMsclkidText,
	CLICK_ID_FIELDS,
	type ClickIdField,
} from './click-ids';
export { buildFbc, readEpochMs, type FbcInput, type FbcResult } from './fbc';
export { normalizeFbp, normalizeFbpText } from './fbp';

export {
	HASHED,
	CLEAR,
	FULL_HASHED_SET,
	type IdentityProfile,
	type IdentityFieldRule,
	type Gender,
} from './profiles';
export {
	normalizeIdentity,
	type NormalizedIdentity,
	type NormalizeIdentityOptions,
} from './normalize-identity';
export { renderIdentity, type PlatformIdentity } from './render-identity';
export {
	estimateMatchQuality,
	matchQualityScore,
	type MatchQuality,
} from './matchQuality';
export { emailDomain, emailOrBareDomain, FREE_MAIL_DOMAINS, isFreeMailDomain } from './email-domains';

import type { INodeProperties } from 'n8n-workflow';
import { LEAD_FIELD_OPTIONS, optionNameExpression } from '../common/descriptions';

const PRESETS = ['typeform', 'tally', 'calendly', 'calcom', 'metaLeadAds', 'hubspot'];

/** Short source names for the canvas subtitle ("Typeform: /demo-form"). */
const SOURCE_SHORT_NAMES: Record<string, string> = {
	calcom: 'Cal.com',
	calendly: 'Calendly',
	script: 'Site script',
	generic: 'Webhook',
	metaLeadAds: 'Meta Lead Ads',
	hubspot: 'HubSpot',
	tally: 'Tally',
	typeform: 'Typeform',
};

export const captureTriggerSubtitle = `={{ (${optionNameExpression('$parameter["source"]', SOURCE_SHORT_NAMES, '$parameter["source"]')}) + ": /" + $parameter["path"] }}`;

export const captureTriggerProperties: INodeProperties[] = [
	{
		displayName: 'Source',
		name: 'source',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Cal.com',
				value: 'calcom',
				description: 'Booking created → schedule (other events are acknowledged and ignored)',
			},
			{
				name: 'Calendly',
				value: 'calendly',
				description: 'Invitee created → schedule (cancellations are acknowledged and ignored)',
			},
			{
				name: 'Capture Script (Your Site Forms)',
				value: 'script',
				description:
					'Paste one script tag on your site: partial leads while visitors type, completed leads on submit',
			},
			{
				name: 'Generic Webhook (JSON or Form)',
				value: 'generic',
				description: 'Any JSON or form-encoded POST: common fields detected, any field mappable',
			},
			{
				name: 'HubSpot (Deal and Lifecycle Stages)',
				value: 'hubspot',
				description:
					"Deal stage and lifecycle stage changes → a later stage of the lead (record ID = HubSpot's object ID; other events are acknowledged and ignored)",
			},
			{
				name: 'Meta Lead Ads (Leadgen Webhook)',
				value: 'metaLeadAds',
				description:
					"Leads from Meta's instant forms → lead with Meta's lead ID (for Conversion Leads)",
			},
			{ name: 'Tally', value: 'tally', description: 'Form responses → lead' },
			{ name: 'Typeform', value: 'typeform', description: 'Form responses → lead' },
		],
		default: 'script',
	},
	{
		displayName: 'Path',
		name: 'path',
		type: 'string',
		default: 'lead-capture',
		required: true,
		description:
			'URL path of this trigger; the full URLs are under Webhook URLs at the top of this panel. Give each form or site its own path.',
	},
	{
		displayName:
			'Your script tag: open <b>Webhook URLs</b> at the top of this panel, choose <b>Production URL</b> and click the URL to copy it, then add &lt;script src="<i>the copied URL</i>" async&gt;&lt;/script&gt; to every page with forms. It sends a partial capture once a valid email or phone is typed and a completed capture on submit, and nothing while consent is withheld.',
		name: 'scriptNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { source: ['script'] } },
	},
	{
		displayName:
			'In Typeform: Connect → Webhooks → Add a webhook with the Production URL (under Webhook URLs at the top of this panel), then "Edit" → Secret: paste the same secret into the credential',
		name: 'typeformNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { source: ['typeform'] } },
	},
	{
		displayName:
			'In Tally: Integrations → Webhooks → Connect: the Production URL (under Webhook URLs at the top of this panel), and a signing secret (the same one in the credential)',
		name: 'tallyNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { source: ['tally'] } },
	},
	{
		displayName:
			'Calendly: create a webhook subscription (API v2, event invitee.created) with the Production URL (under Webhook URLs at the top of this panel) and a signing_key; put the signing key in the credential',
		name: 'calendlyNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { source: ['calendly'] } },
	},
	{
		displayName:
			'In Cal.com: Settings → Developer → Webhooks → New: the Production URL (under Webhook URLs at the top of this panel), trigger "Booking Created", and a secret (the same one in the credential)',
		name: 'calcomNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { source: ['calcom'] } },
	},
	{
		displayName:
			'In your Meta app: Webhooks → Page → Subscribe to <b>leadgen</b> with the Production URL (under Webhook URLs at the top of this panel) and the Verify Token below; put the app secret in the credential (Meta signs deliveries with it). Deliveries carry lead IDs, not answers.',
		name: 'metaLeadAdsNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { source: ['metaLeadAds'] } },
	},
	{
		displayName: 'Verify Token',
		name: 'metaVerifyToken',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		required: true,
		description:
			"The token you type into the Meta app's webhook settings; Meta's subscription check (GET with hub.verify_token) must match it",
		displayOptions: { show: { source: ['metaLeadAds'] } },
	},
	{
		displayName:
			'In your HubSpot app: Webhooks → Target URL: the Production URL (under Webhook URLs at the top of this panel); subscribe to deal property change "dealstage" and/or contact property change "lifecyclestage". The credential holds the app\'s client secret (v1 signature). See docs/stages.md.',
		name: 'hubspotNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { source: ['hubspot'] } },
	},
	{
		displayName: 'Authentication',
		name: 'authentication',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Signature',
				value: 'signature',
				description:
					"Verify every delivery's signature with the secret in the credential (the source's own scheme; HMAC for generic webhooks)",
			},
			{ name: 'None', value: 'none', description: 'Accept unsigned deliveries (anyone with the URL can post)' },
		],
		default: 'signature',
		displayOptions: { hide: { source: ['script'] } },
	},
	{
		displayName: 'Signature Header',
		name: 'hmacHeader',
		type: 'string',
		default: 'X-Signature',
		displayOptions: { show: { source: ['generic'], authentication: ['signature'] } },
	},
	{
		displayName: 'Signature Algorithm',
		name: 'hmacAlgorithm',
		type: 'options',
		options: [
			{ name: 'HMAC-SHA1', value: 'sha1' },
			{ name: 'HMAC-SHA256', value: 'sha256' },
			{ name: 'HMAC-SHA512', value: 'sha512' },
		],
		default: 'sha256',
		displayOptions: { show: { source: ['generic'], authentication: ['signature'] } },
	},
	{
		displayName: 'Signature Encoding',
		name: 'hmacEncoding',
		type: 'options',
		options: [
			{ name: 'Base64', value: 'base64' },
			{ name: 'Hex', value: 'hex' },
		],
		default: 'hex',
		displayOptions: { show: { source: ['generic'], authentication: ['signature'] } },
	},
	{
		displayName: 'Signature Prefix',
		name: 'hmacPrefix',
		type: 'string',
		default: '',
		placeholder: 'sha256=',
		description: 'Text before the signature in the header value, if the sender adds one',
		displayOptions: { show: { source: ['generic'], authentication: ['signature'] } },
	},
	{
		displayName: 'Lead State',
		name: 'stateFrom',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'From the Source',
				value: 'preset',
				description:
					'Script: partial while typing, lead on submit; bookings: schedule; forms and generic webhooks: lead',
			},
			{ name: 'From a Field', value: 'field' },
			{ name: 'Fixed', value: 'fixed' },
		],
		default: 'preset',
	},
	{
		displayName: 'State Field',
		name: 'stateField',
		type: 'string',
		default: 'state',
		placeholder: 'deal.stage',
		description: 'Dotted path in the delivery whose value is partial, lead, contact, schedule, registration or purchase',
		displayOptions: { show: { stateFrom: ['field'] } },
	},
	{
		displayName: 'State',
		name: 'fixedState',
		type: 'options',
		options: [
			{ name: 'Contact', value: 'contact' },
			{ name: 'Lead', value: 'lead' },
			{ name: 'Partial', value: 'partial' },
			{ name: 'Purchase', value: 'purchase' },
			{ name: 'Registration', value: 'registration' },
			{ name: 'Schedule', value: 'schedule' },
		],
		default: 'lead',
		displayOptions: { show: { stateFrom: ['fixed'] } },
	},
	{
		displayName: 'Record ID Field',
		name: 'recordIdField',
		type: 'string',
		default: '',
		placeholder: 'data.submissionId',
		description:
			'Dotted path of the stable ID of the submission or record in the delivery. Empty: detected (record_id, submission_id, response_id, lead_id, entry_id, uuid, ID).',
		displayOptions: { show: { source: ['generic'] } },
	},
	{
		displayName: 'Field Mapping',
		name: 'fieldMapping',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Map a Field',
		default: {},
		description:
			'Where a lead field is in the delivery (dotted path). Mapped fields win over detection; unmapped common keys (email, phone, name…) are detected.',
		displayOptions: { show: { source: ['generic'] } },
		options: [
			{
				name: 'field',
				displayName: 'Field',
				values: [
					{
						displayName: 'Lead Record Field',
						name: 'path',
						type: 'options',
						options: LEAD_FIELD_OPTIONS,
						default: 'contact.email',
					},
					{
						displayName: 'Field in the Delivery',
						name: 'bodyPath',
						type: 'string',
						default: '',
						placeholder: 'data.attributes.email',
					},
				],
			},
		],
	},
	{
		displayName: 'Capture Log',
		name: 'captureLog',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Redis (for the Rule Preview)',
				value: 'redis',
				description:
					'Keep 7 days of redacted captures (no email, phone or name) so the Lead Rule Filter can preview rules',
			},
			{ name: 'Off', value: 'off' },
		],
		default: 'redis',
	},
	{
		// Shown as Options (n8n's word for a node's own optional fields): "Settings" is also the
		// tab with n8n's node settings (On Error, Retry On Fail). The stored name stays `settings`.
		displayName: 'Options',
		name: 'settings',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Allowed Origins',
				name: 'allowedOrigins',
				type: 'string',
				default: '',
				placeholder: 'https://www.example.com, https://example.com',
				description:
					'Sites allowed to send captures from a browser (comma-separated). Empty: any origin. Deliveries without an Origin header (servers) are not affected.',
			},
			{
				displayName: 'Capture Log Attributes',
				name: 'captureLogAttributes',
				displayOptions: { show: { '/captureLog': ['redis'] } },
				type: 'string',
				default: '',
				placeholder: 'plan, company_size, lead_type',
				description:
					'Attributes the capture log keeps for the rule preview (comma-separated keys). Only short enum-like values are kept (no spaces, no email, phone or name); free text such as messages or notes is never kept. utm_* attributes are kept the same way without being listed.',
			},
			{
				displayName: 'Capture Log Max Entries',
				name: 'captureLogMaxEntries',
				displayOptions: { show: { '/captureLog': ['redis'] } },
				type: 'number',
				typeOptions: { minValue: 100 },
				default: 100000,
				description: 'Length cap of the capture log; older entries are trimmed first',
			},
			{
				displayName: 'Capture Log Max Size (MB)',
				name: 'captureLogMaxMb',
				displayOptions: { show: { '/captureLog': ['redis'] } },
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 64,
				description:
					'Byte budget of the capture log in Redis (each entry is also capped at 4 KB); older entries are trimmed first. Anyone who can reach this URL can fill the log up to this size.',
			},
			{
				displayName: 'Capture Log Name',
				name: 'captureLogName',
				displayOptions: { show: { '/captureLog': ['redis'] } },
				type: 'string',
				default: '',
				description:
					'Name of this trigger\'s capture log, to enter in the Lead Rule Filter preview. Empty: the path.',
			},
			{
				displayName: 'Client Key',
				name: 'clientKey',
				displayOptions: { show: { '/captureLog': ['redis'] } },
				type: 'string',
				default: '',
				placeholder: 'acme',
				description:
					"Agencies: the client's slug; the capture log lives under {key prefix}:{client key}. Use the same value in the client's Lead Rule Filter and senders.",
			},
			{
				displayName: 'Default Country',
				name: 'defaultCountry',
				type: 'string',
				default: '',
				placeholder: 'US',
				description: 'Country used to judge phone numbers written without an international prefix',
			},
			{
				displayName: 'Derive Record ID When Missing',
				name: 'deriveRecordId',
				type: 'boolean',
				default: false,
				description:
					"Whether a delivery without an ID gets record_id = 'derived:' + SHA-256(form ID + '|' + normalized email, else E.164 phone). Same person, same form → same ID.",
			},
			{
				displayName: 'Form ID',
				name: 'formId',
				type: 'string',
				default: '',
				description: 'Form ID to record (and to derive record IDs with) when the delivery carries none',
			},
			{
				displayName: 'Location in Capture Log',
				name: 'captureLogLocation',
				displayOptions: { show: { '/captureLog': ['redis'] } },
				type: 'options',
				options: [
					{ name: 'None', value: 'none', description: 'No country, region or city in the log' },
					{ name: 'Country', value: 'country', description: 'Country codes only (the lead\'s, the visitor\'s, the phone number\'s)' },
					{ name: 'Country and Region', value: 'region', description: 'Countries and regions (states, provinces)' },
					{ name: 'Country, Region and City', value: 'city', description: 'Countries, regions and cities' },
				],
				default: 'country',
				description:
					'How much of the lead\'s location the capture log keeps for the rule preview. Conditions on a location field the log does not keep preview as "cannot answer"; live leads are checked in full.',
			},
			{
				displayName: 'Max Body Size (KB)',
				name: 'maxBodyKb',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 256,
				description: 'Larger deliveries are refused with 413',
			},
			{
				displayName: 'Signature Tolerance (Seconds)',
				name: 'toleranceSeconds',
				displayOptions: { hide: { '/source': ['script'], '/authentication': ['none'] } },
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 300,
				description:
					'For timestamped signatures (Calendly): older deliveries are refused as replays. Default: 180 s for Calendly, 300 s otherwise.',
			},
			{
				displayName: 'Trust Proxy Headers',
				name: 'trustProxy',
				type: 'boolean',
				default: false,
				description:
					'Whether to take the visitor IP from X-Forwarded-For / X-Real-IP. Turn on only behind a reverse proxy you control.',
			},
			{
				displayName: 'Trusted Proxies',
				name: 'trustedProxies',
				type: 'number',
				typeOptions: { minValue: 1, numberPrecision: 0 },
				default: 1,
				description:
					'With Trust Proxy Headers: how many proxies of yours the request passes before n8n (e.g. 2 for a CDN in front of nginx). The visitor IP is the X-Forwarded-For entry that many places from the right; entries further left are what the visitor sent.',
			},
		],
	},
	{
		// n8n parses webhook bodies itself before a trigger runs (and answers 422 to malformed
		// JSON) unless the trigger's `options.binaryData` is set; the capture core needs the raw
		// bytes untouched (signatures, size limit, its own 400 for malformed bodies). n8n 1.123
		// and 2.x (parseRequestBody in webhook-helpers, checked in 2.41.1) read this switch only
		// for a trigger at typeVersion 1: a version 2 of this node needs another way.
		displayName: 'Raw Body',
		name: 'options',
		type: 'hidden',
		default: { binaryData: true },
	},
];

export const SIGNED_PRESETS = PRESETS;

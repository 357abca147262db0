import type { INodeCredentialDescription, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { LEAD_RECORD_FIELDS } from '../../shared';

/**
 * An expression (without `={{ }}`) that reads as the label of the value `valueExpression` has
 * (an option's display name, or a label from a value → label map), or `fallback` (an
 * expression) for any other value. For subtitles: the canvas shows what a marketer picked,
 * never an internal value.
 */
export function optionNameExpression(
	valueExpression: string,
	labels: INodePropertyOptions[] | Record<string, string>,
	fallback: string,
): string {
	const pairs = Array.isArray(labels)
		? labels.map((option) => [option.value, option.name] as const)
		: Object.entries(labels);
	return pairs.reduceRight(
		(rest, [value, label]) =>
			`${valueExpression} === ${JSON.stringify(value)} ? ${JSON.stringify(label)} : ${rest}`,
		fallback,
	);
}

/**
 * A sender's subtitle as an expression (without `={{ }}`): "Event from lead state", "Event:
 * Complete Registration" (the display name of a standard event) or "Custom event: {name}".
 */
export function eventSubtitleExpression(standardEvents: INodePropertyOptions[]): string {
	const event = '$parameter["event"]';
	const named = optionNameExpression(event, standardEvents, event);
	return `${event} === "fromState" ? "Event from lead state" : ${event} === "fromStage" ? "Event from lead stage" : ${event} === "custom" ? "Custom event: " + $parameter["customEventName"] : "Event: " + (${named})`;
}

export function eventSubtitle(standardEvents: INodePropertyOptions[]): string {
	return `={{ ${eventSubtitleExpression(standardEvents)} }}`;
}

/**
 * The Event parameter of a sender: From Lead State (the default: the platform's row of the
 * event-name table), the platform's standard events, or a custom name.
 */
export function eventProperties(
	standardEvents: INodePropertyOptions[],
	fromStateDescription: string,
	customEvent: { placeholder?: string; description?: string } = {},
): INodeProperties[] {
	const options = [
		...standardEvents,
		{ name: 'Custom Event', value: 'custom' },
		{ name: 'From Lead State', value: 'fromState', description: fromStateDescription },
		{
			name: 'From Lead Stage',
			value: 'fromStage',
			description:
				"The lead's CRM stage (the record's stage field, e.g. Qualified) as a custom event: one event per stage per lead (see docs/stages.md)",
		},
	].sort((a, b) => a.name.localeCompare(b.name));
	return [
		{
			displayName: 'Event',
			name: 'event',
			type: 'options',
			noDataExpression: true,
			options,
			default: 'fromState',
		},
		{
			displayName: 'Custom Event Name',
			name: 'customEventName',
			type: 'string',
			default: '',
			required: true,
			placeholder: customEvent.placeholder ?? 'PartialLead',
			...(customEvent.description ? { description: customEvent.description } : {}),
			displayOptions: { show: { event: ['custom'] } },
		},
	];
}

/*
 * Properties every sender node shares. A sender node's description is its platform-specific
 * properties plus these.
 */

/** Click ids keep the names the ad platforms give them (fbclid, gclid, …). */
const CLICK_PARTS: ReadonlySet<string> = new Set(['click']);
const WORDS: Record<string, string> = { id: 'ID', ip: 'IP', url: 'URL' };

function titleWords(part: string): string {
	return part
		.split('_')
		.map((word) => WORDS[word] ?? word.charAt(0).toUpperCase() + word.slice(1))
		.join(' ');
}

/** "contact.first_name" → "Contact: First Name"; "click.gclid" → "Click: gclid". */
export function leadFieldLabel(path: string): string {
	const [group, field] = path.split('.');
	if (field === undefined) return titleWords(group);
	const name = CLICK_PARTS.has(group) && !field.includes('_') ? field : titleWords(field);
	return `${titleWords(group)}: ${name}`;
}

/** The lead record fields as options: a readable name, the record path as the description. */
export const LEAD_FIELD_OPTIONS: INodePropertyOptions[] = LEAD_RECORD_FIELDS.map((path) => ({
	name: leadFieldLabel(path),
	value: path,
	description: path,
}));

export const leadInputProperties: INodeProperties[] = [
	{
		displayName: 'Lead Fields',
		name: 'leadInput',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Read Lead Record From Input',
				value: 'record',
				description:
					'Each input item is a canonical lead record, as the Lead Capture Trigger emits it. Fastest: nothing is evaluated per item.',
			},
			{
				name: 'Map Fields',
				value: 'map',
				description:
					'Start from the input record and set only the fields you choose with expressions (for CRM or form payloads)',
			},
		],
		default: 'record',
	},
	{
		displayName: 'Fields to Set',
		name: 'fieldOverrides',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Field',
		default: {},
		displayOptions: { show: { leadInput: ['map'] } },
		description:
			'Only these fields are evaluated per item; every other field is read from the input record',
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
						displayName: 'Value',
						name: 'value',
						type: 'string',
						default: '',
						placeholder: '={{ $json.email }}',
					},
				],
			},
		],
	},
];

export const dedupProperties: INodeProperties[] = [
	{
		displayName: 'Deduplication',
		name: 'dedupStore',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Redis (Recommended)',
				value: 'redis',
				description:
					'Claims each event in Redis before sending: exactly once across re-runs, retries, workflows and queue-mode workers',
			},
			{
				name: 'In-Memory (Single Process)',
				value: 'memory',
				description: 'Dedup within this n8n process; forgotten on restart, not shared by workers',
			},
			{
				name: 'Off',
				value: 'off',
				description: 'No dedup: every run sends again (the platform may or may not drop repeats)',
			},
		],
		default: 'redis',
	},
	{
		displayName:
			'Dedup is off: re-running this workflow or a retried webhook sends the same events again',
		name: 'dedupOffNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { dedupStore: ['off'] } },
	},
];

/** Options every sender has; platform options are merged in and the result sorted by name. */
const commonOptions: INodeProperties[] = [
	{
		displayName: 'After an Unknown Outcome',
		name: 'afterUnknownOutcome',
		type: 'options',
		options: [
			{
				name: 'Platform Default',
				value: 'auto',
				description:
					'Resend with the same event ID where the platform drops such a resend (TikTok, Google); hold elsewhere (Meta, Pinterest, Microsoft)',
			},
			{
				name: 'Hold',
				value: 'hold',
				description:
					'Never resend an event whose request went out without an answer: it is reported outcome_unknown and held, so re-runs do not send it',
			},
			{
				name: 'Resend',
				value: 'resend',
				description:
					'Resend such events with the same event ID, also those earlier runs held (the platform may count one twice)',
			},
		],
		default: 'auto',
		description:
			'What to do with an event whose request went out and got no answer (timed out, connection dropped): the platform may have it already',
	},
	{
		displayName: 'Batch Size',
		name: 'batchSize',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 1000,
		description: 'Most events per request (capped at the platform maximum)',
	},
	{
		displayName: 'Client Key',
		name: 'clientKey',
		type: 'string',
		default: '',
		placeholder: 'acme',
		description:
			"Agencies: a short slug per client (letters, digits, . _ -). Every dedup key and health counter of this node lives under {key prefix}:{client key}, so clients never dedup or report against each other. Use the same value in the client's Lead Capture Trigger and Lead Rule Filter.",
	},
	{
		displayName: 'Dedup TTL (Days)',
		name: 'dedupTtlDays',
		displayOptions: { hide: { '/dedupStore': ['off'] } },
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 30,
		description:
			'How long a sent event is remembered. Keep it longer than the platform event window (Meta: 7 days).',
	},
	{
		displayName: 'Default Country',
		name: 'defaultCountry',
		type: 'string',
		default: '',
		placeholder: 'US',
		description:
			'Country used to read phone numbers without an international prefix when the lead has no country of its own',
	},
	{
		displayName: 'Dry Run',
		name: 'dryRun',
		type: 'boolean',
		default: false,
		description: 'Whether to only build the exact payloads and return them, without claiming or sending anything',
	},
	{
		displayName: 'Event Window Policy',
		name: 'eventWindowPolicy',
		type: 'options',
		options: [
			{
				name: 'Skip',
				value: 'skip',
				description: "Do not send events older than the platform's window (status skipped, with the window in the reason)",
			},
			{
				name: 'Clamp to Window',
				value: 'clamp',
				description: 'Where the platform documents its window (Meta): send older events with the oldest accepted time, with a warning. Elsewhere such events are skipped.',
			},
		],
		default: 'skip',
	},
	{
		displayName: 'If Dedup Store Is Unavailable',
		name: 'dedupFailMode',
		displayOptions: { show: { '/dedupStore': ['redis'] } },
		type: 'options',
		options: [
			{
				name: 'Fail the Items (Fail Closed)',
				value: 'closed',
				description: 'Send nothing; every item fails with a message naming the dedup store',
			},
			{
				name: 'Send Anyway (Fail Open)',
				value: 'open',
				description:
					"Send without a claim, marked dedup: bypassed, relying on the platform's own event ID dedup",
			},
		],
		default: 'closed',
	},
	{
		displayName: 'Include Payload',
		name: 'includePayload',
		type: 'boolean',
		default: false,
		description: 'Whether to add the exact event sent to each output item',
	},
	{
		displayName: 'Keep a Stage Ledger',
		name: 'stageLedger',
		displayOptions: { hide: { '/dedupStore': ['off'] } },
		type: 'boolean',
		default: true,
		description:
			"Whether to record each lead's sent events and stages (IDs and times, no personal data) beside the dedup keys: a stage is sent once even after its dedup key expired, skipped and out-of-order stages are warned about, and Google adjustments find the original conversion (see docs/stages.md)",
	},
	{
		displayName: 'Stage Ledger TTL (Days)',
		name: 'ledgerTtlDays',
		displayOptions: { hide: { '/dedupStore': ['off'] } },
		type: 'number',
		typeOptions: { minValue: 90 },
		default: 180,
		description: "How long a lead's stage ledger is kept after its last event (at least 90 days)",
	},
	{
		displayName: 'Stage Order',
		name: 'stageOrder',
		displayOptions: { hide: { '/dedupStore': ['off'] } },
		type: 'string',
		default: '',
		placeholder: 'Lead, Qualified, Booked, Won',
		description:
			"Your pipeline's stages in order (comma-separated event names). A stage sent while an earlier one was never sent, or after a later one, gets a warning (Meta asks for every stage change).",
	},
	{
		displayName: 'Lead Record Field',
		name: 'recordField',
		type: 'string',
		default: '',
		placeholder: 'lead',
		description:
			'Where the lead record is inside each input item (dot notation). Leave empty when the item itself is the record.',
	},
];

export function senderOptions(platformOptions: INodeProperties[]): INodeProperties {
	const options = [...commonOptions, ...platformOptions].sort((a, b) =>
		a.displayName.localeCompare(b.displayName),
	);
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options,
	};
}

/** Senders with Redis dedup queue retryable failures in the encrypted outbox (docs/outbox.md). */
export const outboxProperties: INodeProperties[] = [
	{
		displayName: 'Retry Failed Sends Later',
		name: 'retryLater',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Queue in Outbox',
				value: 'outbox',
				description:
					'An event the platform cannot take now (down, throttled) is kept, encrypted, in Redis and sent by the Lead CAPI Outbox Trigger later; needs an Outbox Key credential',
			},
			{
				name: 'Off',
				value: 'off',
				description:
					'Such events are output as failed (retryable); re-run the execution to send them',
			},
		],
		default: 'outbox',
		hint: 'Queues only with an Outbox Key credential selected above (npm run dev creates one named Outbox Key). Without one, such events are output as failed (retryable) and say so.',
		displayOptions: { show: { dedupStore: ['redis'] } },
	},
	{
		displayName: 'Deliver',
		name: 'deliver',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Now', value: 'now', description: 'Send in this execution' },
			{
				name: 'Via Outbox',
				value: 'outbox',
				description:
					'Queue the built event, due at once; the Lead CAPI Outbox Trigger sends what has gathered in platform-sized batches (one request per batch instead of one per execution)',
			},
		],
		default: 'now',
		displayOptions: { show: { dedupStore: ['redis'], retryLater: ['outbox'] } },
	},
];

/**
 * The credentials every sender declares after its platform's own (written in the node itself, so
 * that n8n's lint sees its test): the dedup Redis when the dedup store is Redis, and the Outbox
 * Key when retries go to the outbox. Their tests are SENDER_CREDENTIAL_TESTS (credentialTests.ts).
 */
export const SENDER_STORE_CREDENTIALS: INodeCredentialDescription[] = [
	{
		name: 'leadCapiRedisApi',
		required: true,
		testedBy: 'leadCapiRedisConnectionTest',
		displayOptions: { show: { dedupStore: ['redis'] } },
	},
	{
		name: 'leadCapiOutboxApi',
		required: false,
		testedBy: 'leadCapiOutboxKeyTest',
		displayOptions: { show: { dedupStore: ['redis'], retryLater: ['outbox'] } },
	},
];

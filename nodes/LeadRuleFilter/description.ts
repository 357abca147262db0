import type { INodeProperties } from 'n8n-workflow';
import {
	CASE_SENSITIVE_MATCH_TYPES,
	MAX_CONDITIONS,
	MAX_REGEX_CONDITIONS,
	PATTERN_FREE_MATCH_TYPES,
} from '../../shared';
import { optionNameExpression } from '../common/descriptions';

/** What each send mode does, in the words of the canvas subtitle. */
const SEND_MODE_SUBTITLES: Record<string, string> = {
	booking: 'Send bookings',
	automatic_partial: 'Send completed and partial leads',
	automatic_completed: 'Send completed leads',
	manual: 'Send approved leads',
	automatic_match: 'Send matching leads',
};

export const ruleFilterSubtitle = `={{ $parameter["operation"] === "preview" ? "Preview: last 7 days" : ${optionNameExpression('$parameter["sendMode"]', SEND_MODE_SUBTITLES, '"Send or skip leads"')} }}`;

/**
 * The outputs: Send and Skip when filtering; one output named Preview when previewing (the
 * report is no lead to send).
 */
export const ruleFilterOutputs = `={{ $parameter["operation"] === "preview" ? [{ "type": "main", "displayName": "Preview" }] : [{ "type": "main", "displayName": "Send" }, { "type": "main", "displayName": "Skip" }] }}`;

export const ruleFilterProperties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Filter Leads',
				value: 'filter',
				action: 'Route each lead to send or skip',
				description: 'Route each lead to Send or Skip',
			},
			{
				name: 'Preview on Last 7 Days',
				value: 'preview',
				action: 'Preview the rules on the captures of the last 7 days',
				description:
					"Count how many of the last 7 days' captures these settings would have sent, from the trigger's capture log",
			},
		],
		default: 'filter',
	},
	{
		displayName: 'Send Mode',
		name: 'sendMode',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Booking',
				value: 'booking',
				description: 'Send bookings (state schedule) only',
			},
			{
				name: 'Completed and All Partial Leads',
				value: 'automatic_partial',
				description: 'Send every capture, partial or completed',
			},
			{
				name: 'Completed Leads Only',
				value: 'automatic_completed',
				description: 'Send completed submissions; skip partial captures',
			},
			{
				name: 'Manual Approval',
				value: 'manual',
				description: 'Send only leads an earlier step has explicitly approved',
			},
			{
				name: 'Rules',
				value: 'automatic_match',
				description: 'Send what matches the rules below (by default: completed leads plus qualified partials)',
			},
		],
		default: 'automatic_completed',
	},
	{
		displayName: 'Rules Apply To',
		name: 'rulesApplyTo',
		type: 'options',
		options: [
			{
				name: 'Partial Leads (Completed Always Sent)',
				value: 'partial',
				description: 'Completed leads are sent; partial captures only when they match',
			},
			{ name: 'All Leads', value: 'all', description: 'Every lead must match to be sent' },
		],
		default: 'partial',
		displayOptions: { show: { sendMode: ['automatic_match'] } },
	},
	{
		displayName: 'Combine Conditions',
		name: 'combinator',
		type: 'options',
		options: [
			{ name: 'All Must Match (AND)', value: 'and' },
			{ name: 'Any Must Match (OR)', value: 'or' },
		],
		default: 'and',
		displayOptions: { show: { sendMode: ['automatic_match'] } },
	},
	{
		displayName: 'Conditions',
		name: 'rules',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Condition',
		default: {},
		description: `Up to ${MAX_CONDITIONS} conditions, ${MAX_REGEX_CONDITIONS} of them regexes; each lead gets a bounded amount of rule work (see the rule budgets in the docs)`,
		displayOptions: { show: { sendMode: ['automatic_match'] } },
		options: [
			{
				name: 'condition',
				displayName: 'Condition',
				values: [
					{
						displayName: 'Field',
						name: 'field',
						type: 'string',
						default: 'source.page_url',
						placeholder: 'attributes.utm_source',
						description:
							'Dotted path in the lead record. Stage conditions: stage, previous_stage, and days_since_lead_created (from lead_created_at to stage_at).',
					},
					{
						displayName: 'Match',
						name: 'matchType',
						type: 'options',
						options: [
							{ name: 'Contains', value: 'contains' },
							{ name: 'Email Domain In', value: 'email_domain_in' },
							{ name: 'Ends With', value: 'ends_with' },
							{ name: 'Equals', value: 'equals' },
							{ name: 'Exists', value: 'exists' },
							{ name: 'Greater Than', value: 'greater_than' },
							{ name: 'In List', value: 'in_list' },
							{ name: 'Is Work Email', value: 'is_work_email' },
							{ name: 'Less Than', value: 'less_than' },
							{ name: 'Not Contains', value: 'not_contains' },
							{ name: 'Not Equals', value: 'not_equals' },
							{ name: 'Not Exists', value: 'not_exists' },
							{ name: 'Not In List', value: 'not_in_list' },
							{ name: 'Regex', value: 'regex' },
							{ name: 'Starts With', value: 'starts_with' },
						],
						default: 'contains',
					},
					{
						displayName: 'Pattern',
						name: 'pattern',
						type: 'string',
						default: '',
						placeholder: '/pricing',
						description:
							'In List, Not In List and Email Domain In: items separated by commas or new lines. Greater Than and Less Than: a number or an ISO date.',
						displayOptions: { hide: { matchType: [...PATTERN_FREE_MATCH_TYPES] } },
					},
					{
						displayName: 'Case Sensitive',
						name: 'caseSensitive',
						type: 'boolean',
						default: false,
						description: 'Whether to compare text with case',
						displayOptions: { show: { matchType: [...CASE_SENSITIVE_MATCH_TYPES] } },
					},
				],
			},
		],
	},
	{
		displayName: 'Approval Field',
		name: 'approvalField',
		type: 'string',
		default: 'attributes.approved',
		description: 'Dotted path that an earlier step sets to true (or "yes", "approved", 1) to approve a lead',
		displayOptions: { show: { sendMode: ['manual'] } },
	},
	{
		displayName: 'Capture Log Name',
		name: 'captureLogName',
		type: 'string',
		default: 'lead-capture',
		required: true,
		description:
			"The Lead Capture Trigger's capture log: its Capture Log Name setting, or its path when that is empty",
		displayOptions: { show: { operation: ['preview'] } },
	},
	{
		displayName: 'Client Key',
		name: 'previewClientKey',
		type: 'string',
		default: '',
		placeholder: 'acme',
		description:
			"Agencies: the Client Key set in the client's Lead Capture Trigger, if any; the preview reads only that client's captures",
		displayOptions: { show: { operation: ['preview'] } },
	},
	{
		displayName: 'Trigger Workflow ID',
		name: 'previewWorkflowId',
		type: 'string',
		default: '',
		placeholder: 'e.g. 8xKq3V0aB1cD2eF4',
		description:
			'Capture logs are kept per workflow. Empty: the Lead Capture Trigger of this workflow. Else the ID of the workflow whose trigger keeps the log (in its URL after /workflow/).',
		displayOptions: { show: { operation: ['preview'] } },
	},
	{
		displayName: 'Stage Facts',
		name: 'stageFacts',
		type: 'options',
		options: [
			{
				name: 'From the Lead Record',
				value: 'record',
				description: "The record's own lead_created_at and previous_stage (map them from the CRM)",
			},
			{
				name: 'From the Stage Ledger (Redis)',
				value: 'ledger',
				description:
					"Where the record is silent, the lead's creation time and previous stage as the stage ledger of a sender's destination holds them (one Redis round trip per batch)",
			},
		],
		default: 'record',
		description:
			'Where the stage conditions (days_since_lead_created, previous_stage) find what the record does not say',
		displayOptions: { show: { operation: ['filter'], sendMode: ['automatic_match'] } },
	},
	{
		displayName: 'Ledger Platform',
		name: 'ledgerPlatform',
		type: 'options',
		options: [
			{ name: 'Google Ads', value: 'google' },
			{ name: 'Meta', value: 'meta' },
			{ name: 'Microsoft Advertising', value: 'microsoft' },
			{ name: 'Pinterest', value: 'pinterest' },
			{ name: 'TikTok', value: 'tiktok' },
		],
		default: 'meta',
		description: 'The platform of the sender whose stage ledger to read (each destination keeps its own)',
		displayOptions: { show: { operation: ['filter'], sendMode: ['automatic_match'], stageFacts: ['ledger'] } },
	},
	{
		displayName: 'Ledger Destination ID',
		name: 'ledgerDestination',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 123456789012345',
		description:
			"The sender's destination: Meta dataset (pixel) ID, Google conversion action resource name, TikTok pixel code, Pinterest ad account ID, Microsoft UET tag ID",
		displayOptions: { show: { operation: ['filter'], sendMode: ['automatic_match'], stageFacts: ['ledger'] } },
	},
	{
		displayName: 'Ledger Client Key',
		name: 'ledgerClientKey',
		type: 'string',
		default: '',
		placeholder: 'acme',
		description: "Agencies: the Client Key set in that sender's options, if any",
		displayOptions: { show: { operation: ['filter'], sendMode: ['automatic_match'], stageFacts: ['ledger'] } },
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show: { operation: ['filter'] } },
		options: [
			{
				displayName: 'Lead Record Field',
				name: 'recordField',
				type: 'string',
				default: '',
				placeholder: 'lead',
				description:
					'Where the lead record is inside each input item (dot notation). Leave empty when the item itself is the record.',
			},
		],
	},
];

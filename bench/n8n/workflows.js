// @ts-check
/**
 * The workflows of the n8n bench (bench/n8n.js), as n8n's import:workflow reads them.
 *
 * Every execute-bench workflow starts with a Manual Trigger and a Code node ("Make Leads")
 * that returns N canonical lead records: the bench's one lead generator
 * (bench/lib/leads.js `generateLeads`, self-contained, its source pasted in), so the items in
 * n8n are exactly the leads the core runs outside n8n get. Only the nodes after it are
 * measured. The trigger-bench workflows start with our Lead Capture Trigger or n8n's Webhook
 * node, followed by a NoOp.
 */
const { randomUUID } = require('node:crypto');
const { generateLeads } = require('../lib/leads.js');

const PKG = 'n8n-nodes-lead-capi';

/** Credential ids/names the workflows refer to (bench/n8n.js imports them). */
const CREDENTIALS = {
	meta: { id: 'benchMetaCred001', name: 'Meta (bench stand-in)' },
	redis: { id: 'benchRedisCred01', name: 'Dedup Redis (bench)' },
	/** The same Redis through the bench's counting proxy (bench/lib/redisProxy.js). */
	redisCounted: { id: 'benchRedisCount1', name: 'Dedup Redis (bench, commands counted)' },
};

/**
 * @param {string} name
 * @param {string} type
 * @param {number} typeVersion
 * @param {number} x
 * @param {Record<string, unknown>} parameters
 * @param {Record<string, unknown>} [extra]
 */
function node(name, type, typeVersion, x, parameters, extra = {}) {
	return { id: randomUUID(), name, type, typeVersion, position: [x, 0], parameters, ...extra };
}

/** @param {string[]} names */
function chain(...names) {
	/** @type {Record<string, unknown>} */
	const connections = {};
	for (let i = 0; i < names.length - 1; i++) {
		connections[names[i]] = { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] };
	}
	return connections;
}

/**
 * The Code node that makes the N records (its time is not counted). Once per run whatever its
 * input, so a second one further down a workflow makes N fresh records.
 * @param {number} n
 * @param {number} nowMs
 * @param {string} idPrefix
 * @param {string} [name]
 */
function makeLeadsNode(n, nowMs, idPrefix, name = 'Make Leads') {
	const jsCode = [
		`const generateLeads = ${generateLeads.toString()};`,
		`return generateLeads(${n}, ${JSON.stringify({ idPrefix, nowMs })}).map((json) => ({ json }));`,
	].join('\n');
	return node(name, 'n8n-nodes-base.code', 2, 200, { mode: 'runOnceForAllItems', language: 'javaScript', jsCode });
}

/**
 * A Manual Trigger → Make Leads → measured nodes workflow.
 * @param {string} id 16 characters
 * @param {string} name
 * @param {{ n: number, nowMs: number, idPrefix: string }} leads
 * @param {Array<ReturnType<typeof node>>} measured in order
 */
function executeWorkflowJson(id, name, leads, measured) {
	const nodes = [
		node('Start', 'n8n-nodes-base.manualTrigger', 1, 0, {}),
		makeLeadsNode(leads.n, leads.nowMs, leads.idPrefix),
		...measured.map((m, i) => ({ ...m, position: [400 + 200 * i, 0] })),
	];
	return {
		id,
		name,
		nodes,
		connections: chain(...nodes.map((n) => n.name)),
		settings: { executionOrder: 'v1' },
	};
}

/**
 * Our Meta Conversions node with the defaults (event From Lead State, action source Auto,
 * dedup Redis); `fieldOverrides` switches Lead Fields to Map Fields. Continue On Fail: leads
 * without enough customer information come out as failed items instead of failing the run.
 * @param {Array<{ path: string, value: string }>} [fieldOverrides]
 * @param {string} [name]
 * @param {{ options?: Record<string, unknown>, redis?: { id: string, name: string } }} [more] node
 *   options (e.g. batchSize) and the Redis credential (default CREDENTIALS.redis)
 */
function metaNode(fieldOverrides, name = 'Meta Conversions', more = {}) {
	const options = more.options ?? {};
	const parameters = fieldOverrides
		? { event: 'fromState', actionSource: 'auto', leadInput: 'map', fieldOverrides: { field: fieldOverrides }, dedupStore: 'redis', options }
		: { event: 'fromState', actionSource: 'auto', leadInput: 'record', dedupStore: 'redis', options };
	return node(name, `${PKG}.metaConversions`, 1, 0, parameters, {
		credentials: { leadCapiMetaApi: CREDENTIALS.meta, leadCapiRedisApi: more.redis ?? CREDENTIALS.redis },
		onError: 'continueRegularOutput',
	});
}

/** The mapped fields of the "3 mapped fields" variant. */
const MAPPED_FIELDS = [
	{ path: 'contact.email', value: '={{ $json.contact.email }}' },
	{ path: 'contact.phone', value: '={{ $json.contact.phone }}' },
	{ path: 'record_id', value: '={{ $json.record_id }}' },
];

/**
 * The hand-rolled flow's Code node, written the way users write it: per item, trim/lowercase
 * and SHA-256 (Node's crypto, which the Code node may require with
 * NODE_FUNCTION_ALLOW_BUILTIN=crypto) of email, the phone's digits, names, city, country and
 * the record id; event name from the state; fbc from fbclid; value as custom_data.
 */
const HAND_ROLLED_CODE = `const crypto = require('crypto');
const sha = (value) => crypto.createHash('sha256').update(value).digest('hex');
const clean = (value) => String(value ?? '').trim().toLowerCase();
const EVENTS = { lead: 'Lead', contact: 'Contact', schedule: 'Schedule', registration: 'CompleteRegistration', purchase: 'Purchase' };
return $input.all().map(({ json: lead }) => {
  const c = lead.contact || {};
  const click = lead.click || {};
  const user = {};
  const email = clean(c.email);
  if (email.includes('@')) user.em = [sha(email)];
  const phone = String(c.phone ?? '').replace(/\\D/g, '');
  if (phone.length >= 7) user.ph = [sha(phone)];
  if (c.first_name) user.fn = [sha(clean(c.first_name))];
  if (c.last_name) user.ln = [sha(clean(c.last_name))];
  if (c.city) user.ct = [sha(clean(c.city).replace(/\\s/g, ''))];
  if (c.country) user.country = [sha(clean(c.country))];
  user.external_id = [sha(String(c.external_id ?? lead.record_id))];
  if (click.fbp) user.fbp = click.fbp;
  if (click.fbclid) user.fbc = 'fb.1.' + Date.parse(lead.occurred_at) + '.' + click.fbclid;
  const web = Boolean(lead.source && lead.source.page_url && lead.client && lead.client.user_agent);
  if (web) {
    user.client_user_agent = lead.client.user_agent;
    user.client_ip_address = lead.client.ip;
  }
  return {
    json: {
      event_name: EVENTS[lead.state] || 'Lead',
      event_id: String(lead.record_id),
      event_time: Math.floor(Date.parse(lead.occurred_at) / 1000),
      action_source: web ? 'website' : 'system_generated',
      event_source_url: web ? lead.source.page_url : '',
      user_data: user,
      custom_data: lead.value ? { value: Number(lead.value.amount), currency: lead.value.currency } : {},
    },
  };
});`;

/**
 * n8n's HTTP Request node, one request per item (its default: every item's request started
 * at once, no batching), the JSON body built by expressions, one per field.
 * @param {string} eventsUrl the stand-in's events endpoint
 * @param {string} token the stand-in's access token (in the body, as Meta accepts it)
 */
function httpRequestNode(eventsUrl, token) {
	const jsonBody =
		'={ "data": [ { "event_name": "{{ $json.event_name }}", "event_time": {{ $json.event_time }}, ' +
		'"event_id": "{{ $json.event_id }}", "action_source": "{{ $json.action_source }}", ' +
		'"event_source_url": {{ JSON.stringify($json.event_source_url) }}, ' +
		'"user_data": {{ JSON.stringify($json.user_data) }}, "custom_data": {{ JSON.stringify($json.custom_data) }} } ], ' +
		`"access_token": ${JSON.stringify(token)} }`;
	return node('HTTP Request', 'n8n-nodes-base.httpRequest', 4.2, 0, {
		method: 'POST',
		url: eventsUrl,
		sendBody: true,
		specifyBody: 'json',
		jsonBody,
		options: {},
	});
}

/** The variants of the execute bench, each with the nodes it measures (after Make Leads). */
const VARIANTS = /** @type {const} */ (['noop', 'ours', 'warm', 'mapped', 'handRolled']);
/** @typedef {typeof VARIANTS[number]} Variant */

/**
 * A workflow id n8n's `execute --id` accepts (at most 16 characters): e.g. benchOurs0000R01.
 * @param {Variant} variant @param {number} rep
 */
function workflowId(variant, rep) {
	return `bench${variant[0].toUpperCase()}${variant.slice(1)}`.slice(0, 13).padEnd(13, '0') + `R${String(rep).padStart(2, '0')}`;
}

/**
 * The execute-bench workflows: one per variant and repetition (each repetition sends fresh
 * record ids), all imported at once. The same workflow run a second time is the duplicates run.
 * @param {{ n: number, nowMs: number, runTag: string, eventsUrl: string, token: string, reps: number }} o
 * @returns {{ workflows: Array<ReturnType<typeof executeWorkflowJson>>, ids: Record<Variant, string[]> }}
 */
function executeWorkflows(o) {
	/** @type {Record<Variant, (leads: { n: number, nowMs: number, idPrefix: string }) => ReturnType<typeof executeWorkflowJson>>} */
	const make = {
		noop: (leads) => executeWorkflowJson('', 'bench: leads → NoOp', leads, [node('No Operation', 'n8n-nodes-base.noOp', 1, 0, {})]),
		ours: (leads) => executeWorkflowJson('', 'bench: leads → Meta Conversions (default mapping)', leads, [metaNode()]),
		// The same node a second time in the same execution, on fresh leads: warm (JIT, the
		// Redis connection), as in every execution after the first of a long-running n8n.
		warm: (leads) =>
			executeWorkflowJson('', 'bench: leads → Meta Conversions → leads → Meta Conversions 2 (warm)', leads, [
				metaNode(),
				makeLeadsNode(leads.n, leads.nowMs, `${leads.idPrefix}-2`, 'Make Leads 2'),
				metaNode(undefined, 'Meta Conversions 2'),
			]),
		mapped: (leads) => executeWorkflowJson('', 'bench: leads → Meta Conversions (3 mapped fields)', leads, [metaNode(MAPPED_FIELDS)]),
		handRolled: (leads) =>
			executeWorkflowJson('', 'bench: leads → Code (hash) → HTTP Request', leads, [
				node('Hash Fields', 'n8n-nodes-base.code', 2, 0, { mode: 'runOnceForAllItems', language: 'javaScript', jsCode: HAND_ROLLED_CODE }),
				httpRequestNode(o.eventsUrl, o.token),
			]),
	};
	const workflows = [];
	/** @type {Record<Variant, string[]>} */
	const ids = { noop: [], ours: [], warm: [], mapped: [], handRolled: [] };
	for (let rep = 0; rep < o.reps; rep++) {
		for (const variant of VARIANTS) {
			const id = workflowId(variant, rep);
			const workflow = make[variant]({ n: o.n, nowMs: o.nowMs, idPrefix: `${o.runTag}-${variant}-r${rep}` });
			workflows.push({ ...workflow, id, name: `${workflow.name} #${rep + 1}` });
			ids[variant].push(id);
		}
	}
	return { workflows, ids };
}

/**
 * The command-count workflows: Make Leads → our Meta node with its defaults but Batch Size
 * `size`, through the counting Redis credential; `batches × size` leads each, so every batch size
 * runs the same number of batches. Ids: benchCount<size>.
 * @param {{ nowMs: number, runTag: string, batchSizes: number[], batches: number }} o
 * @returns {Array<{ size: number, n: number, workflow: ReturnType<typeof executeWorkflowJson> }>}
 */
function countedWorkflows(o) {
	return o.batchSizes.map((size) => {
		const n = size * o.batches;
		const id = `benchCount${String(size).padStart(6, '0')}`;
		const meta = metaNode(undefined, 'Meta Conversions', { options: { batchSize: size }, redis: CREDENTIALS.redisCounted });
		const workflow = executeWorkflowJson(id, `bench: ${n} leads → Meta Conversions, batches of ${size} (commands counted)`, { n, nowMs: o.nowMs, idPrefix: `${o.runTag}-count-${size}` }, [meta]);
		return { size, n, workflow };
	});
}

/**
 * The trigger-bench workflows (to activate), each with its webhook path: our Lead Capture
 * Trigger (Generic Webhook, no authentication, capture log off) and n8n's Webhook node (POST,
 * respond immediately), each followed by a NoOp.
 */
function triggerWorkflows() {
	const noOp = node('No Operation', 'n8n-nodes-base.noOp', 1, 200, {});
	const ours = node('Lead Capture Trigger', `${PKG}.leadCaptureTrigger`, 1, 0, {
		source: 'generic',
		path: 'bench-capture',
		authentication: 'none',
		captureLog: 'off',
		settings: {},
	}, { webhookId: randomUUID() });
	const webhook = node('Webhook', 'n8n-nodes-base.webhook', 2, 0, {
		httpMethod: 'POST',
		path: 'bench-webhook',
		responseMode: 'onReceived',
		options: {},
	}, { webhookId: randomUUID() });
	return {
		ours: {
			path: 'bench-capture',
			workflow: {
				id: 'benchN8nCapture1',
				name: 'bench: Lead Capture Trigger → NoOp',
				nodes: [ours, noOp],
				connections: chain(ours.name, noOp.name),
				settings: { executionOrder: 'v1' },
			},
		},
		webhook: {
			path: 'bench-webhook',
			workflow: {
				id: 'benchN8nWebhook1',
				name: 'bench: Webhook → NoOp',
				nodes: [webhook, { ...noOp, id: randomUUID() }],
				connections: chain(webhook.name, noOp.name),
				settings: { executionOrder: 'v1' },
			},
		},
	};
}

module.exports = { CREDENTIALS, VARIANTS, executeWorkflows, countedWorkflows, triggerWorkflows, MAPPED_FIELDS, makeLeadsNode };

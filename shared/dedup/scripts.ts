import type { StatsIncrements } from '../stats/stats';
import type { SettleRequest } from './types';

/*
 * The Redis store's Lua scripts and how their arguments are laid out. Key values: `c:<token>`
 * while claimed (short TTL), `s` once committed (long TTL), `u` held after an unknown outcome
 * (long TTL, like `s`). Nothing else is stored: no personal data ever reaches Redis, only hashed
 * event ids in key names. Every key a script touches is in its KEYS (one hash slot in a
 * cluster); what an event needs beyond its keys rides in one JSON argument (Redis' Lua has
 * cjson), so a batch of 1,000 is a few thousand arguments, not tens of thousands.
 */

/**
 * KEYS = keys to claim (ARGV[4] of them), then stage ledger keys; ARGV[1] = claim value, ARGV[2] =
 * claim TTL ms, ARGV[3] = '1' to take held keys too, ARGV[4] = number of keys to claim, ARGV[5] =
 * JSON list, per ledger key, of the index of its key to claim ('' without ledger keys). Returns
 * { codes, ledgers }: per key 0 claimed (also when this owner already holds it), 1 sent, 2 in
 * flight (another owner's live claim), 3 held after an unknown outcome (not taken); per ledger
 * key, when its key was claimed, the hash (HGETALL, empty when none) or the error that read it
 * (text), else false.
 */
export const CLAIM_SCRIPT = `
local n = tonumber(ARGV[4])
local out = {}
for i = 1, n do
  local key = KEYS[i]
  if redis.call('SET', key, ARGV[1], 'NX', 'PX', ARGV[2]) then
    out[i] = 0
  else
    local v = redis.call('GET', key)
    if v == false then
      redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
      out[i] = 0
    elseif v == 's' then
      out[i] = 1
    elseif v == ARGV[1] then
      out[i] = 0
    elseif v == 'u' then
      if ARGV[3] == '1' then
        redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
        out[i] = 0
      else
        out[i] = 3
      end
    else
      out[i] = 2
    end
  end
end
local ledgers = {}
if #KEYS > n then
  local gates = cjson.decode(ARGV[5])
  for l = 1, #KEYS - n do
    ledgers[l] = false
    if out[gates[l]] == 0 then
      local hash = redis.pcall('HGETALL', KEYS[n + l])
      if hash.err then ledgers[l] = hash.err else ledgers[l] = hash end
    end
  end
end
return { out, ledgers }
`;

/**
 * KEYS = commit keys (ARGV[3] of them), then hold keys (ARGV[4]), then release keys, then the
 * stage ledger keys (one per ledger write), then the stats key (when ARGV[5] is set);
 * ARGV[1] = claim value, ARGV[2] = committed TTL ms, ARGV[5] = the counters as JSON
 * [TTL ms, platform, destination, {field: increment, …}] or ''; from ARGV[6], one JSON per ledger
 * write: [index of the gating commit key, TTL ms, {set field: value, …}, {set-if-absent field:
 * value, …}]. The dedup keys are read with one MGET per 1,000. A ledger key is written
 * only when its gating commit lands: one HMGET of its set-if-absent fields, one HSET of the set
 * fields and of the set-if-absent fields it lacks, one PEXPIRE. Returns per dedup key 1 (done)
 * or 0 (owned by someone else). A commit (or hold) also lands when our claim already expired and
 * nobody took the key: the event was sent (or may have been).
 */
export const SETTLE_SCRIPT = `
local out = {}
local ncommit = tonumber(ARGV[3])
local nhold = tonumber(ARGV[4])
local stats = false
if ARGV[5] ~= '' then stats = cjson.decode(ARGV[5]) end
local nledger = #ARGV - 5
local nkeys = #KEYS - nledger
if stats then nkeys = nkeys - 1 end
local values = {}
for s = 1, nkeys, 1000 do
  local got = redis.call('MGET', unpack(KEYS, s, math.min(s + 999, nkeys)))
  for k = 1, #got do values[s + k - 1] = got[k] end
end
for i = 1, nkeys do
  local key = KEYS[i]
  local v = values[i]
  if i <= ncommit then
    if v == ARGV[1] or v == false then
      redis.call('SET', key, 's', 'PX', ARGV[2])
      out[i] = 1
    elseif v == 's' then
      out[i] = 1
    else
      out[i] = 0
    end
  elseif i <= ncommit + nhold then
    if v == ARGV[1] or v == false then
      redis.call('SET', key, 'u', 'PX', ARGV[2])
      out[i] = 1
    else
      out[i] = 0
    end
  else
    if v == ARGV[1] then
      redis.call('DEL', key)
      out[i] = 1
    else
      out[i] = 0
    end
  end
end
if stats then
  local key = KEYS[#KEYS]
  redis.call('HSET', key, '_platform', stats[2], '_destination', stats[3])
  for field, increment in pairs(stats[4]) do
    redis.call('HINCRBY', key, field, increment)
  end
  redis.call('PEXPIRE', key, stats[1])
end
for l = 1, nledger do
  local write = cjson.decode(ARGV[5 + l])
  if out[write[1]] == 1 then
    local key = KEYS[nkeys + l]
    local fields = {}
    local names = {}
    for field in pairs(write[4]) do names[#names + 1] = field end
    if #names > 0 then
      local held = redis.call('HMGET', key, unpack(names))
      for k = 1, #names do
        if held[k] == false then
          fields[#fields + 1] = names[k]
          fields[#fields + 1] = write[4][names[k]]
        end
      end
    end
    for field, value in pairs(write[3]) do
      fields[#fields + 1] = field
      fields[#fields + 1] = value
    end
    if #fields > 0 then redis.call('HSET', key, unpack(fields)) end
    redis.call('PEXPIRE', key, write[2])
  end
end
return out
`;

/**
 * The lease renewal: KEYS = a run's in-flight keys; ARGV[1] = its claim value, ARGV[2] = claim
 * TTL ms. Extends only the keys that still hold this claim value, nothing else. Returns per
 * key 0 held, 1 sent, 2 taken by another run, 3 expired.
 */
export const RENEW_SCRIPT = `
local out = {}
for i, key in ipairs(KEYS) do
  local v = redis.call('GET', key)
  if v == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    out[i] = 0
  elseif v == false then
    out[i] = 3
  elseif v == 's' then
    out[i] = 1
  else
    out[i] = 2
  end
end
return out
`;

/** A lone UTF-16 surrogate (one half of a pair without the other). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** How JSON.stringify writes a lone surrogate: the one escape cjson refuses. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** `value` with its keys and texts well formed (lone surrogates → U+FFFD), numbers as they are. */
function wellFormed(value: unknown): unknown {
	if (typeof value === 'string') return value.replace(LONE_SURROGATE, '\ufffd');
	if (Array.isArray(value)) return value.map(wellFormed);
	if (value === null || typeof value !== 'object') return value;
	const out: Record<string, unknown> = {};
	for (const [key, item] of Object.entries(value)) out[key.replace(LONE_SURROGATE, '\ufffd')] = wellFormed(item);
	return out;
}

/** JSON.stringify's replacer writing numbers as text. */
const numbersAsText = (_key: string, item: unknown) => (typeof item === 'number' ? String(item) : item);

/**
 * `value` as JSON for cjson. Redis' cjson refuses the escape JSON.stringify writes for a lone
 * surrogate (a click id or a stage name from a hostile delivery can hold one), which would fail
 * the whole settle: such texts get U+FFFD for it — what Redis stored for them when they went as
 * arguments of their own. Numbers inside `value` go as text unless `keepNumbers` (how Redis would
 * print a Lua number is not ours to rely on).
 */
function cjsonText(value: unknown, keepNumbers = false): string {
	const replacer = keepNumbers ? undefined : numbersAsText;
	const json = JSON.stringify(value, replacer);
	return SURROGATE_ESCAPE.test(json) ? JSON.stringify(wellFormed(value), replacer) : json;
}

/**
 * The settle script's keys then arguments, as one list, and how many are keys: the dedup keys
 * (commit, hold, release), the ledger keys of the writes gated by a commit, the stats key.
 */
export function settleArguments(
	claimValue: string,
	request: SettleRequest,
	stats: StatsIncrements | undefined,
): { argv: string[]; numKeys: number } {
	const hold = request.hold ?? [];
	const argv = request.commit.concat(hold, request.release);
	const gate = new Map<string, number>();
	request.commit.forEach((key, i) => gate.set(key, i + 1));
	const writes: string[] = [];
	let ttl = '';
	let ttlMs: number | undefined;
	for (const write of request.ledger ?? []) {
		const index = gate.get(write.gateKey);
		if (index === undefined) continue;
		argv.push(write.key);
		if (write.ttlMs !== ttlMs) [ttlMs, ttl] = [write.ttlMs, String(write.ttlMs)];
		// The gate stays a number (a Lua index); every text is a ledger field or its value.
		writes.push(cjsonText([index, ttl, write.set, write.setIfAbsent], true));
	}
	if (stats) argv.push(stats.key);
	const numKeys = argv.length;
	argv.push(
		claimValue,
		String(request.committedTtlMs),
		String(request.commit.length),
		String(hold.length),
		stats ? cjsonText([stats.ttlMs, stats.platform, stats.destination, stats.increments]) : '',
	);
	for (const write of writes) argv.push(write);
	return { argv, numKeys };
}

/**
 * The claim script's keys then arguments, as one list, and how many are keys; `readFor`: the
 * index of the key each ledger key belongs to, in the order of the ledger replies.
 */
export function claimArguments(
	keys: string[],
	claimValue: string,
	claimTtlMs: number,
	options: { takeHeld?: boolean; ledgerKeys?: ReadonlyArray<string | undefined> },
): { argv: string[]; numKeys: number; readFor: number[] } {
	const argv = keys.slice();
	const readFor: number[] = [];
	options.ledgerKeys?.forEach((ledgerKey, i) => {
		if (ledgerKey === undefined) return;
		argv.push(ledgerKey);
		readFor.push(i);
	});
	const numKeys = argv.length;
	argv.push(
		claimValue,
		String(claimTtlMs),
		options.takeHeld ? '1' : '0',
		String(keys.length),
		readFor.length > 0 ? JSON.stringify(readFor.map((i) => i + 1)) : '',
	);
	return { argv, numKeys, readFor };
}

import { keepBigIntegersExact } from '../../../shared/capture/body';
import { processCapture } from '../../../shared/capture';
import { validateRecordId } from '../../../shared/capture/recordId';
import { config, NOW, request } from './helpers';

/** Snowflake-style ids: beyond 2^53, JSON.parse alone gives all three 1234567890123456800. */
const SNOWFLAKES = ['1234567890123456789', '1234567890123456790', '1234567890123456791'];

function recordIdOf(rawBody: string): unknown {
	const outcome = processCapture(request(rawBody), config('generic'), NOW);
	if (outcome.kind !== 'accepted') throw new Error(`expected accepted, got ${JSON.stringify(outcome)}`);
	return outcome.record.record_id;
}

describe('JSON integers beyond 2^53 in capture bodies', () => {
	it('three snowflake ids stay three record ids, with their exact digits', () => {
		expect(new Set(SNOWFLAKES.map((id) => JSON.parse(`{"id": ${id}}`).id)).size).toBe(1);
		const ids = SNOWFLAKES.map((id) => recordIdOf(`{"id": ${id}, "email": "a@example.com"}`));
		expect(ids).toEqual(SNOWFLAKES);
	});

	it('reads a nested or negative big id exactly, and leaves strings holding digits alone', () => {
		expect(recordIdOf('{"data":{"lead_id":-9223372036854775808},"note":"12345678901234567890 \\" 1","email":"a@example.com"}')).toBe(
			'-9223372036854775808',
		);
	});

	it.each<[string, string, string]>([
		['a big integer value', '{"a":12345678901234567890}', '{"a":"12345678901234567890"}'],
		['in an array, twice', '[9007199254740993,1,9007199254740994]', '["9007199254740993",1,"9007199254740994"]'],
		['the largest safe integer stays a number', '{"a":9007199254740991}', '{"a":9007199254740991}'],
		['fractions and exponents stay numbers', '{"a":12345678901234567.5,"b":1e400,"c":1234567890123456789e2}', '{"a":12345678901234567.5,"b":1e400,"c":1234567890123456789e2}'],
		['digits inside strings stay as they are', '{"a":"x\\"12345678901234567890"}', '{"a":"x\\"12345678901234567890"}'],
		['a key made of digits stays a key', '{"12345678901234567890":1}', '{"12345678901234567890":1}'],
	])('%s', (_case, text, expected) => {
		expect(keepBigIntegersExact(text)).toBe(expected);
		expect(JSON.parse(keepBigIntegersExact(text))).toEqual(JSON.parse(expected));
	});

	it('malformed bodies are still refused with the position of the text as sent', () => {
		const outcome = processCapture(request('{"id": 12345678901234567890 "x": 1}'), config('generic'), NOW);
		expect(outcome).toMatchObject({ kind: 'rejected', status: 400 });
		expect((outcome as { reason: string }).reason).toMatch(/^malformed JSON body: (invalid JSON at position 28|not valid JSON)$/);
	});

	it('an unsafe number that reaches the record id check is refused, not rounded into another lead', () => {
		expect(validateRecordId(1234567890123456789)).toEqual({
			problem: '1234567890123456800 is larger than JavaScript numbers hold exactly; send it as a string',
		});
		expect(validateRecordId(42)).toEqual({ id: '42' });
		expect(validateRecordId('1234567890123456789')).toEqual({ id: '1234567890123456789' });
	});
});

import { joinSentences } from '../../shared';

describe('joinSentences', () => {
	it('ends each part but the last with one period, never two', () => {
		expect(joinSentences('Redis refused', 'Nothing was sent.')).toBe('Redis refused. Nothing was sent.');
		expect(joinSentences('Meta: Invalid token.', 'Check the token')).toBe('Meta: Invalid token. Check the token');
		expect(joinSentences('Is Redis running?', 'Retry later.')).toBe('Is Redis running? Retry later.');
	});

	it('leaves out empty parts', () => {
		expect(joinSentences(undefined, ' ', 'This run: 2 failed', '')).toBe('This run: 2 failed');
	});
});

import { summarizeStats } from '../../../shared/stats';

describe('Health Report counts of expired stage events', () => {
	it('shows expired stage events when there were some, and adds nothing when there were none', () => {
		const [withExpired] = summarizeStats(
			[
				{ _platform: 'meta', _destination: '42', sent: '3', expired: '2' },
				{ _platform: 'meta', _destination: '42', expired: '1' },
			],
			24,
		);
		expect(withExpired).toMatchObject({ sent: 3, expired: 3 });
		const [without] = summarizeStats([{ _platform: 'meta', _destination: '43', sent: '1' }], 24);
		expect(without.expired).toBeUndefined();
	});
});

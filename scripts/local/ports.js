// @ts-check
/**
 * Whether loopback ports can be listened on, asked the way the servers of `npm run dev` listen
 * (127.0.0.1): a port something else holds, on 127.0.0.1 or on every address, is reported.
 */
const net = require('node:net');

/**
 * null when 127.0.0.1:port can be listened on, else the error code (EADDRINUSE, EACCES…).
 * @param {number} port
 * @returns {Promise<string | null>}
 */
function portProblem(port) {
	return new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', (error) =>
			resolve(/** @type {NodeJS.ErrnoException} */ (error).code || 'error'),
		);
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(null)));
	});
}

/**
 * The first port above `after` (in steps of `count`) where `count` ports in a row are free and
 * none is in `avoid`; undefined when 20 tries find none.
 * @param {number} after @param {number} count @param {number[]} avoid
 */
async function freeRun(after, count, avoid) {
	for (
		let first = after + count, tries = 0;
		tries < 20 && first + count <= 65536;
		first += count, tries++
	) {
		const run = Array.from({ length: count }, (_, i) => first + i);
		if (run.some((port) => avoid.includes(port))) continue;
		const problems = await Promise.all(run.map(portProblem));
		if (problems.every((problem) => problem === null)) return first;
	}
	return undefined;
}

module.exports = { portProblem, freeRun };

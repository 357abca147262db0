import type { IExecuteFunctions } from 'n8n-workflow';

/** n8n's mark of an expression: a parameter value (a string, anywhere in it) starting with `=`. */
function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(holdsExpression);
	if (value !== null && typeof value === 'object') return Object.values(value).some(holdsExpression);
	return false;
}

/** The parameter as the workflow stores it (`a.b` a path into the node's parameters), unevaluated. */
function rawParameter(ctx: IExecuteFunctions, name: string): unknown {
	let value: unknown = ctx.getNode().parameters;
	for (const part of name.split('.')) {
		if (value === null || typeof value !== 'object') return undefined;
		value = (value as Record<string, unknown>)[part];
	}
	return value;
}

/**
 * A parameter that may differ per item, read the cheapest way n8n allows: evaluated for each item
 * when it holds an expression, else read once (the first time it is asked for) and the same for
 * every item — as n8n would give it for each. A read that throws throws for every item asking.
 * `fallback`: n8n's fallback value, when the parameter may be absent.
 */
export function perItemParameter<T>(
	ctx: IExecuteFunctions,
	name: string,
	...fallback: [] | [T]
): (itemIndex: number) => T {
	const read = (itemIndex: number) => ctx.getNodeParameter(name, itemIndex, ...fallback) as T;
	if (holdsExpression(rawParameter(ctx, name))) return read;
	let once: { value: T } | undefined;
	return () => (once ??= { value: read(0) }).value;
}

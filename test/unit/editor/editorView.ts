/**
 * What n8n's editor shows for our node descriptions, computed with n8n-workflow's own helpers
 * (the ones the editor calls): the canvas subtitle, the output names and whether a parameter is
 * displayed. Every node the package registers (package.json "n8n".nodes) is loaded from source.
 */
import * as path from 'node:path';
import {
	NodeHelpers,
	Workflow,
	type INode,
	type INodeParameters,
	type INodeProperties,
	type INodeType,
	type INodeTypeDescription,
	type INodeTypes,
} from 'n8n-workflow';

const REPO = path.join(__dirname, '..', '..', '..');
const PKG = require(path.join(REPO, 'package.json')) as { n8n: { nodes: string[] } };

/** Every node type the package registers, by its description name. */
export const NODE_TYPES: Record<string, INodeType> = Object.fromEntries(
	PKG.n8n.nodes.map((file) => {
		const source = path.join(REPO, file.replace(/^dist\//, '').replace(/\.js$/, ''));
		const module = require(source) as Record<string, new () => INodeType>;
		const [NodeClass] = Object.values(module);
		const nodeType = new NodeClass();
		return [nodeType.description.name, nodeType];
	}),
);

export function describeNode(name: string): INodeTypeDescription {
	const nodeType = NODE_TYPES[name];
	if (!nodeType) throw new Error(`no node type ${name}`);
	return nodeType.description as INodeTypeDescription;
}

const nodeTypes: INodeTypes = {
	getByName: (type) => NODE_TYPES[type.split('.').pop()!],
	getByNameAndVersion: (type) => NODE_TYPES[type.split('.').pop()!],
	getKnownTypes: () => ({}),
} as INodeTypes;

/** The node as the editor holds it: the parameters set plus every default it displays. */
function placeNode(name: string, parameters: INodeParameters): { workflow: Workflow; node: INode } {
	const description = describeNode(name);
	const resolved = NodeHelpers.getNodeParameters(
		description.properties,
		parameters,
		true,
		false,
		{ typeVersion: 1 },
		description,
	);
	const node: INode = {
		id: '00000000-0000-4000-8000-000000000001',
		name: description.defaults.name ?? name,
		type: `n8n-nodes-lead-capi.${name}`,
		typeVersion: 1,
		position: [0, 0],
		parameters: resolved ?? {},
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	return { workflow, node: workflow.getNode(node.name)! };
}

/** The subtitle the canvas shows under the node. */
export function subtitleOf(name: string, parameters: INodeParameters = {}): string {
	const { workflow, node } = placeNode(name, parameters);
	const subtitle = describeNode(name).subtitle;
	if (subtitle === undefined) return '';
	return String(workflow.expression.getSimpleParameterValue(node, subtitle, 'internal', {}));
}

/** The output names the canvas shows. */
export function outputNamesOf(name: string, parameters: INodeParameters = {}): string[] {
	const { workflow, node } = placeNode(name, parameters);
	const description = describeNode(name);
	return NodeHelpers.getNodeOutputs(workflow, node, description).map((output, i) =>
		typeof output === 'string' ? (description.outputNames?.[i] ?? '') : (output.displayName ?? ''),
	);
}

/**
 * Whether the editor displays `parameter` at `path` (e.g. `rules.condition[0]` for a field of
 * the first condition) given the node's parameters.
 */
export function isDisplayed(
	name: string,
	parameter: INodeProperties,
	parameters: INodeParameters,
	parameterPath = '',
): boolean {
	const description = describeNode(name);
	const { node } = placeNode(name, parameters);
	return NodeHelpers.displayParameterPath(
		node.parameters,
		parameter,
		parameterPath,
		{ typeVersion: 1 },
		description,
	);
}

/** Every property of a description, nested ones (collections, fixed collections) included. */
export function allProperties(properties: INodeProperties[]): INodeProperties[] {
	return properties.flatMap((property) => [
		property,
		...(property.options ?? []).flatMap((option) => {
			if ('values' in option) return allProperties(option.values);
			if ('displayName' in option && 'type' in option) return allProperties([option]);
			return [];
		}),
	]);
}

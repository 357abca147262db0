import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
	NodeHelpers,
	type ICredentialDataDecryptedObject,
	type ICredentialType,
	type INodeParameters,
} from 'n8n-workflow';

let types: Map<string, ICredentialType> | undefined;

/** Every credential type of the package, from credentials/*.credentials.ts, by its name. */
function credentialTypes(): Map<string, ICredentialType> {
	if (types) return types;
	types = new Map();
	const dir = join(__dirname, '../../../credentials');
	for (const file of readdirSync(dir).filter((f) => f.endsWith('.credentials.ts'))) {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const exported = require(join(dir, file)) as Record<string, new () => ICredentialType>;
		for (const Type of Object.values(exported)) {
			if (typeof Type !== 'function') continue;
			const type = new Type();
			types.set(type.name, type);
		}
	}
	return types;
}

/** The credential type a node names. */
export function credentialType(name: string): ICredentialType {
	const type = credentialTypes().get(name);
	if (!type) throw new Error(`no credential type "${name}" in credentials/`);
	return type;
}

/**
 * What n8n's getCredentials returns for saved values: the values with the type's defaults filled
 * in for the fields left unset (n8n's credentials helper does this with getNodeParameters).
 */
export function withCredentialDefaults(
	name: string,
	data: ICredentialDataDecryptedObject,
): ICredentialDataDecryptedObject {
	const type = credentialType(name);
	const filled = NodeHelpers.getNodeParameters(
		type.properties,
		data as INodeParameters,
		true,
		false,
		null,
		null,
	);
	// OAuth2 token data and the parent type's fields are not among this type's own properties.
	return { ...data, ...(filled as ICredentialDataDecryptedObject) };
}

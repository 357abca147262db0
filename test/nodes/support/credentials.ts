import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
	NodeHelpers,
	type ICredentialDataDecryptedObject,
	type ICredentialType,
	type INodeParameters,
} from 'n8n-workflow';

/**
 * Credential type names before the rename of issue 10 item 3 → after it. Tests key credentials
 * by the new names; a node that still asks for an old name gets the same credential.
 * TODO(lead): remove this fallback once the rename is merged and no node asks for an old name.
 */
export const RENAMED_CREDENTIALS: Record<string, string> = {
	metaConversionsApi: 'leadCapiMetaApi',
	pinterestConversionsApi: 'leadCapiPinterestApi',
	tiktokEventsApi: 'leadCapiTiktokApi',
	microsoftConversionsApi: 'leadCapiMicrosoftApi',
	googleAdsConversionsOAuth2Api: 'leadCapiGoogleAdsOAuth2Api',
	leadCaptureWebhookApi: 'leadCapiWebhookApi',
};

const OLD_NAMES: Record<string, string> = Object.fromEntries(
	Object.entries(RENAMED_CREDENTIALS).map(([oldName, newName]) => [newName, oldName]),
);

/** A name and the other name of the same credential type (before or after the rename). */
export function credentialAliases(name: string): string[] {
	const other = RENAMED_CREDENTIALS[name] ?? OLD_NAMES[name];
	return other ? [name, other] : [name];
}

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

/** The credential type a node names, under its old or its new name. */
export function credentialType(name: string): ICredentialType {
	for (const alias of credentialAliases(name)) {
		const type = credentialTypes().get(alias);
		if (type) return type;
	}
	throw new Error(`no credential type "${name}" in credentials/`);
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

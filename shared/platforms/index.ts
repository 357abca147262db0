import type { PlatformAdapter } from './contract';
import type { IdentityProfile } from '../identity';
import type { Platform } from '../types';
import { googleAdapter } from './google';
import { metaAdapter } from './meta';
import { microsoftAdapter } from './microsoft';
import { pinterestAdapter } from './pinterest';
import { tiktokAdapter } from './tiktok';

/**
 * Every platform's adapter, by platform key. A platform is one folder; registering it here is
 * what makes the Identity Normalizer render it and the README's event-name table list it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const PLATFORM_ADAPTERS: Readonly<Record<Platform, PlatformAdapter<any, any>>> = {
	meta: metaAdapter,
	pinterest: pinterestAdapter,
	tiktok: tiktokAdapter,
	microsoft: microsoftAdapter,
	google: googleAdapter,
};

/** Each platform's identity profile, by platform key (its adapter's `identity`). */
export const IDENTITY_PROFILES = Object.fromEntries(
	Object.entries(PLATFORM_ADAPTERS).map(([platform, adapter]) => [platform, adapter.identity]),
) as Readonly<Record<Platform, IdentityProfile>>;

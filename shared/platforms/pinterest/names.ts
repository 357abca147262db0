import {
	PINTEREST_CUSTOM_PREFIX,
	PINTEREST_EVENT_NAMES,
	type PinterestEventName,
} from './constants';

const STANDARD = new Set<string>(PINTEREST_EVENT_NAMES.filter((name) => name !== 'custom'));

/**
 * The event name a user chose (a standard Pinterest name or any custom one) as the sender
 * handles it: standard names as they are (case-insensitive), `custom` and `custom:<label>` as
 * they are, anything else as `custom:<name>`.
 */
export function pinterestEventName(chosen: string): string {
	const name = chosen.trim();
	if (name === '') return '';
	const lower = name.toLowerCase();
	if (STANDARD.has(lower) || lower === 'custom') return lower;
	if (lower.startsWith(PINTEREST_CUSTOM_PREFIX)) {
		const label = name.slice(PINTEREST_CUSTOM_PREFIX.length).trim();
		return label ? `${PINTEREST_CUSTOM_PREFIX}${label}` : 'custom';
	}
	return `${PINTEREST_CUSTOM_PREFIX}${name}`;
}

/**
 * What Pinterest receives for one of our event names: its `event_name`, and for labelled
 * custom events the label (sent as `custom_data.content_name`). Null when the name is not one
 * Pinterest accepts.
 */
export function pinterestWireName(
	eventName: string,
): { eventName: PinterestEventName; label?: string } | null {
	if (eventName.startsWith(PINTEREST_CUSTOM_PREFIX)) {
		const label = eventName.slice(PINTEREST_CUSTOM_PREFIX.length).trim();
		return label ? { eventName: 'custom', label } : { eventName: 'custom' };
	}
	return (PINTEREST_EVENT_NAMES as readonly string[]).includes(eventName)
		? { eventName: eventName as PinterestEventName }
		: null;
}

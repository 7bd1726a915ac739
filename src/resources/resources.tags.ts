/** The household preparedness suggestions offered before any resource carries a tag. */
export const DEFAULT_TAGS = [
  'food',
  'water',
  'first-aid',
  'medicine',
  'energy',
  'communication',
  'shelter',
  'hygiene',
  'recipes',
  'checklist',
  'map',
  'manual',
  'tools',
  'heating',
  'lighting',
  'cooking',
  'storage',
  'evacuation',
  'security',
  'children',
  'pets',
  'garden',
];

export const MAX_TAG_LENGTH = 50;
export const MAX_TAGS = 50;

/** " First  Aid " → "first aid"; empty → null. */
function normalizeTag(tag: string): string | null {
  const clean = tag.replace(/\s+/g, ' ').trim().toLowerCase();
  return clean.length > 0 && clean.length <= MAX_TAG_LENGTH ? clean : null;
}

export function normalizeTags(tags: string[]): string[] {
  const seen = new Set<string>();
  for (const tag of tags) {
    const clean = normalizeTag(tag);
    if (clean) seen.add(clean);
  }
  return [...seen].slice(0, MAX_TAGS);
}

/**
 * Tags for an analyzed file: its own keywords, plus every known tag whose words appear in the
 * title or description ("first-aid" matches "First Aid Manual").
 */
export function proposeTags(keywords: string[], text: string, knownTags: string[]): string[] {
  const haystack = text.toLowerCase();
  const found = knownTags.filter((tag) => {
    const words = tag
      .split(/[\s-]+/)
      .filter(Boolean)
      .map(escapeRegExp);
    if (words.length === 0) return false;
    return new RegExp(`(^|[^\\p{L}\\p{N}])${words.join('[\\s-]+')}($|[^\\p{L}\\p{N}])`, 'u').test(
      haystack,
    );
  });
  return normalizeTags([...keywords, ...found]);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Readers of the free-form run metadata the delivery-operations steps (delivery, cicd, environment, incident,
 * kubernetes) receive: what is not the expected shape is left out, never trusted. Pure helpers shared by five
 * modules, so they live here rather than in one of them: in jobs/delivery/ they made cicd, incident and kubernetes
 * import delivery, which itself composes them (an import cycle through their public faces).
 */

export function stringRecord(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
}

export function objectArray(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value)
    ? value.filter((v): v is Record<string, unknown> => Boolean(v) && typeof v === 'object' && !Array.isArray(v))
    : [];
}

export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * How a person answered a gate, when the step runs again after it (`approved` or the `approve` action; anything else
 * refuses).
 */
export function gateAnswer(
  resume: { action?: string; data?: Record<string, unknown> } | undefined,
): 'approved' | 'rejected' | null {
  if (!resume) return null;
  return resume.data?.approved === true || resume.action === 'approve' ? 'approved' : 'rejected';
}

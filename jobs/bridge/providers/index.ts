// The provider adapters, by connector kind: each helper of issue 31 adds its one line.
import type { ProviderAdapter, ProviderKind } from './adapter.js';

export const PROVIDER_ADAPTERS: Partial<Record<ProviderKind, ProviderAdapter>> = {};

export function adapterFor(kind: string): ProviderAdapter | null {
  return PROVIDER_ADAPTERS[kind as ProviderKind] ?? null;
}

export * from './adapter.js';

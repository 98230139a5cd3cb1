/**
 * A module loaded on first use and kept: `load()` imports it (once, however many ask), `get()` returns it once loaded
 * for code that must stay synchronous (a callback's signature check). Heavy SDKs come through here, so a process that
 * never calls a provider never holds its SDK.
 */
export function onFirstUse<T>(what: string, importer: () => Promise<T>) {
  let loaded: T | undefined;
  return {
    load: async (): Promise<T> => (loaded ??= await importer()),
    get: (): T => {
      if (loaded === undefined) throw new Error(`${what} is not loaded: await its load() first`);
      return loaded;
    },
  };
}

/**
 * The analyzer (logic.ts) brings its parsers (cheerio for XML, yaml, smol-toml: about 20 MB): loaded on first use, so a
 * process that never reads a project never holds them.
 */
export const environmentAnalyzer = async () => (await import('./logic.js')).analyzeEnvironment;

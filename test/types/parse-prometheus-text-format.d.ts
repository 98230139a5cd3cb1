/** The package ships no types: it parses Prometheus's text exposition format into metric families. */
declare module 'parse-prometheus-text-format' {
  export default function parsePrometheusTextFormat(text: string): unknown[];
}

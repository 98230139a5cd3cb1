import type { ComponentChildren } from 'preact';

/**
 * Shared pieces of every page. The error line is always in the page (empty when there is none) so an error appearing
 * or clearing never moves what is below it.
 */
export function ErrorLine({ error }: { error: string }) {
  return (
    <p role="alert" class="error line">
      {error}
    </p>
  );
}

export function Status({ value, id }: { value: string; id?: string }) {
  return (
    <span class={`status s-${value}`} data-testid={id}>
      {value}
    </span>
  );
}

/** One column: its header and what a row shows in it. */
export type Col<T> = [header: string, cell: (row: T) => ComponentChildren];

/**
 * A table that reads on a phone: below 40rem each row becomes a block and each cell shows its column's header
 * (data-label), so nothing scrolls sideways. An empty header is an actions column, named for screen readers.
 */
export function Table<T>(props: {
  caption: string;
  cols: Array<Col<T>>;
  rows: T[];
  attrs?: (row: T) => Record<string, unknown>;
  empty?: ComponentChildren;
}) {
  const { caption, cols, rows, attrs, empty } = props;
  return (
    <>
      <table class="stack">
        <caption class="sr">{caption}</caption>
        <thead>
          <tr>
            {cols.map(([h]) => (
              <th scope="col">{h || <span class="sr">Actions</span>}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr {...(attrs?.(row) ?? {})}>
              {cols.map(([h, cell]) => (
                <td data-label={h || undefined}>{cell(row)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length === 0 && empty !== undefined && <p>{empty}</p>}
    </>
  );
}

export function BackLink({ href, label }: { href: string; label: string }) {
  return (
    <p>
      <a href={href}>← {label}</a>
    </p>
  );
}

/** Pause while active, Resume otherwise; `name` (the row's) labels the button for screen readers. */
export function PauseResume(props: { active: boolean; name?: string; pause: () => void; resume: () => void }) {
  const [label, onClick] = props.active ? ['Pause', props.pause] : ['Resume', props.resume];
  return (
    <button type="button" onClick={onClick} aria-label={props.name && `${label} ${props.name}`}>
      {label}
    </button>
  );
}

/** Form values as strings, without the empty ones. */
export function formValues(e: Event): Record<string, string> {
  e.preventDefault();
  const out: Record<string, string> = {};
  for (const [k, v] of new FormData(e.currentTarget as HTMLFormElement)) if (String(v) !== '') out[k] = String(v);
  return out;
}

/** A list filter: a labelled select whose first option (`value` "") means no filter. */
export function FilterSelect(props: {
  label: string;
  value: string;
  options: readonly string[];
  onChange: (e: Event) => void;
  any?: string;
}) {
  return (
    <label>
      {props.label}{' '}
      <select value={props.value} onChange={props.onChange}>
        <option value="">{props.any ?? 'any'}</option>
        {props.options.map((o) => (
          <option>{o}</option>
        ))}
      </select>
    </label>
  );
}

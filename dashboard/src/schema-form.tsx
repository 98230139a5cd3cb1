import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { FileInput } from './schema-file';

/**
 * The answer forms of an inbox item, generated from its `answerSchema` (JSON Schema 2020-12, docs/api/inbox.md): one
 * branch (`oneOf`) per action the waiting domain declares. Nothing here knows a kind: a branch without fields is a
 * button, a branch with fields is a form of them (an enum a select, a boolean a checkbox, an object a fieldset, a
 * `oneOf` a choice among its shapes, an object holding a base64 string a file input).
 */
export type Schema = Record<string, any>;
type Value = any; // JSON
/** How the page names an enum's values (a candidate's title for its itemId); the value itself otherwise. */
export type LabelOf = (field: string, value: string) => string;

export const words = (name: string) => {
  const spaced = name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
};

const fieldsOf = (s: Schema): Array<[string, Schema]> =>
  Object.entries((s.properties ?? {}) as Record<string, Schema>).filter(([, p]) => p.const === undefined);
const constsOf = (s: Schema) =>
  Object.fromEntries(
    Object.entries((s.properties ?? {}) as Record<string, Schema>)
      .filter(([, p]) => p.const !== undefined)
      .map(([k, p]) => [k, p.const]),
  );

/** A file is an object with a base64 string in it (its other strings: the name and the content type). */
const base64Key = (s: Schema) =>
  Object.entries((s.properties ?? {}) as Record<string, Schema>).find(([, p]) => p.contentEncoding === 'base64')?.[0];

/** Empty strings, unset values and objects left empty are not sent. */
function prune(v: Value): Value {
  if (v === '' || v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) return v;
  const out = Object.fromEntries(
    Object.entries(v)
      .map(([k, x]) => [k, prune(x)])
      .filter(([, x]) => x !== undefined),
  );
  return Object.keys(out).length ? out : undefined;
}

/**
 * Requirements a branch states conditionally (`allOf: [{if: {properties: {status: {const}}}, then: …}]`): for each
 * field, in words, when it is required ("required when status is confirmedSuccess"), also for the keys of a nested
 * object the `then` requires.
 */
function conditions(s: Schema): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rule of (s.allOf ?? []) as Schema[]) {
    const cond = Object.entries((rule.if?.properties ?? {}) as Record<string, Schema>)
      .filter(([, p]) => p.const !== undefined)
      .map(([k, p]) => `${k} is ${String(p.const)}`)
      .join(' and ');
    if (!cond) continue;
    for (const k of (rule.then?.required ?? []) as string[]) out[k] = `required when ${cond}`;
    for (const [k, p] of Object.entries((rule.then?.properties ?? {}) as Record<string, Schema>))
      for (const inner of (p.required ?? []) as string[]) out[`${k}.${inner}`] = `required when ${cond}`;
  }
  return out;
}

type FieldProps = {
  name: string;
  path: string;
  schema: Schema;
  value: Value;
  set: (v: Value) => void;
  hint: string;
  required: boolean;
  labelOf: LabelOf;
  /** Conditions a parent states about this value's keys ("callSummary" → "required when status is …"). */
  cond?: Record<string, string>;
};

function Label({ name, hint, required }: { name: string; hint: string; required: boolean }) {
  return (
    <>
      {words(name)}
      {required ? ' (required)' : hint ? ` (${hint})` : ''}
    </>
  );
}

function ObjectField(props: Omit<FieldProps, 'name' | 'hint' | 'required'>) {
  const { schema, value, set, path, labelOf } = props;
  const when = { ...props.cond, ...conditions(schema) };
  const required = (schema.required ?? []) as string[];
  const v = (value ?? {}) as Record<string, Value>;
  const under = (k: string) =>
    Object.fromEntries(
      Object.entries(when)
        .filter(([c]) => c.startsWith(`${k}.`))
        .map(([c, t]) => [c.slice(k.length + 1), t]),
    );
  return (
    <>
      {fieldsOf(schema).map(([k, p]) => (
        <Field
          name={k}
          path={path ? `${path}.${k}` : k}
          schema={p}
          value={v[k]}
          set={(x) => set({ ...v, [k]: x })}
          hint={when[k] ?? ''}
          required={required.includes(k)}
          labelOf={labelOf}
          cond={under(k)}
        />
      ))}
    </>
  );
}

/** A choice among the shapes a value may take (a proof item: a note or a file), each named by its one key. */
function OneOfField(props: FieldProps) {
  const { name, schema, set, hint, required } = props;
  const shapes = schema.oneOf as Schema[];
  const [at, setAt] = useState(0);
  const shape = shapes[at]!;
  const only = fieldsOf(shape).length === 1 ? fieldsOf(shape)[0]! : null;
  return (
    <fieldset>
      <legend>
        <Label name={name} hint={hint} required={required} />
      </legend>
      <label>
        Give {words(name).toLowerCase()} as
        <select
          value={String(at)}
          onChange={(e) => {
            setAt(Number((e.currentTarget as HTMLSelectElement).value));
            set(undefined);
          }}
        >
          {shapes.map((s, i) => (
            <option value={String(i)}>{fieldsOf(s).map(([k]) => words(k).toLowerCase())[0] ?? `shape ${i + 1}`}</option>
          ))}
        </select>
      </label>
      {only ? (
        <Field
          {...props}
          name={`${name} ${only[0]}`}
          path={`${props.path}.${only[0]}`}
          schema={only[1]}
          value={(props.value ?? {})[only[0]]}
          set={(x) => set(x === undefined || x === '' ? undefined : { [only[0]]: x })}
          hint=""
          required={false}
        />
      ) : (
        <ObjectField {...props} schema={shape} />
      )}
    </fieldset>
  );
}

/** A file: an object holding a base64 string, filled from a file input (checked there, schema-file.tsx). */
function FileField({ name, path, schema, set }: FieldProps) {
  const types = (schema.properties?.contentType?.enum ?? []) as string[];
  const key = base64Key(schema)!;
  return (
    <FileInput
      label={`${words(name)} (a file, at most 5 MiB)`}
      id={`file-${path.replace(/\W+/g, '-')}`}
      types={types}
      onFile={(f) => set(f && { name: f.name, contentType: f.contentType, [key]: f.base64 })}
    />
  );
}

function Field(props: FieldProps) {
  const { name, schema, value, set, hint, required, labelOf } = props;
  if (Array.isArray(schema.oneOf)) return <OneOfField {...props} />;
  if (schema.type === 'object' && base64Key(schema)) return <FileField {...props} />;
  if (schema.type === 'object') {
    if (!fieldsOf(schema).length) return null; // an open object: nothing to ask for
    return (
      <fieldset>
        <legend>
          <Label name={name} hint={hint} required={required} />
        </legend>
        <ObjectField {...props} />
      </fieldset>
    );
  }
  const label = <Label name={name} hint={hint} required={required} />;
  const onValue = (e: Event) => set((e.currentTarget as HTMLInputElement).value);
  if (Array.isArray(schema.enum))
    return (
      <label>
        {label}
        <select value={value ?? ''} onChange={onValue} required={required}>
          {!required && <option value="">—</option>}
          {required && value === undefined && <option value="">Choose…</option>}
          {(schema.enum as string[]).map((v) => (
            <option value={v}>{labelOf(name, v)}</option>
          ))}
        </select>
      </label>
    );
  if (schema.type === 'boolean')
    return (
      <label class="check">
        <input
          type="checkbox"
          checked={Boolean(value)}
          onChange={(e) => set((e.currentTarget as HTMLInputElement).checked)}
        />{' '}
        {label}
      </label>
    );
  if (schema.type === 'integer' || schema.type === 'number')
    return (
      <label>
        {label}
        <input
          type="number"
          step={schema.type === 'integer' ? 1 : 'any'}
          value={value ?? ''}
          required={required}
          onInput={(e) => set(Number((e.currentTarget as HTMLInputElement).value))}
        />
      </label>
    );
  const long = (schema.maxLength ?? 0) > 300;
  return (
    <label>
      {label}
      {schema.description && <span class="muted"> {schema.description}</span>}
      {long ? (
        <textarea rows={3} value={value ?? ''} onInput={onValue} required={required} maxLength={schema.maxLength} />
      ) : (
        <input value={value ?? ''} onInput={onValue} required={required} maxLength={schema.maxLength} />
      )}
    </label>
  );
}

/** One branch with fields: a form of them whose submit sends the branch's constants and what was filled in. */
function BranchForm(props: { branch: Schema; note: ComponentChildren; labelOf: LabelOf; send: (b: Value) => void }) {
  const { branch, note, labelOf, send } = props;
  const [value, setValue] = useState<Value>({});
  const title = words(String(branch.title ?? 'answer'));
  return (
    <form
      class="card"
      aria-label={title}
      onSubmit={(e) => {
        e.preventDefault();
        send({ ...constsOf(branch), ...(prune(value) ?? {}) });
      }}
    >
      <h3>{title}</h3>
      <p>{note}</p>
      <ObjectField schema={branch} value={value} set={setValue} path="" labelOf={labelOf} />
      <button type="submit">{title}</button>
    </form>
  );
}

/**
 * Every branch of the schema: those with nothing to fill in as buttons (with the action's words beside each), the
 * others as forms. `send` gets the body of POST /v1/inbox/{itemId}/answer.
 */
export function AnswerForms(props: {
  schema: Schema;
  describe: (action: string | undefined) => string;
  labelOf: LabelOf;
  send: (body: Value) => void;
}) {
  const { schema, describe, labelOf, send } = props;
  const branches = (schema.oneOf ?? [schema]) as Schema[];
  const plain = branches.filter((b) => fieldsOf(b).length === 0);
  const forms = branches.filter((b) => fieldsOf(b).length > 0);
  const action = (b: Schema) => b.properties?.action?.const as string | undefined;
  return (
    <>
      {plain.length > 0 && (
        <ul class="actions">
          {plain.map((b) => (
            <li>
              <button type="button" onClick={() => send(constsOf(b))}>
                {words(String(b.title ?? action(b)))}
              </button>{' '}
              <span>{describe(action(b))}</span>
            </li>
          ))}
        </ul>
      )}
      {forms.map((b) => (
        <BranchForm branch={b} note={describe(action(b))} labelOf={labelOf} send={send} />
      ))}
    </>
  );
}

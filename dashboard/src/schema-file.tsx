import { useState } from 'preact/hooks';

/** The documented size of a proof file, decoded (docs/api/inbox.md: 5 MiB, 5,242,880 bytes): checked before sending. */
export const MAX_FILE_BYTES = 5 * 1024 * 1024;

export type PickedFile = { name: string; contentType: string; base64: string };

const readBase64 = (file: File) =>
  new Promise<string>((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result).replace(/^data:[^,]*,/, ''));
    r.onerror = () => reject(new Error(`"${file.name}" could not be read`));
    r.readAsDataURL(file);
  });

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

/**
 * A file input whose file is checked in the browser before anything is sent: at most MAX_FILE_BYTES, of one of
 * `types`. A file that does not fit is refused here with the reason in words beside the input; one that fits is
 * read as base64 for the JSON body.
 */
export function FileInput(props: { label: string; id: string; types: string[]; onFile: (f?: PickedFile) => void }) {
  const { label, id, types, onFile } = props;
  const [note, setNote] = useState<{ text: string; bad: boolean }>({ text: '', bad: false });
  const pick = async (e: Event) => {
    const input = e.currentTarget as HTMLInputElement;
    const file = input.files?.[0];
    onFile(undefined);
    setNote({ text: '', bad: false });
    if (!file) return;
    const refuse = (text: string) => {
      input.value = '';
      setNote({ text, bad: true });
    };
    if (file.size > MAX_FILE_BYTES)
      return refuse(
        `"${file.name}" is ${mib(file.size)}: a proof file may be at most 5 MiB (${MAX_FILE_BYTES.toLocaleString()} ` +
          'bytes). Choose a smaller file.',
      );
    if (types.length && !types.includes(file.type))
      return refuse(
        `"${file.name}" is ${file.type || 'of an unknown type'}: a proof file is one of ${types.join(', ')}.`,
      );
    try {
      onFile({ name: file.name, contentType: file.type, base64: await readBase64(file) });
      setNote({ text: `${file.name}, ${file.size.toLocaleString()} bytes, ready to send.`, bad: false });
    } catch (err) {
      refuse((err as Error).message);
    }
  };
  return (
    <>
      <label for={id}>{label}</label>
      <input
        id={id}
        type="file"
        accept={types.join(',')}
        onChange={(e) => void pick(e)}
        aria-describedby={`${id}-note`}
      />
      <p id={`${id}-note`} class={`line${note.bad ? ' error' : ''}`} role={note.bad ? 'alert' : 'status'}>
        {note.text}
      </p>
    </>
  );
}

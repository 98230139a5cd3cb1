/** One page of a cursor list: its items and the cursor of the next page (null on the last). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * Iterates every item of a cursor-paginated list (`?cursor=` in, `nextCursor` out), fetching a page only when the
 * previous one is used up; breaking out of the loop fetches nothing more.
 */
export async function* paginate<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<T> {
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    yield* page.items;
    if (!page.nextCursor) return;
    cursor = page.nextCursor;
  }
}

/** An IANA zone name the runtime knows (`Europe/Berlin`, `UTC`); Intl refuses the rest. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

import { createHash } from 'node:crypto';
import * as chrono from 'chrono-node/en';
import canonicalize from 'canonicalize';
import { normalizePhone, phonesIn } from '../../shared/phone.js';
import { readStepRequest } from '../bridge/index.js';
import type { MISSION_KINDS, MISSION_REASONS, MissionStatus, ProxyOutcomeStatus } from './schemas.js';

/**
 * Pure rules of the proxy domain: what a request asks a person to do, phone numbers, proof, and what an outcome means.
 */

export type MissionKind = (typeof MISSION_KINDS)[number];
export type MissionReason = (typeof MISSION_REASONS)[number];

const KIND_WORDS: Array<[MissionKind, RegExp]> = [
  ['logistics', /\b(courier|pick ?up|drop ?off|deliver(y)?|collect|ship|parcel|package)\b/i],
  ['message', /\b(message|text|sms|whats ?app|e-?mail|write to|dm)\b/i],
  ['call', /\b(call|phone|ring|dial|contact|reach out)\b/i],
  ['review', /\b(review|check|approve|look over|second opinion|sign off)\b/i],
];

/** What kind of work the request asks of a person; a request that names a phone number and nothing else is a call. */
export function missionKind(text: string, hasPhone: boolean): MissionKind {
  for (const [kind, words] of KIND_WORDS) if (words.test(text)) return kind;
  return hasPhone ? 'call' : 'review';
}

/**
 * Why a person is needed: identity and consent checks, a human judgement, or (the default for contact work) a local
 * provider's availability.
 */
export function missionReason(text: string, kind: MissionKind): MissionReason {
  if (
    /\b(identity|identify|kyc|passport|id card|consent|authori[sz]e|verify (my|his|her|their) (id|identity))\b/i.test(
      text,
    )
  )
    return 'identityVerificationAndConsent';
  if (kind === 'review') return 'humanReviewerNeeded';
  return 'localServiceAvailability';
}

const CAPITALIZED = /^[\p{Lu}\d][\p{L}\d&'.-]*$/u;
const CONTACT_VERB = /\b(call|phone|ring|contact|message|text|email|ask)\s+/i;

/**
 * The provider a request names right after its contact verb: the run of
 * capitalised words ("call Kiez Plumbing at ..." → "Kiez Plumbing"). Null
 * when the words that follow are not a name ("call them", "call the bank").
 */
export function providerNameIn(text: string): string | null {
  const m = CONTACT_VERB.exec(text);
  if (!m) return null;
  const words: string[] = [];
  for (const word of text.slice(m.index + m[0].length).split(/\s+/)) {
    const clean = word.replace(/[,;:!?]+$/, '');
    if (!CAPITALIZED.test(clean) || /^\+?\d/.test(clean)) break;
    words.push(clean);
    if (clean !== word) break;
  }
  return words.length > 0 ? words.join(' ') : null;
}

/** Default proof a person brings back, by kind of mission, when the caller names none. */
export const DEFAULT_PROOF: Record<MissionKind, string[]> = {
  call: ['callSummary'],
  message: ['messageTranscript'],
  review: ['reviewNotes'],
  logistics: ['handoverConfirmation'],
};

const present = (v: unknown) =>
  v !== undefined &&
  v !== null &&
  v !== '' &&
  !(Array.isArray(v) && v.length === 0) &&
  !(typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0);

/** The required proof items the outcome's proof does not carry (absent, null, empty). */
export function missingProof(proofReq: string[], proof: Record<string, unknown> | undefined): string[] {
  return proofReq.filter((item) => !proof || !Object.hasOwn(proof, item) || !present(proof[item]));
}

/** Each proof item with the SHA-256 of its canonical JSON (RFC 8785), so what was handed in can be checked later. */
export function proofArtefacts(
  proofReq: string[],
  proof: Record<string, unknown> | null,
): Array<{ item: string; required: boolean; sha256: string }> {
  if (!proof) return [];
  return Object.keys(proof)
    .sort()
    .map((item) => ({
      item,
      required: proofReq.includes(item),
      sha256: createHash('sha256')
        .update(canonicalize(proof[item]) ?? 'null')
        .digest('hex'),
    }));
}

/** The status an outcome ends a mission in: the person reported back (resolved), or could not do it (failed). */
export function missionStatusFor(outcome: ProxyOutcomeStatus): MissionStatus {
  return outcome === 'failed' ? 'failed' : 'resolved';
}

/** A confirmed availability or identity check is what upgrades a provider to verified. */
export function verifiesProvider(reason: string, outcome: ProxyOutcomeStatus): boolean {
  return (
    outcome === 'confirmedSuccess' &&
    (reason === 'localServiceAvailability' || reason === 'identityVerificationAndConsent')
  );
}

/** Where a mission's own task goes when the mission ends (a run's task follows its run instead). */
export function taskStatusAfter(
  mission: MissionStatus,
  outcome: ProxyOutcomeStatus | null,
): 'completed' | 'failed' | 'canceled' {
  if (mission === 'canceled') return 'canceled';
  return mission === 'resolved' && outcome === 'confirmedSuccess' ? 'completed' : 'failed';
}

/** Who a provider is within an account: its phone when known (names are spelled many ways), else its name. */
export function providerIdentity(name: string, phone: string | null): string {
  return phone ?? `name:${name.trim().toLowerCase().replace(/\s+/g, ' ')}`;
}

export interface StepMissionInput {
  /** The proxy step's clause of the request. */
  clause: string;
  /** The candidate an earlier hunt step selected (a choice answered with `contact`), if any. */
  selected?: Record<string, unknown> | null;
  consentToCall: boolean;
  country?: unknown;
  proofReq?: string[];
}

export interface StepMission {
  kind: MissionKind;
  reason: MissionReason;
  task: string;
  context: Record<string, unknown>;
  voiceCall: Record<string, unknown> | null;
  channelMsg: Record<string, unknown> | null;
  proofReq: string[];
  provider: { name: string; phone: string | null; ref: string | null } | null;
  /** Why the mission is not the one the words asked for (a call without consent). */
  notes: string[];
}

const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);

/**
 * The mission a run hands to a person: from the request (kind, reason, the
 * provider and phone it names), the candidate a hunt step selected (which
 * becomes `context.selectedProvider`), and the body's consent. A call needs
 * `consentToCall: true`; without it no call is placed and a message mission
 * is offered instead, saying why.
 */
export function planStepMission(input: StepMissionInput): StepMission {
  const selected = input.selected ?? null;
  const phone = phonesIn(input.clause, input.country)[0] ?? normalizePhone(selected?.phone, input.country);
  const name = providerNameIn(input.clause) ?? str(selected?.vendor) ?? str(selected?.name) ?? str(selected?.title);
  let kind = missionKind(input.clause, Boolean(phone));
  // A hunt choice answered with `contact` means reaching the seller, even when the words say "choose".
  if (selected && kind === 'review') kind = 'call';
  const reason = missionReason(input.clause, kind);
  const notes: string[] = [];
  if (kind === 'call' && !input.consentToCall) {
    kind = 'message';
    notes.push(
      `No call will be placed: the request did not give consentToCall: true. A message mission is offered ` +
        `instead${phone ? ` (SMS to ${phone})` : ''}.`,
    );
  }
  const title = str(selected?.title);
  const task =
    selected && name
      ? `Contact ${name}${title && title !== name ? ` about "${title}"` : ''}: ${input.clause}`
      : input.clause;
  const ref = str(selected?.itemId) ?? str(selected?.candidateId);
  const message = kind === 'message' ? messageTo(input.clause, phone, input.country) : null;
  // Whom the mission confirms: the name the words give, else the number or address it reaches them at.
  const reach = phone ?? str(message?.to);
  const provider = name || reach ? { name: name ?? reach!, phone, ref } : null;
  const context: Record<string, unknown> = {};
  if (provider) {
    context.selectedProvider = {
      name: provider.name,
      ...(phone ? { phone } : {}),
      ...(ref ? { providerId: ref } : {}),
      ...(selected
        ? { title, price: selected.price ?? null, currency: selected.currency ?? null, source: 'hunt' }
        : { source: 'request' }),
    };
  }
  return {
    kind,
    reason,
    task: task.slice(0, 4000),
    context,
    voiceCall: kind === 'call' ? { ...(phone ? { phone } : {}), prompt: input.clause } : null,
    channelMsg: message ? { ...message, text: input.clause } : null,
    proofReq: input.proofReq && input.proofReq.length > 0 ? input.proofReq : DEFAULT_PROOF[kind],
    provider,
    notes,
  };
}

/**
 * Where a message mission goes: by email or to a Slack channel when the request asks for that channel (or names only
 * that kind of address), read as the bridge step reads a request; else by SMS to the phone it names; else nowhere (a
 * person sends it). A chat message offers Yes/No buttons, which answer it in one click.
 */
function messageTo(clause: string, phone: string | null, country: unknown): Record<string, unknown> {
  const read = readStepRequest(clause, country);
  if (read.channel === 'email' && read.emails[0])
    return { channel: 'email', to: read.emails[0], subject: clause.slice(0, 120) };
  if (read.channel === 'chat' && read.chats[0]) return { channel: 'chat', to: read.chats[0], buttons: ['Yes', 'No'] };
  return phone ? { channel: 'sms', to: phone } : {};
}

/** What a reply says, as far as words can tell: a yes or no, when, and for how much. */
export interface ParsedReply {
  answer: 'yes' | 'no' | null;
  availableAt: string | null;
  /** The words that named the time ("Thursday at 3pm"). */
  when: string | null;
  price: { amount: number; currency: string } | null;
  /** True when the reply does not settle the mission: no answer, or both a yes and a no. */
  ambiguous: boolean;
}

const YES = /\b(yes|yeah|yep|yup|sure|ok(ay)?|works|confirm(ed)?|available|can do|sounds good|fine|ja|oui|s[ií])\b/i;
const NO = /\b(no|nope|not available|unavailable|can'?t|cannot|can not|won'?t|doesn'?t work|busy|decline|nein|non)\b/i;
const CURRENCY: Record<string, string> = { '€': 'EUR', $: 'USD', '£': 'GBP', euro: 'EUR', euros: 'EUR' };
const CODE = '(EUR|USD|GBP|CHF|€|\\$|£|euros?)';
const AMOUNT = '(\\d{1,7}(?:[.,]\\d{1,2})?)';
const PRICE_BEFORE = new RegExp(`${CODE}\\s?${AMOUNT}`, 'i');
const PRICE_AFTER = new RegExp(`${AMOUNT}\\s?${CODE}(?![a-z])`, 'i');

function priceIn(text: string): ParsedReply['price'] {
  const before = PRICE_BEFORE.exec(text);
  const after = before ? null : PRICE_AFTER.exec(text);
  const [amount, code] = before ? [before[2]!, before[1]!] : after ? [after[1]!, after[2]!] : [null, null];
  if (!amount || !code) return null;
  const currency = CURRENCY[code.toLowerCase()] ?? code.toUpperCase();
  return { amount: Number(amount.replace(',', '.')), currency };
}

/**
 * Reads a person's reply to a mission (an SMS, a call's gathered speech or keypad answer, an email, a chat message):
 * yes or no, an availability (dates and times through chrono-node, read forward from `now`, in UTC unless `timezone`
 * gives minutes east of it) and a price (an amount with its currency). A reply with neither or both a yes and a no is
 * ambiguous: a person judges it.
 */
export function parseReply(text: string, now: Date, timezone = 0): ParsedReply {
  const said = text.trim();
  const digit = /^[12]$/.test(said) ? (said === '1' ? 'yes' : 'no') : null;
  // "not available" holds "available": the negative phrases are taken out before a yes is looked for.
  const yes = digit === 'yes' || YES.test(said.replace(NO, ' '));
  const no = digit === 'no' || NO.test(said);
  const answer = yes && !no ? 'yes' : no && !yes ? 'no' : null;
  const [found] = chrono.parse(said, { instant: now, timezone }, { forwardDate: true });
  return {
    answer,
    availableAt: found ? found.start.date().toISOString() : null,
    when: found ? found.text : null,
    price: priceIn(said),
    ambiguous: answer === null,
  };
}

import type { Static } from '@sinclair/typebox';
import type { PortalPlaybookView, PortalTemplateView } from './schemas.js';

/**
 * The portal templates and recovery playbooks that ship. A template is a
 * declarative step list over conventional selectors (`#username`,
 * `[data-portal=…]`); a portal with other markup takes a step list of its
 * own. Inputs are `{{name}}` in a navigate URL or `input` in a fill.
 */

type Template = Static<typeof PortalTemplateView>;
type Playbook = Static<typeof PortalPlaybookView>;

const LOGIN = [
  { op: 'navigate', url: '/login' },
  { op: 'fill', selector: '#username', credential: 'username' },
  { op: 'fill', selector: '#password', credential: 'password' },
  { op: 'click', selector: 'button[type=submit]' },
] as const;

export const TEMPLATES: readonly Template[] = [
  {
    templateId: 'download-latest-invoice',
    title: 'Download the latest invoice',
    description: 'Signs in, opens the invoices page and records the newest invoice (its row and a screenshot).',
    inputs: [],
    expectedOutcome: 'extracted.latestInvoice holds the newest invoice row; a screenshot proves it',
    steps: [
      ...LOGIN,
      { op: 'navigate', url: '/invoices' },
      { op: 'waitFor', selector: '[data-portal=invoices]' },
      { op: 'extractTable', selector: '[data-portal=invoices]', as: 'invoices' },
      { op: 'extractText', selector: '[data-portal=latest-invoice]', as: 'latestInvoice' },
      { op: 'screenshot', label: 'invoices' },
    ],
  },
  {
    templateId: 'check-order-status',
    title: "Check an order's status",
    description: 'Signs in and reads the status of one order.',
    inputs: [{ name: 'orderId', description: "The portal's order number", required: true }],
    expectedOutcome: "extracted.orderStatus holds the order's status text",
    steps: [
      ...LOGIN,
      { op: 'navigate', url: '/orders/{{orderId}}' },
      { op: 'waitFor', selector: '[data-portal=order-status]' },
      { op: 'extractText', selector: '[data-portal=order-status]', as: 'orderStatus' },
      { op: 'screenshot', label: 'order' },
    ],
  },
  {
    templateId: 'update-delivery-address',
    title: 'Update a delivery address',
    description: 'Signs in, fills the new address on the address page and saves it.',
    inputs: [{ name: 'address', description: 'The new address, one line', required: true }],
    expectedOutcome: "extracted.confirmation holds the portal's confirmation",
    steps: [
      ...LOGIN,
      { op: 'navigate', url: '/account/address' },
      { op: 'fill', selector: '#address', input: 'address' },
      { op: 'click', selector: '[data-portal=save]' },
      { op: 'waitFor', selector: '[data-portal=confirmation]' },
      { op: 'extractText', selector: '[data-portal=confirmation]', as: 'confirmation' },
      { op: 'screenshot', label: 'saved' },
    ],
  },
  {
    templateId: 'request-refund',
    title: 'Request a refund',
    description: "Signs in, opens the order's refund form, states the reason and submits it.",
    inputs: [
      { name: 'orderId', description: 'The order to refund', required: true },
      { name: 'reason', description: 'Why, one line', required: true },
    ],
    expectedOutcome: "extracted.refundReference holds the portal's refund reference",
    steps: [
      ...LOGIN,
      { op: 'navigate', url: '/orders/{{orderId}}/refund' },
      { op: 'fill', selector: '#reason', input: 'reason' },
      { op: 'click', selector: '[data-portal=submit]' },
      { op: 'waitFor', selector: '[data-portal=refund-reference]' },
      { op: 'extractText', selector: '[data-portal=refund-reference]', as: 'refundReference' },
      { op: 'screenshot', label: 'refund' },
    ],
  },
  {
    templateId: 'unlock-account',
    title: 'Request an account unlock',
    description: "Opens the portal's unlock page and submits the username.",
    inputs: [],
    expectedOutcome: "extracted.unlockNotice holds the portal's answer",
    steps: [
      { op: 'navigate', url: '/account/unlock' },
      { op: 'fill', selector: '#username', credential: 'username' },
      { op: 'click', selector: '[data-portal=submit]' },
      { op: 'waitFor', selector: '[data-portal=notice]' },
      { op: 'extractText', selector: '[data-portal=notice]', as: 'unlockNotice' },
      { op: 'screenshot', label: 'unlock' },
    ],
  },
  {
    templateId: 'reset-mfa',
    title: 'Request an MFA reset',
    description: 'Signs in and asks the portal to reset the second factor.',
    inputs: [],
    expectedOutcome: "extracted.mfaNotice holds the portal's answer",
    steps: [
      ...LOGIN,
      { op: 'navigate', url: '/account/security' },
      { op: 'click', selector: '[data-portal=reset-mfa]' },
      { op: 'waitFor', selector: '[data-portal=notice]' },
      { op: 'extractText', selector: '[data-portal=notice]', as: 'mfaNotice' },
      { op: 'screenshot', label: 'mfa' },
    ],
  },
  {
    templateId: 'dispute-charge',
    title: 'Dispute a charge',
    description: 'Signs in, opens the charge and files a dispute with the reason.',
    inputs: [
      { name: 'chargeId', description: 'The charge to dispute', required: true },
      { name: 'reason', description: 'Why, one line', required: true },
    ],
    expectedOutcome: "extracted.disputeReference holds the portal's dispute reference",
    steps: [
      ...LOGIN,
      { op: 'navigate', url: '/charges/{{chargeId}}/dispute' },
      { op: 'fill', selector: '#reason', input: 'reason' },
      { op: 'click', selector: '[data-portal=submit]' },
      { op: 'waitFor', selector: '[data-portal=dispute-reference]' },
      { op: 'extractText', selector: '[data-portal=dispute-reference]', as: 'disputeReference' },
      { op: 'screenshot', label: 'dispute' },
    ],
  },
] as Template[];

export const PLAYBOOKS: readonly Playbook[] = [
  {
    playbookId: 'account-locked',
    title: 'Account locked',
    situation: 'Sign-in fails because the portal locked the account',
    description: 'Asks the portal to unlock the account, then checks sign-in works by reading the latest invoice.',
    actions: [
      { templateId: 'unlock-account', why: 'ask for the unlock' },
      { templateId: 'download-latest-invoice', why: 'prove sign-in works again' },
    ],
  },
  {
    playbookId: 'mfa-reset',
    title: 'MFA reset',
    situation: 'The second factor was lost or changed',
    description: "Requests an MFA reset through the portal's security page.",
    actions: [{ templateId: 'reset-mfa', why: 'ask for the reset' }],
  },
  {
    playbookId: 'disputed-charge',
    title: 'Disputed charge',
    situation: 'A charge on the account is wrong',
    description: 'Records the latest invoice as evidence, then files the dispute.',
    actions: [
      { templateId: 'download-latest-invoice', why: 'evidence of the charge' },
      { templateId: 'dispute-charge', why: 'file the dispute' },
    ],
  },
] as Playbook[];

export const templateById = (id: string) => TEMPLATES.find((t) => t.templateId === id) ?? null;
export const playbookById = (id: string) => PLAYBOOKS.find((p) => p.playbookId === id) ?? null;

// The payment phrase rules of scam triage: gift cards, money transfers, wire, crypto, payment apps and fees.
import type { PhraseRule } from './triage-rule-types.js';

const BRANDS = [
  String.raw`(?:itunes|apple|google ?play|steam|amazon|ebay|target|walmart|sephora|best buy|razer(?: gold)?|vanilla)`,
].join('');
/** A gift card of any brand ("Amazon gift cards", "iTunes cards", "Google Play card", "paysafecard"). */
const GIFT = String.raw`(?:gift ?(?:cards?|vouchers?)|${BRANDS}\s?(?:gift ?)?(?:cards?|vouchers?)|paysafe ?cards?)`;
/** Several of them: paying "in gift cards" is a demand, paying an order "with a gift card" is a shopper's choice. */
const GIFTS = String.raw`(?:gift ?(?:cards|vouchers)|${BRANDS}\s?(?:gift ?)?(?:cards|vouchers)|paysafe ?cards)`;
/** What one owes rather than buys: paying these in gift cards is the demand (paying a shop order with one is not). */
const DEBT = [
  String.raw`(?:fine|bail|bond|tax(?:es)?|deposit|rent|fees?|bill|invoice|debt|penalty|ransom|settlement|owed?)`,
].join('');
/** Within a sentence; a full stop counts only inside a number ("1,500.00 EUR"). */
const W = String.raw`(?:[^.!?\n]|\.\d)`;
const PAY_BY = String.raw`(?:in|with|by|using|via|through|as|in the form of)\s+(?:[\w$€£,.-]+\s+){0,3}?`;

/** Payment and fee rules, in the order their signals are listed. */
export const PAYMENT_RULES: PhraseRule[] = [
  {
    // FTC: "Anyone who demands payment by gift card is always a scammer." Weighted high on its own.
    id: 'pay.giftCard',
    signal: 'demands payment in gift cards',
    weight: 6,
    ftcSign: 'payInSpecificWay',
    ic3: null,
    trigger:
      'a debt, fee, fine, deposit or rent to pay in gift cards or vouchers (iTunes, Google Play, Steam, Amazon, …); ' +
      '"pay in gift cards"; someone wants it paid in them or only accepts them; buy cards and send or read out the ' +
      'codes',
    patterns: [
      new RegExp(String.raw`\b${DEBT}\b${W}{0,60}?\b${PAY_BY}${GIFT}`, 'i'),
      new RegExp(String.raw`\b(?:pay|paid|paying|payment|send|sent)\b${W}{0,40}?\b${PAY_BY}${GIFTS}\b`, 'i'),
      new RegExp(
        [
          String.raw`\b(?:wants?|wanted|ask(?:s|ed|ing)?|told|tells|demand(?:s|ed|ing)?|insist(?:s|ed|ing)?`,
          String.raw`|requir(?:es|ed|ing)`,
          String.raw`|request(?:s|ed|ing)?|instruct(?:s|ed|ing)?)\b${W}{0,60}?\b(?:pay|paid|payment|send|sent`,
          String.raw`|settle)\b`,
          String.raw`${W}{0,40}?${GIFT}`,
        ].join(''),
        'i',
      ),
      new RegExp(
        String.raw`\b(?:only (?:accepts?|takes?)|will only (?:accept|take)|accepts? only)\b${W}{0,20}?${GIFT}`,
        'i',
      ),
      new RegExp(
        [
          String.raw`\b(?:buy|purchase|get|grab|pick up|obtain)\b${W}{0,60}?${GIFT}[^\n]{0,120}?`,
          String.raw`\b(?:send|give|read|text|email`,
          String.raw`|share`,
          String.raw`|tell|forward|scratch)\b${W}{0,30}?\b(?:codes?|numbers?|pins?|(?:photos?|pictures?|pics?) of`,
          String.raw`|the back)\b`,
        ].join(''),
        'i',
      ),
      new RegExp(
        [
          String.raw`\b(?:send|give|read|text|email|share|tell|provide|forward)\b${W}{0,30}?\b(?:${GIFT}\s*`,
          String.raw`(?:codes?|claim codes?|numbers?|pins?)|cards?\s*(?:codes?|claim codes?|pins?))\b`,
        ].join(''),
        'i',
      ),
    ],
  },
  {
    id: 'pay.wireService',
    signal: 'asks for payment through a money transfer service',
    weight: 3,
    ftcSign: 'payInSpecificWay',
    ic3: null,
    trigger: 'Western Union, MoneyGram, Ria Money Transfer',
    patterns: [/\b(?:western union|moneygram|ria money transfer)\b/i],
  },
  {
    id: 'pay.wire',
    signal: 'asks for payment by wire',
    weight: 2,
    ftcSign: 'payInSpecificWay',
    ic3: null,
    trigger:
      'wire transfer, "wire the money", "wire back", "send a wire" (alone it stays low: businesses invoice ' +
      'by wire too)',
    patterns: [/\b(?:wire transfer|wire (?:the|this|that|it|us|me|them|back)\b|send (?:a|the) wire)/i],
  },
  {
    id: 'pay.crypto',
    signal: 'asks for payment in cryptocurrency',
    weight: 3,
    ftcSign: 'payInSpecificWay',
    ic3: 'investment',
    trigger: 'bitcoin, crypto, USDT/Tether, a bitcoin ATM, a wallet address to pay to',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:pay|send|deposit|transfer|in|via|using|buy)\b(?:[^.!?\n]`,
          String.raw`|\.\d){0,40}?\b(?:bitcoin|btc|crypto(?:currency)?|usdt|tether|ethereum|eth)\b`,
        ].join(''),
        'i',
      ),
      /\b(?:bitcoin|crypto) (?:atm|kiosk|wallet)\b/i,
    ],
  },
  {
    id: 'pay.paymentApp',
    signal: 'asks for payment through a payment app',
    weight: 2,
    ftcSign: 'payInSpecificWay',
    ic3: null,
    trigger: 'Zelle, Venmo, Cash App, PayPal "friends and family"',
    patterns: [/\b(?:zelle|venmo|cash ?app)\b/i, /\bfriends (?:and|&) family\b/i],
  },
  {
    id: 'fee.advance',
    signal: 'a fee must be paid up front to receive money or goods',
    weight: 3,
    ftcSign: 'problemOrPrize',
    ic3: 'advanceFee',
    trigger:
      'processing/release/clearance/transfer/customs fee to release, claim or withdraw something; "pay a small fee"; ' +
      'a fee to recover lost money',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:processing|release|clearance|transfer|handling|activation|unlock(?:ing)?`,
          String.raw`|customs|delivery) (?:fee|charge|tax)\b[^.!?\n]{0,60}\b(?:release|receive`,
          String.raw`|claim|unlock|deliver|collect|process)`,
        ].join(''),
        'i',
      ),
      new RegExp(
        [
          String.raw`\b(?:release|receive|claim|unlock|collect|withdraw(?:al)?|cash out)\b${W}{0,60}\b(?:pay|send`,
          String.raw`|deposit)\b`,
          String.raw`${W}{0,30}\b(?:fee|charge|tax|commission|deposit)\b`,
        ].join(''),
        'i',
      ),
      new RegExp(
        [
          String.raw`\brecover\b[^.!?\n]{0,40}\b(?:lost|stolen|scammed)?\s?(?:money|funds|crypto|bitcoin`,
          String.raw`|savings)\b[^.!?\n]{0,60}\bfee\b`,
        ].join(''),
        'i',
      ),
      /\bpay (?:a|the) small (?:fee|charge)\b/i,
    ],
  },
  {
    // FTC: an overpayment with a request to send the difference back is a fake-check scam. "I overpaid" is not.
    id: 'fee.overpayment',
    signal: 'overpayment with a request to send the difference back',
    weight: 6,
    ftcSign: 'payInSpecificWay',
    ic3: 'overpayment',
    trigger:
      'someone overpaid, sent too much or refunded by mistake and asks you to send, wire or refund the difference, ' +
      'excess or rest; "wire back the difference"',
    patterns: [
      new RegExp(
        [
          String.raw`(?<!\b(?:i|we)\s(?:\w+\s)?)\b(?:overpa(?:id|yment)|(?:sent|paid|transferred|refunded|deposited)`,
          String.raw` (?:you |me |us )?(?:too much|more than|extra|by mistake|\$?\d[\d,.]* instead of))`,
          String.raw`[^\n]{0,120}?\b(?:send|wire|transfer|return|give|pay|forward|refund|zelle|venmo)\b${W}{0,40}?`,
          String.raw`\b(?:back|difference|excess|extra|rest|remainder|balance|overpayment)\b`,
        ].join(''),
        'i',
      ),
      new RegExp(
        [
          String.raw`\b(?:send|wire|transfer|give|forward|zelle|venmo)\b (?:back )?(?:the |him |her |them )?`,
          String.raw`(?:difference|excess|extra|remainder|overpayment)\b`,
        ].join(''),
        'i',
      ),
      new RegExp(
        [
          String.raw`\b(?:ask(?:s|ed|ing)?|wants?|told|request(?:s|ed|ing)?)\b (?:me|us|you) to `,
          String.raw`(?:refund|reimburse|return|send back)\b${W}{0,30}?`,
          String.raw`\b(?:difference|excess|extra|remainder|balance|rest)\b`,
        ].join(''),
        'i',
      ),
    ],
  },
  {
    // FTC "fake check scams": a check to deposit, then money or gift cards to send on before it bounces.
    id: 'pay.fakeCheck',
    signal: 'a check to deposit and money to send on',
    weight: 6,
    ftcSign: 'payInSpecificWay',
    ic3: 'overpayment',
    trigger:
      'deposit or cash a check (or receive one) and send, wire or forward the rest, buy equipment from "their" ' +
      'vendor, or buy gift cards with it',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:deposit(?:ed|ing)?|cash(?:ed|ing)?|mail(?:ed)?|sen[dt]|receiv(?:e|ed|ing)|gets?`,
          String.raw`|got)\b${W}{0,30}?`,
          String.raw`\b(?:checks?|cheques?|money orders?)\b[^\n]{0,120}?\b(?:send|wire|forward|transfer|zelle|venmo`,
          String.raw`|buy`,
          String.raw`|purchase|give)\b${W}{0,50}?\b(?:rest|remainder|difference|balance|back|vendor|supplier`,
          String.raw`|gift ?cards?`,
          String.raw`|equipment|supplies|bitcoin|crypto)\b`,
        ].join(''),
        'i',
      ),
    ],
  },
];

// The payment phrase rules of scam triage: gift cards, money transfers, wire, crypto, payment apps and fees.
import type { PhraseRule } from './triage-rule-types.js';

const GIFT = String.raw`(?:gift|itunes|apple|google play|steam|amazon|prepaid|vanilla|razer gold)\s?cards?`;

/** Payment and fee rules, in the order their signals are listed. */
export const PAYMENT_RULES: PhraseRule[] = [
  {
    id: 'pay.giftCard',
    signal: 'asks for payment in gift cards',
    weight: 4,
    ftcSign: 'payInSpecificWay',
    ic3: null,
    trigger: 'buy/pay with/send gift cards (iTunes, Google Play, Steam, Amazon, prepaid), or the card codes',
    patterns: [
      new RegExp(
        String.raw`\b(?:buy|purchase|pay(?:ment)?|send|get|pick up|in|with|using|by)\b[^.!?\n]{0,40}?\b${GIFT}\b`,
        'i',
      ),
      new RegExp(String.raw`\b${GIFT}\s+(?:codes?|numbers?|pins?)\b`, 'i'),
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
    trigger: 'processing/release/clearance/transfer/customs fee to release or claim something; "pay a small fee"',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:processing|release|clearance|transfer|handling|activation|unlock(?:ing)?`,
          String.raw`|customs|delivery) (?:fee|charge|tax)\b[^.!?\n]{0,60}\b(?:release|receive`,
          String.raw`|claim|unlock|deliver|collect|process)`,
        ].join(''),
        'i',
      ),
      /\b(?:release|receive|claim|unlock|collect)\b[^.!?\n]{0,60}\b(?:pay|send)\b[^.!?\n]{0,30}\b(?:fee|charge|tax)\b/i,
      /\bpay (?:a|the) small (?:fee|charge)\b/i,
    ],
  },
  {
    id: 'fee.overpayment',
    signal: 'overpayment with a request to send the difference back',
    weight: 4,
    ftcSign: 'payInSpecificWay',
    ic3: 'overpayment',
    trigger: 'overpaid / sent too much, refund or send back the difference or excess',
    patterns: [
      /\b(?:overpa(?:id|yment)|sent (?:you )?too much|paid (?:you )?too much)\b/i,
      /\b(?:refund|send back|return|wire back)\b[^.!?\n]{0,30}\b(?:the )?(?:difference|excess|extra|balance)\b/i,
    ],
  },
];

// The lure phrase rules of scam triage: changed bank details, too-good offers, credential, remote-access and link asks.
import type { PhraseRule } from './triage-rule-types.js';

/** Bank-detail, too-good-to-be-true and request rules, in the order their signals are listed. */
export const LURE_RULES: PhraseRule[] = [
  {
    id: 'bankDetails.changed',
    signal: 'says the bank details have changed',
    weight: 4,
    ftcSign: 'payInSpecificWay',
    ic3: 'businessEmailCompromise',
    trigger: 'new/updated/changed bank details, account or IBAN; "pay to our new account"',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:new|updated|changed`,
          String.raw`|different)\b[^.!?\n]{0,20}\b(?:bank(?:ing)? (?:details|account|information`,
          String.raw`|info)|account (?:details|number)|iban|payment details|remittance details)\b`,
        ].join(''),
        'i',
      ),
      /\b(?:bank(?:ing)? details|account|iban)\b[^.!?\n]{0,20}\b(?:has|have) (?:been )?(?:changed|updated)\b/i,
    ],
  },
  {
    id: 'tooGood.returns',
    signal: 'promises returns too good to be true',
    weight: 4,
    ftcSign: 'problemOrPrize',
    ic3: 'investment',
    trigger: 'guaranteed returns/profit, double your money, risk-free, N % daily/weekly/monthly return',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:guaranteed (?:returns?|profits?|income)|double your (?:money|investment)`,
          String.raw`|risk[- ]free (?:returns?|investment|profit)|no risk)\b`,
        ].join(''),
        'i',
      ),
      /\b\d{1,3}\s?% (?:daily|weekly|monthly|per (?:day|week|month))\b/i,
      /\b(?:daily|weekly|monthly) (?:returns?|profits?) of \d{1,3}\s?%/i,
    ],
  },
  {
    id: 'tooGood.prize',
    signal: 'an unexpected prize, lottery win or inheritance',
    weight: 3,
    ftcSign: 'problemOrPrize',
    ic3: 'lotterySweepstakesInheritance',
    trigger: 'you have won, lottery, sweepstakes, jackpot, inheritance, unclaimed funds, beneficiary of',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:you(?:'ve| have)? (?:won|been selected)|lottery|sweepstakes?|jackpot`,
          String.raw`|inheritance|unclaimed (?:funds|prize|money)|next of kin)\b`,
        ].join(''),
        'i',
      ),
    ],
  },
  {
    id: 'tooGood.price',
    signal: 'a price too good to be true',
    weight: 2,
    ftcSign: 'problemOrPrize',
    ic3: 'nonPaymentNonDelivery',
    trigger: '80–99 % off, brand-new at a fraction of the price, free iPhone',
    patterns: [
      /\b(?:[89]\d)\s?% off\b/i,
      /\bfree (?:iphone|ipad|macbook|laptop|car)\b/i,
      /\ba fraction of the (?:retail )?price\b/i,
    ],
  },
  {
    id: 'credentials.request',
    signal: 'asks for a password, code or other credential',
    weight: 4,
    ftcSign: 'pretendsToBeKnownOrganization',
    ic3: 'phishingSpoofing',
    trigger:
      'give/send/confirm/read out your password, PIN, one-time or verification code, seed phrase, SSN, card number',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:send|give|tell|share|confirm|provide|read (?:out|back|me)|enter|verify`,
          String.raw`|reply with)\b[^.!?\n]{0,30}\b(?:password|passcode|pin|one[- ]time (?:code`,
          String.raw`|password)|otp|verification code|security code|6[- ]digit code|seed phrase`,
          String.raw`|recovery phrase|social security number|ssn|card number|cvv|login details)\b`,
        ].join(''),
        'i',
      ),
    ],
  },
  {
    id: 'remoteAccess.request',
    signal: 'asks to install remote-access software',
    weight: 3,
    ftcSign: 'pretendsToBeKnownOrganization',
    ic3: 'techSupport',
    trigger: 'AnyDesk, TeamViewer, UltraViewer, "remote access", "let me connect to your computer"',
    patterns: [/\b(?:anydesk|teamviewer|ultraviewer|quick ?support|remote (?:access|desktop|control))\b/i],
  },
  {
    id: 'link.verify',
    signal: 'asks to verify an account through a link',
    weight: 2,
    ftcSign: 'problemOrPrize',
    ic3: 'phishingSpoofing',
    trigger: 'click the link to verify/confirm/restore/unlock, log in here, verify your account/identity',
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:click|tap|follow|open|visit)\b[^.!?\n]{0,30}\b(?:link|here|below`,
          String.raw`|button)\b[^.!?\n]{0,40}\b(?:verify|confirm|restore|unlock|reactivate|update`,
          String.raw`|avoid)\b`,
        ].join(''),
        'i',
      ),
      /\b(?:verify|confirm|validate) your (?:account|identity|details|information)\b/i,
      /\blog ?in here\b/i,
    ],
  },
];

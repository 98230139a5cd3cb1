// The rental and romance phrase rules of scam triage (FTC "Rental listing scams", "Romance scams"; IC3 Real Estate,
// Confidence/Romance). Each reads its signs only in a text about a rental, or about someone met online.
import type { PhraseRule } from './triage-rule-types.js';

/** Within a sentence; a full stop counts only inside a number ("1,500.00 EUR"). */
const W = String.raw`(?:[^.!?\n]|\.\d)`;

/** The text is about renting a place. */
const RENTAL = new RegExp(
  [
    String.raw`\b(?:landlord|landlady|lessor|letting agent|tenan(?:t|cy)|lease|rental|rent(?:ing)?|flat|apartment|apt`,
    String.raw`|condo|studio|room|house|home|property|accommodation|airbnb|sublet|listing|viewing)\b`,
  ].join(''),
  'i',
);

/** The text is about someone met online and not in person. */
const MET_ONLINE = new RegExp(
  [
    String.raw`\b(?:met (?:\w+ ){0,2}?(?:online|on (?:a |an |the )?(?:dating|internet|facebook|instagram|tinder|hinge`,
    String.raw`|bumble|whatsapp|telegram|snapchat|social media|linkedin|match|game|app|website|site))|dating (?:app`,
    String.raw`|site`,
    String.raw`|website|profile)|online (?:boyfriend|girlfriend|partner|relationship|lover|friend|romance)`,
    String.raw`|(?:never|not yet|haven'?t|have not|didn'?t|did not) (?:ever |actually )?(?:met|seen) (?:\w+ ){0,2}?`,
    String.raw`(?:in person|face to face|in real life|irl)|(?:haven'?t|have not|never) met (?:him|her|them)`,
    String.raw`|(?:talking|chatting|texting) (?:\w+ ){0,3}?online|matched (?:with \w+ )?on|matched with (?:him|her`,
    String.raw`|them|someone)|tinder|hinge|bumble|okcupid|plenty of fish)\b`,
  ].join(''),
  'i',
);

/** Seeing the place (or its owner); up to four words may come between "before" and it ("before I can see"). */
/** The text asks for money to be sent ahead: a deposit, a first month, a wire or transfer. */
const MONEY_UP_FRONT = new RegExp(
  [
    String.raw`\b(?:deposit|first (?:and last )?month|holding fee|in advance|up ?front|wire|(?:send|transfer)`,
    String.raw` (?:\w+ )?(?:the |a )?(?:money|deposit|payment|rent|funds))\b`,
  ].join(''),
  'i',
);

const SEE = [
  String.raw`\s+(?:[\w']+\s+){0,4}?(?:see|seen|seeing|view|viewing|viewed|visit|visiting|tour|touring|look(?:ing)? at`,
  String.raw`|inspect(?:ing|ion)?|meet|meeting|show(?:ing)?)`,
].join('');

/** Rental and romance rules, in the order their signals are listed. */
export const RENTAL_RULES: PhraseRule[] = [
  {
    // FTC: never pay a deposit or first month's rent for a place you have not seen or before you sign a lease.
    id: 'rental.payBeforeViewing',
    signal: 'wants money for a rental before you can see it',
    weight: 6,
    ftcSign: 'pressureToActNow',
    ic3: 'realEstate',
    trigger:
      'a deposit, rent or fee to pay before seeing, viewing or visiting the place or meeting the owner; "can\'t show ' +
      'it until you pay"; viewings only after payment; "sight unseen" (in a text about a rental)',
    context: RENTAL,
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:deposit|rent|pay|paid|paying|payment|money|fee|transfer(?:red|ring)?|send|sent|wire[ds]?`,
          String.raw`|wiring)\b${W}{0,80}?`,
          String.raw`\b(?:before|prior to|without)${SEE}\b`,
        ].join(''),
        'i',
      ),
      new RegExp(
        [
          String.raw`\b(?:can'?t|cannot|won'?t|will not|unable to|not able to|no)\s+(?:\w+\s+){0,3}?(?:show|view`,
          String.raw`|viewings?|see|visit|visits|tour|tours|meet)\b${W}{0,60}?\b(?:until|unless|before|till)\b`,
          String.raw`${W}{0,40}?\b(?:pay|paid|deposit|transfer|send|sent|wire|money)`,
        ].join(''),
        'i',
      ),
      new RegExp(
        [
          String.raw`\b(?:viewings?|visits?|tours?|showings?)\b[^.!?\n]{0,30}?\bafter\b[^.!?\n]{0,30}?\b(?:payment`,
          String.raw`|paying|deposit|you pay|i pay|transfer)`,
        ].join(''),
        'i',
      ),
      new RegExp(
        [
          String.raw`\b(?:sight unseen|without (?:a |any )?(?:viewing|visit|seeing (?:it|the (?:flat|apartment|house`,
          String.raw`|place|room))))\b`,
        ].join(''),
        'i',
      ),
    ],
  },
  {
    id: 'rental.keysByMail',
    signal: 'the keys are to be sent by post or courier',
    weight: 6,
    ftcSign: null,
    ic3: 'realEstate',
    trigger: 'send, mail, post or courier the keys; keys by post, DHL or courier (in a text about a rental)',
    context: RENTAL,
    patterns: [
      /\b(?:send|sends|mail|post|ship|courier|fedex|dhl)\b[^.!?\n]{0,25}?\b(?:the |you |me |us |your |my )*keys?\b/i,
      new RegExp(
        [
          String.raw`\bkeys?\b[^.!?\n]{0,40}?\b(?:by|via|through|in the|with)\s+(?:post|mail|courier|fedex|dhl|ups`,
          String.raw`|usps|royal mail|delivery|parcel)\b`,
        ].join(''),
        'i',
      ),
      new RegExp(
        [
          String.raw`\bkeys?\b[^.!?\n]{0,20}?\b(?:will|would|can|shall|to) be\s+(?:sent|mailed|posted|shipped`,
          String.raw`|couriered|delivered)\b`,
        ].join(''),
        'i',
      ),
    ],
  },
  {
    id: 'rental.ownerAway',
    signal: 'the landlord says they are abroad',
    weight: 4,
    ftcSign: null,
    ic3: 'realEstate',
    trigger:
      'the landlord or owner is abroad, overseas, out of the country, deployed or on a mission, in a text that asks ' +
      'for a deposit or for money to be sent (a landlord abroad who is paid rent as usual is no sign)',
    context: MONEY_UP_FRONT,
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:landlord|landlady|owner|lessor|host|he|she|they|who|lady|man|woman|guy|i'?m`,
          String.raw`|i am)\b${W}{0,50}?\b(?:abroad|overseas`,
          String.raw`|out of (?:the )?country|out of state|in another country|deployed|on (?:a |an )?(?:mission`,
          String.raw`|missionary`,
          String.raw` trip|oil rig)|missionary|working (?:abroad|overseas|offshore|in (?:another|a different) country)`,
          String.raw`|relocated|moved (?:abroad|overseas|away for work))\b`,
        ].join(''),
        'i',
      ),
    ],
  },
  {
    id: 'rental.depositUpfront',
    signal: 'wants a deposit up front to hold the place',
    weight: 2,
    ftcSign: 'pressureToActNow',
    ic3: 'realEstate',
    trigger: "a deposit, first month's rent or holding fee up front, in advance, or to hold or reserve the place",
    context: RENTAL,
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:deposit|first (?:and last )?month'?s?(?: rent)?|holding fee|reservation fee|advance rent`,
          String.raw`|rent in advance)\b${W}{0,60}?\b(?:to (?:hold|secure|reserve|lock in|take it off)|upfront`,
          String.raw`|up front`,
          String.raw`|in advance|right away|asap|before (?:anyone|someone) else|first\b(?! (?:and last )?month))\b`,
        ].join(''),
        'i',
      ),
      /\bto (?:hold|secure|reserve) (?:the |this |it|my |your )[^.!?\n]{0,30}?\b(?:deposit|pay|transfer|send)\b/i,
    ],
  },
  {
    // FTC: "Nobody legit will ask you to send money if you've never met in person."
    id: 'romance.moneyRequest',
    signal: 'someone met online asks for money',
    weight: 6,
    ftcSign: 'problemOrPrize',
    ic3: 'confidenceRomance',
    trigger:
      'asks for, needs or wants money, a loan, tickets, medical or customs costs, gift cards or crypto (in a text ' +
      'about someone met online and not in person)',
    context: MET_ONLINE,
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:send|lend|loan|wire|transfer|give|borrow|pay for|pay (?:his|her|their)|cover|help (?:him|her`,
          String.raw`|them) (?:with|pay)|needs?|needed|ask(?:s|ed|ing)?|wants?|wanted|begg(?:ed|ing)|invest)\b`,
          String.raw`${W}{0,60}?(?:\b(?:money|cash|funds|loan|plane tickets?|flights?|tickets?|visa|passport`,
          String.raw`|hospital|medical|surgery|bills?|customs|fees?|gift ?cards?|bitcoin|crypto|invest(?:ment|ing)?`,
          String.raw`|trading)\b|[$€£]\s?\d(?:[\d,]|\.\d)*|\b\d[\d,.]*\s?(?:usd|eur|gbp|dollars?|euros?|pounds?)\b)`,
        ].join(''),
        'i',
      ),
    ],
  },
  {
    id: 'romance.cantMeet',
    signal: 'never available to meet or video call',
    weight: 3,
    ftcSign: null,
    ic3: 'confidenceRomance',
    trigger: "can't or won't video call, FaceTime or meet in person; a camera that is always broken",
    negatable: false, // "he won't video call" is the sign
    patterns: [
      new RegExp(
        [
          String.raw`\b(?:can'?t|cannot|won'?t|will not|refuses? to|never|always (?:has|finds|gives) (?:an )?excuses?`,
          String.raw`(?: not)? to|avoids?)\s+(?:\w+\s+){0,2}?(?:video[- ]?(?:call|chat)|facetime|skype|zoom call`,
          String.raw`|meet(?: up)? (?:in person|face to face|in real life)|turn on (?:the|his|her|their) camera`,
          String.raw`|show (?:his|her|their) face)`,
        ].join(''),
        'i',
      ),
      /\b(?:camera|webcam) (?:is )?(?:always )?(?:broken|not working|doesn'?t work)\b/i,
    ],
  },
];

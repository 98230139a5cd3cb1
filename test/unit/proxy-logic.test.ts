import assert from 'node:assert/strict';
import { phonesIn } from '../../shared/phone.js';
import {
  missingProof,
  missionKind,
  missionReason,
  planStepMission,
  proofArtefacts,
  providerNameIn,
  taskStatusAfter,
  verifiesProvider,
} from '../../jobs/proxy/logic.js';

describe('proxy logic', () => {
  it("finds phone numbers as E.164: international forms anywhere, national ones with the caller's country", () => {
    assert.deepEqual(phonesIn('call Kiez Plumbing at +49 30 5550123 and confirm'), ['+49305550123']);
    assert.deepEqual(phonesIn('ring 030 5550123 please', 'de'), ['+49305550123']);
    assert.deepEqual(phonesIn('ring 030 5550123 please'), [], 'a national number without a country is not guessed');
    assert.deepEqual(phonesIn('the order 123 costs 45', 'DE'), []);
  });

  it('reads the provider named after the contact verb, and nothing when no name follows', () => {
    assert.equal(providerNameIn('call Kiez Plumbing at +49 30 5550123 and confirm'), 'Kiez Plumbing');
    assert.equal(providerNameIn('please phone Dr. Weiss, ask about friday'), 'Dr. Weiss');
    assert.equal(providerNameIn('call them tomorrow'), null);
    assert.equal(providerNameIn('find a plumber'), null);
  });

  it('infers the kind and reason of the work', () => {
    assert.equal(missionKind('send a courier to pick up the parcel', false), 'logistics');
    assert.equal(missionKind('text the landlord about the viewing', false), 'message');
    assert.equal(missionKind('phone the clinic', false), 'call');
    assert.equal(missionKind('have someone look over this contract', false), 'review');
    assert.equal(missionKind('+49 30 5550123 tomorrow', true), 'call');
    assert.equal(missionReason('verify my identity with the bank', 'call'), 'identityVerificationAndConsent');
    assert.equal(missionReason('look over this contract', 'review'), 'humanReviewerNeeded');
    assert.equal(missionReason('can they come tomorrow', 'call'), 'localServiceAvailability');
  });

  it('names each required proof item that is absent or empty, and hashes what was handed in', () => {
    assert.deepEqual(missingProof(['callSummary', 'photo', 'receipt'], { callSummary: 'ok', photo: '', receipt: {} }), [
      'photo',
      'receipt',
    ]);
    assert.deepEqual(missingProof(['callSummary'], undefined), ['callSummary']);
    const [a] = proofArtefacts(['x'], { x: { b: 1, a: 2 } });
    const [b] = proofArtefacts(['x'], { x: { a: 2, b: 1 } });
    assert.equal(a!.sha256, b!.sha256, 'canonical JSON: key order does not change the hash');
  });

  it("verifies a provider only on a confirmed availability or identity check; a mission's task follows its end", () => {
    assert.equal(verifiesProvider('localServiceAvailability', 'confirmedSuccess'), true);
    assert.equal(verifiesProvider('humanReviewerNeeded', 'confirmedSuccess'), false);
    assert.equal(verifiesProvider('localServiceAvailability', 'providerUnavailable'), false);
    assert.deepEqual(
      [
        taskStatusAfter('resolved', 'confirmedSuccess'),
        taskStatusAfter('resolved', 'providerUnavailable'),
        taskStatusAfter('expired', null),
        taskStatusAfter('canceled', null),
      ],
      ['completed', 'failed', 'failed', 'canceled'],
    );
  });

  it("builds the step's mission: a hunt selection becomes the provider; no consent, no call", () => {
    const selected = {
      itemId: 'lst_1',
      title: 'Espresso machine Compact',
      vendor: 'CafeCo',
      price: 149,
      currency: 'USD',
    };
    const call = planStepMission({ clause: 'contact the seller', selected, consentToCall: true });
    assert.deepEqual(
      [call.kind, call.reason, call.voiceCall, call.proofReq],
      ['call', 'localServiceAvailability', { prompt: 'contact the seller' }, ['callSummary']],
    );
    assert.deepEqual(call.context.selectedProvider, {
      name: 'CafeCo',
      providerId: 'lst_1',
      title: 'Espresso machine Compact',
      price: 149,
      currency: 'USD',
      source: 'hunt',
    });
    assert.match(call.task, /^Contact CafeCo about "Espresso machine Compact"/);
    const noConsent = planStepMission({
      clause: 'call Kiez Plumbing at +49 30 5550123',
      consentToCall: false,
      proofReq: ['note'],
    });
    assert.deepEqual(
      [noConsent.kind, noConsent.voiceCall, noConsent.channelMsg?.to, noConsent.proofReq],
      ['message', null, '+49305550123', ['note']],
    );
    assert.match(noConsent.notes[0]!, /No call will be placed/);
  });
});

import { activateProfile, createProfile } from './service.js';
import type { Deps } from '../../shared/deps.js';
import { ProfileActivate, ProfileActivated, ProfileCreate, ProfileCreated } from '../../shared/schemas/auth.js';
import { defineRoute, Reply } from '../../shared/http/route-spec.js';

async function activate(deps: Deps, activationToken: string) {
  await activateProfile(deps, activationToken);
  return { ok: true, status: 'activated', tokenStatus: 'unlimited' };
}

export const routes = [
  defineRoute({
    method: 'POST',
    path: '/v1/profiles',
    tag: 'security',
    auth: 'public',
    summary: 'Create a developer profile and its starter token',
    body: ProfileCreate,
    response: { 201: ProfileCreated },
    returnsSecret: true,
    handler: async ({ body }, deps) => {
      const profile = await createProfile(deps, body);
      return new Reply(201, {
        ok: true,
        accountId: profile.accountId,
        token: profile.token,
        tokenId: profile.tokenId,
        tokenStatus: 'limited',
        unverifiedRequestLimit: deps.config.UNVERIFIED_REQUEST_LIMIT,
        activation: { required: true, sentTo: profile.activationSentTo, delivery: profile.delivery },
      });
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/profiles/activate',
    tag: 'security',
    auth: 'public',
    summary: 'Activate a profile: its tokens become unlimited',
    body: ProfileActivate,
    response: { 200: ProfileActivated },
    handler: ({ body }, deps) => activate(deps, body.activationToken),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/profiles/activate',
    tag: 'security',
    auth: 'public',
    summary: 'Activate from the link in the activation mail',
    query: ProfileActivate,
    response: { 200: ProfileActivated },
    handler: ({ query }, deps) => activate(deps, query.activationToken),
  }),
];

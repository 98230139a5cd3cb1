import type { PortalActionRow, PortalSessionRow } from './repository.js';

export const portalSessionView = (row: PortalSessionRow) => ({
  portalSessionId: row.id,
  connectorId: row.connector_id,
  targetOrigin: row.target_origin,
  credentials: row.credentials,
  scope: row.scope,
  mfaMethod: row.mfa_method as never,
  preflight: row.preflight as never,
  createdAt: row.created_at.toISOString(),
});

export const portalActionView = (row: PortalActionRow) => ({
  portalActionId: row.id,
  portalSessionId: row.session_id,
  templateId: row.template_id,
  playbookId: row.playbook_id,
  status: row.status as never,
  steps: row.steps as never,
  inputs: row.inputs,
  artefacts: row.artefacts as never,
  extracted: row.extracted,
  blocked: row.blocked as never,
  error: row.error,
  attempts: row.attempts,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
  finishedAt: row.finished_at ? row.finished_at.toISOString() : null,
});

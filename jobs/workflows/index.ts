/** The workflows module's public face: what the module list and other modules use. */
export { routes } from './routes.js';

// What other modules use (they import only this file; test/unit/module-faces.test.ts).
export { runTemplate } from './run-template.js';
export { metadataOf, TemplateDocs, textOr, type WorkflowTemplate } from './template.js';

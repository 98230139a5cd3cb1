/** The tasks module's public face: what the module list and other modules use. */
export { routes } from './routes.js';

// What other modules use (they import only this file; test/unit/module-faces.test.ts).
export { getTask, type TaskRow } from './repository.js';
export { insertNewTask, moveTask } from './service.js';

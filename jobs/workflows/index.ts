/** The workflows module's public face: what the module list and other modules use. */
export { routes } from './routes.js';

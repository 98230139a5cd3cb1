/** The environment module's public face: other modules use nothing of it yet (its registration is module.ts). */
export {};

// Commands that serve until told to stop (`sandbox`, `serve`) wait here for Ctrl-C or a service
// manager's SIGTERM, then close what they serve.

/** Resolves at the first SIGINT or SIGTERM (and stops listening for them). */
export function untilStopped(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/**
 * Loaded before anything else: the estate's modules take about two seconds to load, and a Ctrl-C
 * or SIGTERM then killed the process with 130 and no word. The first such signal is held here
 * until `main` can hold it with the rest of the start, which stops cleanly once everything is up.
 * No imports, so this is in place within the first milliseconds.
 */
let held: NodeJS.Signals | undefined;
const hold = (signal: NodeJS.Signals): void => void (held ??= signal);
process.on('SIGINT', hold).on('SIGTERM', hold);

/** Stops holding; the signal that came while the modules loaded, if one did. */
export function releaseEarlySignals(): NodeJS.Signals | undefined {
  process.off('SIGINT', hold).off('SIGTERM', hold);
  return held;
}

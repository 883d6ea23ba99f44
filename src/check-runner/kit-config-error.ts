/** A contract kit could not load what it checks: its module, or its settings (one line each). */
export class KitConfigError extends Error {
  override readonly name = 'KitConfigError';
  readonly problems: readonly string[];
  /** `subject` says what could not be loaded: `The importer`, `The sink`. */
  constructor(subject: string, problems: readonly string[]) {
    super(`${subject} cannot be loaded:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.problems = problems;
  }
}

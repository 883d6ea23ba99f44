/**
 * A controller of the importer's target (the ERP, the database, the folder the importer writes
 * to), which a forker gives the kit so it can check what only the target can show: what the
 * importer does while the target is down or hangs, and how many records it holds of a message.
 * Every method is optional; a case that needs one the controller lacks is reported "not
 * checked", saying which.
 *
 * The kit takes it from a test (describeImporterContract({ target })) or from a module named on
 * the command line (`npm run importer:check -- <importer> --target <module>`, target-module.ts).
 * For the ERP stand-in (test/support/erp-standin.ts), test/support/importer-targets/
 * erp-standin.ts is such a module, built on the stand-in's faults: outage = 503 on every call,
 * hang = the next call never answered, loseReply = the next booking done and its connection
 * cut, holds = the bookings with the messageId as their external id.
 */
export interface ImporterTarget {
  /** From now on every call to the target fails as in an outage (a 503, a refused connection). */
  outage?(): Promise<void> | void;
  /** Ends outage(), hang() and loseReply(): calls succeed again. Called after each of them. */
  recover?(): Promise<void> | void;
  /** The next call to the target gets no answer, until the importer gives up on it. */
  hang?(): Promise<void> | void;
  /**
   * The next booking is done by the target but its reply never reaches the importer (the
   * connection is cut after the work): the lost reply of the 409 trap, made at the target.
   */
  loseReply?(): Promise<void> | void;
  /** How many records of the message (by messageId) the target holds: 1 after an import, never 2. */
  holds?(messageId: string): Promise<number> | number;
  /**
   * The importer's settings that point it at this target, taken over those of the kit's
   * environment: a controller that starts a test ERP of its own gives its address this way
   * (for the example importer, ERP_BASE_URL and ERP_TOKEN).
   * @default none
   */
  importerEnv?: Readonly<Record<string, string>>;
  /** Called once when the kit ends: stops what the controller started (a test ERP, a proxy). */
  close?(): Promise<void> | void;
}

/** The methods of ImporterTarget that act on the target, as the report names what a case needed. */
export type TargetMethod = 'outage' | 'recover' | 'hang' | 'loseReply' | 'holds';

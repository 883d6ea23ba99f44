/** What a user sees of a consumer configuration that does not load. */
import { ConfigError, loadConfig } from '../../src/consumer/config.ts';

/**
 * The problems loadConfig(env) names, each a line of its ConfigError; none when the
 * configuration loads. Any other error is thrown on.
 */
export function configProblems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  return [];
}

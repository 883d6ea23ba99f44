/** The status sink's configuration section (docs/status-sink.md). */
import type { Reader } from '../settings/reader.ts';

export interface SinkSettings {
  /**
   * The status sink: a name of src/sinks/ or a path (sink/load-sink.ts). @default undefined
   * (`journal`)
   */
  sinkModule: string | undefined;
}

export function readSinkSettings(read: Reader): SinkSettings {
  return { sinkModule: read.optional('SINK_MODULE', (v) => ({ value: v })) };
}

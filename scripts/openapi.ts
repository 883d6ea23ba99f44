/**
 * `npm run openapi`: writes docs/openapi.json, the OpenAPI 3.1 document the simulator serves at
 * GET /openapi.json. A test fails while the checked-in file differs from the generated one.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createOpenApiDocument } from '../src/provider/openapi.ts';

const file = join(import.meta.dirname, '..', 'docs', 'openapi.json');
writeFileSync(file, `${JSON.stringify(createOpenApiDocument(), null, 2)}\n`);
console.log(`wrote ${file}`);

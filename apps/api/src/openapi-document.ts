import { buildOpenApi } from './openapi';
import { ROUTE_TABLE } from './route-table';

/**
 * The OpenAPI document of an API that serves every entry of the route table:
 * what `/openapi.json` answers in demo mode (an app without demo mode documents
 * the same less its demo endpoints). Rendered without starting a server, for
 * the generated client (`npm run generate -w @holdfast/client`).
 */
export function fullOpenApiDocument(): Record<string, unknown> {
  return buildOpenApi(ROUTE_TABLE);
}

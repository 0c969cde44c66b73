export * from './contract.js';
export { openApiDocument } from './document.js';
export type { OpenApiDocument, JsonSchema } from './document.js';
export {
  checkLoad,
  checkLoadPage,
  checkErrorBody,
  checkResponse,
  assertConformingResponse,
  ContractViolationError,
} from './validate.js';
export type { Violation, ResponseToCheck } from './validate.js';

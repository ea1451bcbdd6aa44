import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

function createAjv(): Ajv {
  // The options the SDK's own AjvJsonSchemaValidator uses, so answers are judged and worded alike,
  // and ownProperties as libs/contracts' validator has it: `constructor` or `toString` count as
  // present only when the value has them, not because every object inherits them.
  const ajv = new Ajv({ strict: false, validateFormats: true, validateSchema: false, allErrors: true, ownProperties: true });
  addFormats(ajv);
  return ajv;
}

/**
 * One JSON Schema validator for every session's SDK server. Left to itself the SDK builds an Ajv
 * (with all its formats) per server, which was the largest part of an idle session's memory.
 * Each schema (an elicitation's requestedSchema, say) is compiled for its one use and dropped from
 * the shared instance again: kept, they would pile up for the life of the process, and a schema
 * with an `$id` one upstream chose would stand in for another upstream's schema of the same `$id`.
 */
export class SharedSchemaValidator implements jsonSchemaValidator {
  private ajv?: Ajv;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const ajv = (this.ajv ??= createAjv());
    const check = ajv.compile(schema);
    ajv.removeSchema(schema);
    return (input) => {
      if (check(input)) return { valid: true, data: input as T, errorMessage: undefined };
      return { valid: false, data: undefined, errorMessage: ajv.errorsText(check.errors) };
    };
  }
}

export const sharedSchemaValidator = new SharedSchemaValidator();

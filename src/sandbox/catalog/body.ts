// Request bodies of catalog writes: a JSON object, or the 400 saying why the body is not one.
import { type SandboxRequest, type SandboxResponse, validationFailures } from '../http.js';

export function bodyFailure(message: string, attempted: unknown): SandboxResponse {
  const shown = Buffer.isBuffer(attempted) ? attempted.toString('utf8').slice(0, 200) : attempted;
  return validationFailures({
    body: [{ PropertyName: 'body', ErrorMessage: message, AttemptedValue: shown ?? null }],
  });
}

/** The request body as a JSON object, or the 400 explaining why it is not one. */
export function objectBody(
  req: SandboxRequest,
): { value: Record<string, unknown> } | { response: SandboxResponse } {
  const value = req.json();
  if (value === undefined) return { response: bodyFailure('A JSON object body is required', null) };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const found = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
    return { response: bodyFailure(`The body must be a JSON object of properties, found ${found}`, value) };
  }
  return { value: value as Record<string, unknown> };
}

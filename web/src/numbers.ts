// Whole numbers typed into a form: read strictly, or refused with a sentence naming the field
// and its range, before anything is sent ("2.5", "-5" or twenty digits in a number box were
// sent as they came: a silent failure, an int64 encoding error, or a table of another size).

/** A form's value refused before sending: its message is the person's to read. */
export class FormError extends Error {}

const LIMIT = 1_000_000_000_000n; // the API's bound on chip amounts

/** The whole number in ``input`` from ``min`` to ``max`` (``empty``: what a blank box means). */
export function whole(
  input: HTMLInputElement,
  label: string,
  min: bigint,
  max: bigint = LIMIT,
  empty?: bigint,
): bigint {
  const text = input.value.trim();
  if (text === "" && empty !== undefined) return empty;
  const value = /^-?\d{1,16}$/.test(text) ? BigInt(text) : undefined;
  if (value === undefined || value < min || value > max) {
    throw new FormError(`${label}: a whole number from ${min.toLocaleString("en")} to ${max.toLocaleString("en")}`);
  }
  return value;
}

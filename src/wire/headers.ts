// Response headers as the wire hands them up: a header sent several times is a list of values.

/** Header values as the transports give them: absent, one string, or one per header field. */
export function headerValues(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** One HTTP header read as a single string, from a webhook's request or an API's answer. */

/**
 * The value of header `name` (any case) in Node's request headers or undici's answer headers,
 * both keyed in lower case. Node keeps the first of a repeated header it allows once
 * (content-type, authorization...) and joins the others with ", "; a list (set-cookie) gives
 * its first. This is what express's `req.get` returned, before the webhook route left express.
 */
export function headerValue(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  name: string,
): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * A value as it may appear in an error message: the userinfo of anything URL-like
 * (`postgres://user:password@host`, also the one-slash `postgresql:/user:password@host`) is
 * replaced, because configuration errors end up in terminals, CI logs and tickets. Everything
 * from the scheme to the last `@` goes, so a password containing `/` or `@` goes too.
 */
export function redactUserinfo(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/*)[^@]*@/i, '$1[redacted]@');
}

// In running text a URL ends at a space or a quote, and its userinfo before the first `/`, `?`
// or `#`: a path's `@` (`/users/a@b`) is not userinfo, and a password's raw `@` still goes.
const USERINFO_IN_TEXT = /\b([a-z][a-z0-9+.-]*:\/\/?)[^\s"'<>/?#]*@/gi;

/**
 * `text` (a sentence, a log message) with the userinfo of every URL in it replaced:
 * `booked at http://erp:pw@host/api` becomes `booked at http://[redacted]@host/api`.
 */
export function redactUserinfoInText(text: string): string {
  return text.replace(USERINFO_IN_TEXT, '$1[redacted]@');
}

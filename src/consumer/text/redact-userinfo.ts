/**
 * A value as it may appear in an error message: the userinfo of anything URL-like
 * (`postgres://user:password@host`, also the one-slash `postgresql:/user:password@host`) is
 * replaced, because configuration errors end up in terminals, CI logs and tickets. Everything
 * from the scheme to the last `@` goes, so a password containing `/` or `@` goes too.
 */
export function redactUserinfo(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/*)[^@]*@/i, '$1[redacted]@');
}
